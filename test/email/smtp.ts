/** A real SMTP server for tests (the smtp-server package), and a small MIME reader for what it receives. */
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

/** A message the server accepted. */
export interface ReceivedMessage {
  from: string;
  to: string[];
  raw: string;
}

/** What the server does with a message to a recipient. */
export type Behaviour = "accept" | "reject" | "stall";

/** A running test SMTP server. */
export interface TestSmtp {
  url: string;
  messages: ReceivedMessage[];
  /** The accepted messages to one address. */
  to(address: string): ReceivedMessage[];
  /** Sets what happens to messages for an address (default accept). */
  behave(address: string, behaviour: Behaviour): void;
  /** Resolves when a message for the address reached the DATA phase (for stalls). */
  receiving(address: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts an SMTP server on a free local port: no TLS, no authentication. */
export async function startSmtpServer(): Promise<TestSmtp> {
  const messages: ReceivedMessage[] = [];
  const behaviours = new Map<string, Behaviour>();
  const waiting = new Map<string, () => void>();
  const arrived = new Map<string, Promise<void>>();
  const signal = (address: string) => {
    if (!arrived.has(address)) arrived.set(address, new Promise((resolve) => waiting.set(address, resolve)));
    return arrived.get(address)!;
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        void signal(to[0]!);
        waiting.get(to[0]!)?.();
        const behaviour = behaviours.get(to[0]!) ?? "accept";
        if (behaviour === "stall") return; // never answers: the client hangs until it gives up or dies
        if (behaviour === "reject") {
          const error = Object.assign(new Error("Mailbox unavailable (test)"), { responseCode: 550 });
          return callback(error);
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        messages.push({ from, to, raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  server.on("error", () => {});
  const net = server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => net.once("listening", () => resolve()));
  const port = (net.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to: (address) => messages.filter((m) => m.to.includes(address.toLowerCase())),
    behave: (address, behaviour) => void behaviours.set(address.toLowerCase(), behaviour),
    receiving: (address) => signal(address.toLowerCase()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A parsed message: its headers (lower-case names, unfolded) and its decoded text and HTML parts. */
export interface ParsedEmail {
  headers: Record<string, string>;
  contentType: string;
  text: string | null;
  html: string | null;
}

function splitHead(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf("\r\n\r\n");
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? "" : raw.slice(at + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decode(body: string, encoding: string | undefined): string {
  const e = (encoding ?? "7bit").toLowerCase();
  if (e === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (e === "quoted-printable") {
    const bytes: number[] = [];
    const soft = body.replace(/=\r\n/g, "");
    for (let i = 0; i < soft.length; i++) {
      if (soft[i] === "=" && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
        bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        bytes.push(...Buffer.from(soft[i]!, "utf8"));
      }
    }
    return Buffer.from(bytes).toString("utf8");
  }
  return body;
}

/** Decodes an RFC 2047 encoded-word header value (as nodemailer writes them). */
export function decodeHeader(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === "B"
      ? Buffer.from(text, "base64").toString("utf8")
      : decode(text.replace(/_/g, " "), "quoted-printable"),
  );
}

/** Parses a message as nodemailer composes it: one part, or multipart/alternative with text and HTML. */
export function parseEmail(raw: string): ParsedEmail {
  const { headers, body } = splitHead(raw);
  const contentType = headers["content-type"] ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  let text: string | null = null;
  let html: string | null = null;
  const take = (type: string, content: string) => {
    if (type.startsWith("text/plain")) text = content;
    else if (type.startsWith("text/html")) html = content;
  };
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith("--")) break;
      const part = splitHead(chunk.replace(/^\r\n/, ""));
      take(
        part.headers["content-type"] ?? "text/plain",
        decode(part.body.replace(/\r\n$/, ""), part.headers["content-transfer-encoding"]),
      );
    }
  } else {
    take(contentType, decode(body, headers["content-transfer-encoding"]));
  }
  return { headers, contentType, text, html };
}
