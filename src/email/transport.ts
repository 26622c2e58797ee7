/** Outgoing email: SMTP through nodemailer when SMTP_URL is set, else one .eml file a message in the outbox folder. */
import nodemailer from "nodemailer";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../core/log.ts";

/** A message to send: plain text and HTML alternatives of one body. */
export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The Message-ID header, `<…@…>`: the same for every attempt at one message, so repeats are recognisable. */
  messageId: string;
  /** Names the .eml file in the outbox (letters, digits, `_` and `-`). */
  reference: string;
}

/** The Message-ID of the message `reference`, in the domain of the From address (`lettings.invalid` without one). */
export function messageIdOf(from: string, reference: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? "lettings.invalid";
  return `<${reference}@${domain}>`;
}

/** Where a message went. */
export interface SentEmail {
  transport: "smtp" | "outbox";
  messageId: string;
  /** The SMTP server's answer, or the path of the .eml file. */
  destination: string;
}

/** Sends email. */
export interface Mailer {
  readonly kind: "smtp" | "outbox";
  send(message: OutgoingEmail): Promise<SentEmail>;
  close(): void;
}

/** The folder of the outbox: `<dataDir>/outbox`. */
export function outboxDir(config: Pick<Config, "dataDir">): string {
  return resolve(config.dataDir, "outbox");
}

/** A mailer over SMTP when `config.smtpUrl` is set, else writing each message to the outbox folder. */
export function createMailer(config: Pick<Config, "smtpUrl" | "emailFrom" | "dataDir">, log: Logger): Mailer {
  return config.smtpUrl
    ? smtpMailer(config.smtpUrl, config.emailFrom)
    : outboxMailer(outboxDir(config), config.emailFrom, log);
}

function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport({
    url,
    // Connections are reused between messages; a connection the server closed is reopened on the next send.
    pool: true,
    maxConnections: 2,
    // A send that hangs would hold its delivery lock: every phase is bounded, well inside the job's expiry.
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  return {
    kind: "smtp",
    async send(message) {
      const info = await transport.sendMail({ from, ...fields(message) });
      return {
        transport: "smtp",
        messageId: info.messageId ?? message.messageId,
        destination: String(info.response ?? ""),
      };
    },
    close: () => transport.close(),
  };
}

function outboxMailer(dir: string, from: string, log: Logger): Mailer {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  return {
    kind: "outbox",
    async send(message) {
      if (!/^[A-Za-z0-9_-]{1,100}$/.test(message.reference))
        throw new Error(`bad outbox reference: ${message.reference}`);
      const info = await composer.sendMail({ from, ...fields(message) });
      await mkdir(dir, { recursive: true });
      const path = join(dir, `${message.reference}.eml`);
      await writeFile(path, info.message as Buffer);
      // The address is personal data: only at debug level.
      log.info("email written to the outbox (no SMTP_URL set)", { path, subject: message.subject });
      log.debug("email outbox message", { path, to: message.to });
      return { transport: "outbox", messageId: message.messageId, destination: path };
    },
    close: () => {},
  };
}

function fields(message: OutgoingEmail) {
  return {
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: message.messageId,
  };
}
