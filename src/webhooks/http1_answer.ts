/**
 * Reading an HTTP/1.x answer from the bytes of a connection, as they arrive: the status, whether the connection may
 * carry another request, and the first bytes of the body. Bodies framed by Content-Length, by chunked transfer
 * coding, or by the end of the connection; interim (1xx) answers skipped. RFC 9112, as far as a webhook's answer
 * needs it: header values other than the framing ones are not kept.
 */

/** Most bytes of an answer's head (status line and headers). */
export const maxHeadBytes = 64 * 1024;
/** Most bytes of a chunk-size or trailer line. */
const maxLineBytes = 4096;

type State = "head" | "length" | "chunkSize" | "chunkData" | "chunkEnd" | "trailers" | "untilClose" | "done";

/** An answer that breaks HTTP/1.1: the exchange fails and the connection is not used again. */
export class MalformedAnswer extends Error {}

/** One answer being read; `feed` it the connection's bytes. */
export class AnswerReader {
  /** The final answer's status, once its head is read (0 before). */
  status = 0;
  /** The connection may carry another request after this answer (known once the answer is complete). */
  keepAlive = true;
  private state: State = "head";
  private pending: Buffer | null = null;
  private remaining = 0;
  private readonly kept: Uint8Array[] = [];
  private keptBytes = 0;

  /** `cap`: bytes of the body kept; reading stops there. */
  constructor(private readonly cap: number) {}

  /** The answer was read to its end. */
  get complete(): boolean {
    return this.state === "done";
  }

  /** The first `cap` bytes of the body (all of it when shorter). */
  body(): Uint8Array {
    return this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept);
  }

  /**
   * Reads the next bytes; true once the answer is complete or its kept body reached `cap` (`complete` tells which).
   * Throws MalformedAnswer.
   */
  feed(chunk: Buffer): boolean {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let at = 0;
    for (;;) {
      if (this.state === "done") {
        // Bytes after the answer (the server answered what was not asked): the connection is not trusted again.
        if (at < buf.length) this.keepAlive = false;
        return true;
      }
      if (this.keptBytes >= this.cap && this.state !== "head") return true;
      if (at >= buf.length) return false;
      switch (this.state) {
        case "head": {
          const end = buf.indexOf("\r\n\r\n", at);
          if (end < 0) return this.wait(buf, at, maxHeadBytes, "head");
          this.readHead(buf.toString("latin1", at, end));
          at = end + 4;
          break;
        }
        case "length":
        case "chunkData":
        case "untilClose": {
          const n = this.state === "untilClose" ? buf.length - at : Math.min(this.remaining, buf.length - at);
          this.keep(buf.subarray(at, at + n));
          at += n;
          this.remaining -= n;
          if (this.state === "length" && this.remaining === 0) this.state = "done";
          if (this.state === "chunkData" && this.remaining === 0) this.state = "chunkEnd";
          break;
        }
        case "chunkEnd": {
          if (buf.length - at < 2) return this.wait(buf, at, 2, "chunk");
          if (buf[at] !== 13 || buf[at + 1] !== 10) throw new MalformedAnswer("a chunk not followed by CRLF");
          at += 2;
          this.state = "chunkSize";
          break;
        }
        case "chunkSize":
        case "trailers": {
          const eol = buf.indexOf("\r\n", at);
          if (eol < 0) return this.wait(buf, at, maxLineBytes, "chunk-size or trailer line");
          const line = buf.toString("latin1", at, eol);
          at = eol + 2;
          if (this.state === "trailers") {
            if (line === "") this.state = "done";
            break;
          }
          const size = /^([0-9a-fA-F]{1,8})[ \t]*(;.*)?$/.exec(line);
          if (!size) throw new MalformedAnswer(`a bad chunk size: ${JSON.stringify(line.slice(0, 40))}`);
          this.remaining = Number.parseInt(size[1]!, 16);
          this.state = this.remaining === 0 ? "trailers" : "chunkData";
          break;
        }
      }
    }
  }

  /**
   * The connection ended (the server closed it): true when that ends the answer (a body read to the connection's
   * end); false when the answer is cut short.
   */
  ended(): boolean {
    if (this.state === "untilClose") {
      this.state = "done";
      return true;
    }
    this.keepAlive = false;
    return this.state === "done";
  }

  /** Keeps the unread bytes for the next chunk, unless there are more than `limit` of them. */
  private wait(buf: Buffer, at: number, limit: number, what: string): false {
    if (buf.length - at > limit) throw new MalformedAnswer(`an answer's ${what} longer than ${limit} bytes`);
    this.pending = buf.subarray(at);
    return false;
  }

  private keep(bytes: Uint8Array) {
    const room = this.cap - this.keptBytes;
    if (room <= 0 || !bytes.length) return;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    // The connection's buffer is reused for its next read: copy what is kept.
    this.kept.push(Uint8Array.prototype.slice.call(part));
    this.keptBytes += part.length;
  }

  private readHead(head: string) {
    const lines = head.split("\r\n");
    const start = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: |$)/.exec(lines[0]!);
    if (!start) throw new MalformedAnswer(`not an HTTP/1.x answer: ${JSON.stringify(lines[0]!.slice(0, 60))}`);
    const status = Number(start[2]);
    let length: number | undefined;
    let transferEncoding: string | undefined;
    let close = start[1] === "0";
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(":");
      if (colon <= 0) {
        if (line.startsWith(" ") || line.startsWith("\t")) continue; // an obsolete folded line: not one we read
        throw new MalformedAnswer(`a malformed header line: ${JSON.stringify(line.slice(0, 60))}`);
      }
      const name = line.slice(0, colon).trim().toLowerCase();
      if (name === "content-length") {
        const value = line.slice(colon + 1).trim();
        if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== Number(value))) {
          throw new MalformedAnswer(`a bad Content-Length: ${JSON.stringify(value.slice(0, 40))}`);
        }
        length = Number(value);
      } else if (name === "transfer-encoding") {
        transferEncoding = line
          .slice(colon + 1)
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .at(-1);
      } else if (name === "connection") {
        if (/(^|,)\s*close\s*(,|$)/i.test(line.slice(colon + 1))) close = true;
      }
    }
    if (status < 200 && status !== 101) return; // interim: the final answer's head follows
    this.status = status;
    this.keepAlive = !close && status !== 101;
    if (status === 101 || status === 204 || status === 304) {
      this.state = "done";
    } else if (transferEncoding !== undefined) {
      // Chunked last: chunks; any other coding last: the body runs to the connection's end (RFC 9112, 6.3).
      this.state = transferEncoding === "chunked" ? "chunkSize" : "untilClose";
    } else if (length !== undefined) {
      this.remaining = length;
      this.state = length === 0 ? "done" : "length";
    } else {
      this.state = "untilClose";
    }
    if (this.state === "untilClose") this.keepAlive = false;
  }
}
