/** Reading an HTTP request, for REST and MCP alike: its URL, and its body with a size cap and a deadline. */
import { RequestInvalid, RequestTimeout, type AppError } from "./errors.ts";

/** A body as read: its text, or why it was not read in full. */
export type BodyRead =
  | { kind: "text"; text: string }
  /** Declared or counted over the limit: no more than the limit and one chunk was read. */
  | { kind: "tooLarge" }
  /** Not in full when the deadline passed. */
  | { kind: "timedOut" }
  /** The connection closed before the body ended. */
  | { kind: "aborted" };

const timedOut = Symbol("timedOut");
const decoder = new TextDecoder();

/**
 * The body of a request, read up to `limit` bytes (and the chunk that crosses it) within `timeoutMs` of the call.
 * A declared Content-Length over the limit reads nothing. What is left unread Bun discards once the answer is out,
 * for a few seconds at most, keeping nothing in memory: the client reads its answer, where closing the connection
 * under a client still sending makes it lose the answer to a reset half the time.
 */
export async function readBody(request: Request, limit: number, timeoutMs: number): Promise<BodyRead> {
  const read = await readWithin(
    request,
    limit,
    timeoutMs,
    () => request.text(),
    (bytes) => decoder.decode(bytes),
  );
  return read.kind === "read" ? { kind: "text", text: read.value } : read;
}

/** A body as bytes (an upload), read as readBody reads text: the same cap, deadline and outcomes. */
export async function readBodyBytes(
  request: Request,
  limit: number,
  timeoutMs: number,
): Promise<{ kind: "bytes"; bytes: Uint8Array } | Exclude<BodyRead, { kind: "text" }>> {
  const read = await readWithin(
    request,
    limit,
    timeoutMs,
    () => request.bytes(),
    (bytes) => bytes,
  );
  return read.kind === "read" ? { kind: "bytes", bytes: read.value } : read;
}

async function readWithin<T>(
  request: Request,
  limit: number,
  timeoutMs: number,
  whole: () => Promise<T>,
  of: (bytes: Uint8Array) => T,
): Promise<{ kind: "read"; value: T } | Exclude<BodyRead, { kind: "text" }>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return { kind: "tooLarge" };
  // The deadline is for the whole body: the server's idle timeout restarts at every byte, so a client sending a
  // byte a second would hold the request open for ever.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof timedOut>((resolve) => (timer = setTimeout(resolve, timeoutMs, timedOut)));
  // A declared length bounds the body (Bun enforces the framing), so Bun reads it: twice as fast as a stream
  // read here. Without one (chunked), the stream is read here, to stop at the limit.
  const reading = declared !== null ? whole() : readCapped(request, limit).then((b) => (b === null ? null : of(b)));
  reading.catch(() => {}); // a read still pending at the deadline fails when the connection closes
  try {
    const value = await Promise.race([reading, deadline]);
    if (value === timedOut) return { kind: "timedOut" };
    return value === null ? { kind: "tooLarge" } : { kind: "read", value: value as T };
  } catch {
    return { kind: "aborted" };
  } finally {
    clearTimeout(timer);
  }
}

/** A body of unknown length read up to `limit` bytes; null past it. */
async function readCapped(request: Request, limit: number): Promise<Uint8Array | null> {
  const stream = request.body;
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(next.value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** The request's URL; null when it cannot be made absolute (no Host header, or one that is not a host). */
export function urlOf(request: Request): URL | null {
  // Bun hands over the bare request target when the Host header is missing (HTTP/1.0), empty or unusable.
  return URL.parse(request.url);
}

/** The refusal of a request without a usable Host header. */
export function hostInvalid(): RequestInvalid {
  return new RequestInvalid({
    message: "The request needs a Host header naming this server (host or host:port).",
    issues: [{ path: "/headers/host", message: "missing, empty or not a valid host" }],
  });
}

/**
 * The refusal of a body that did not arrive: 408 past the deadline, 400
 * when the connection closed; both close the connection.
 */
export function bodyNotArrived(kind: "timedOut" | "aborted", timeoutMs: number): AppError {
  const error =
    kind === "timedOut"
      ? new RequestTimeout({ timeoutMs })
      : new RequestInvalid({ message: "The connection closed before the whole body arrived.", issues: [] });
  error.headers.connection = "close";
  return error;
}
