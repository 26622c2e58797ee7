/** SMTP_URL: the forms the README documents are taken as they are; any other value is a configuration error. */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe("SMTP_URL", () => {
  test.each([
    "smtp://user:pass@mail.example:587",
    "smtps://user:pass@mail.example:465",
    "smtp://127.0.0.1:2525",
    "smtp://mail.example",
    "SMTP://mail.example:25",
  ])("%s is taken as it is", (value) => {
    expect(loadConfig({ SMTP_URL: value }).smtpUrl).toBe(value);
  });

  test("unset or empty: no SMTP, the outbox folder", () => {
    expect(loadConfig({}).smtpUrl).toBeUndefined();
    expect(loadConfig({ SMTP_URL: "" }).smtpUrl).toBeUndefined();
  });

  test.each([
    ["http://x", "http://x"],
    ["https://user:hunter2@mail.example", "https://user:***@mail.example"],
    ["mail.example:587", "mail.example:587"],
    ["smtp:mail.example", "smtp:mail.example"],
    ["smtp://", "smtp://"],
    ["smtp://user:hunter2@mail.example:99999", "smtp://user:***@mail.example:99999"],
    ["ftp://mail.example", "ftp://mail.example"],
  ])("%s is refused, saying what is expected, its password hidden", (value, shown) => {
    expect(() => loadConfig({ SMTP_URL: value })).toThrow(
      new ConfigError(`SMTP_URL must be smtp://user:pass@host:587 or smtps://user:pass@host:465, not "${shown}"`),
    );
  });
});
