/** The mailer: SMTP when configured, else .eml files in the outbox folder. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMailer, outboxDir, type OutgoingEmail } from "../../src/email/transport.ts";
import type { Logger } from "../../src/core/log.ts";
import { parseEmail, decodeHeader, startSmtpServer } from "./smtp.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

const smtp = await startSmtpServer();
const dataDir = mkdtempSync(join(tmpdir(), "mailer-"));
afterAll(async () => {
  await smtp.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function recordingLogger() {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = { debug() {}, info: (msg, fields) => void lines.push({ msg, fields }), warn() {}, error() {} };
  return { log, lines };
}

const message = (to: string, reference = "msg-1"): OutgoingEmail => ({
  to,
  subject: "Harbour Lettings – invitation",
  text: "Plain words with a link: https://portal.example/invitations/abc_DEF-123\r\n",
  html: '<p>HTML words with a <a href="https://portal.example/invitations/abc_DEF-123">link</a></p>',
  messageId: `<${reference}@lettings.test>`,
  reference,
});

describe("the SMTP mailer", () => {
  const config = { smtpUrl: smtp.url, emailFrom: "Harbour Lettings <no-reply@harbour.test>", dataDir };

  test("delivers a message with a text and an HTML part, the sender and the Message-ID", async () => {
    const mailer = createMailer(config, recordingLogger().log);
    const sent = await mailer.send(message("landlord@one.test")).finally(() => mailer.close());
    expect(sent.transport).toBe("smtp");
    expect(sent.messageId).toBe("<msg-1@lettings.test>");
    expect(sent.destination).toMatch(/^250/);
    const [received] = smtp.to("landlord@one.test");
    expect(received!.from).toBe("no-reply@harbour.test");
    const email = parseEmail(received!.raw);
    expect(email.contentType).toStartWith("multipart/alternative");
    expect(email.headers["message-id"]).toBe("<msg-1@lettings.test>");
    expect(decodeHeader(email.headers.subject!)).toBe("Harbour Lettings – invitation");
    expect(email.text).toContain("https://portal.example/invitations/abc_DEF-123");
    expect(email.html).toContain('href="https://portal.example/invitations/abc_DEF-123"');
  });

  test("a refusal by the server rejects the send with the server's code", async () => {
    smtp.behave("refused@one.test", "reject");
    const mailer = createMailer(config, recordingLogger().log);
    const error = await mailer
      .send(message("refused@one.test"))
      .catch((e) => e)
      .finally(() => mailer.close());
    expect(error).toBeInstanceOf(Error);
    expect(error.responseCode).toBe(550);
    expect(smtp.to("refused@one.test")).toHaveLength(0);
  });
});

describe("the outbox mailer (no SMTP_URL)", () => {
  const config = { smtpUrl: undefined, emailFrom: "Harbour Lettings <no-reply@harbour.test>", dataDir };

  test("writes each message as an .eml file under <dataDir>/outbox and logs where", async () => {
    const { log, lines } = recordingLogger();
    const mailer = createMailer(config, log);
    expect(mailer.kind).toBe("outbox");
    const sent = await mailer.send(message("landlord@two.test", "invitation-01J"));
    const path = join(outboxDir(config), "invitation-01J.eml");
    expect(sent).toEqual({ transport: "outbox", messageId: "<invitation-01J@lettings.test>", destination: path });
    expect(readdirSync(outboxDir(config))).toContain("invitation-01J.eml");
    const email = parseEmail(readFileSync(path, "utf8"));
    expect(email.headers.to).toBe("landlord@two.test");
    expect(email.headers.from).toContain("no-reply@harbour.test");
    expect(email.text).toContain("https://portal.example/invitations/abc_DEF-123");
    expect(email.html).toContain("<a href=");
    expect(lines.some((l) => l.fields?.path === path)).toBe(true);
  });

  test("a reference that is not a plain name is refused, so nothing is written outside the outbox", async () => {
    const mailer = createMailer(config, recordingLogger().log);
    const error = await mailer.send(message("x@two.test", "../escape")).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(readdirSync(dataDir)).not.toContain("escape.eml");
  });
});
