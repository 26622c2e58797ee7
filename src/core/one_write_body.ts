/**
 * A large answer's body in the form Bun sends with its status line and headers in one write.
 *
 * Bun 1.4's server writes an answer that completes after an await (every answer that read the database) into its
 * 16 KiB cork buffer, and sends the buffer in one write. An answer that does not fit is written uncorked: the status
 * line and each header name, `: `, value and line break as a send() of its own, about forty for an agenda page, each a
 * TCP segment that the service and the client both pay for (oven-sh/bun pull request 41341, open). A stream body's
 * first chunk is written corked with the headers, so a large body goes as a stream of one chunk: one write, then the
 * chunked coding's last chunk. The answer then carries `Transfer-Encoding: chunked` instead of `Content-Length`. An
 * HTTP/1.0 client gets the body ended by the connection's close. The measurement is in bench/README.md ("One write
 * an answer").
 */

/**
 * The body size from which an answer goes as one chunk. Below it, the body and up to 4 KiB of headers fit the cork
 * buffer, and the answer keeps its Content-Length.
 */
export const oneWriteFromBytes = 12 * 1024;

/** The body as Bun should be given it: a one-chunk stream when it is large, else the body itself. */
export function oneWriteBody(body: string | Uint8Array): string | Uint8Array | ReadableStream<string | Uint8Array> {
  if (byteLength(body) < oneWriteFromBytes) return body;
  return new ReadableStream<string | Uint8Array>({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
}

/**
 * The body's size in bytes, or a lower bound of it: a text's UTF-8 size is counted only between a third of the
 * threshold and the threshold in UTF-16 code units (each is 1 to 3 bytes of UTF-8).
 */
function byteLength(body: string | Uint8Array): number {
  if (typeof body !== "string") return body.byteLength;
  return body.length * 3 < oneWriteFromBytes || body.length >= oneWriteFromBytes
    ? body.length
    : Buffer.byteLength(body);
}
