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
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return { kind: "tooLarge" };
  // The deadline is for the whole body: the server's idle timeout restarts at every byte, so a client sending a
  // byte a second would hold the request open for ever.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof timedOut>((resolve) => (timer = setTimeout(resolve, timeoutMs, timedOut)));
  // A declared length bounds the body (Bun enforces the framing), so Bun reads it: twice as fast as a stream
  // read here. Without one (chunked), the stream is read here, to stop at the limit.
  const reading = declared !== null ? request.text() : readCapped(request, limit);
  reading.catch(() => {}); // a read still pending at the deadline fails when the connection closes
  try {
    const text = await Promise.race([reading, deadline]);
    if (text === timedOut) return { kind: "timedOut" };
    return text === null ? { kind: "tooLarge" } : { kind: "text", text };
  } catch {
    return { kind: "aborted" };
  } finally {
    clearTimeout(timer);
  }
}

/** A body of unknown length read up to `limit` bytes; null past it. */
async function readCapped(request: Request, limit: number): Promise<string | null> {
  const stream = request.body;
  if (stream === null) return "";
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
  return decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
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
