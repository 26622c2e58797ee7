/** PUBLIC_BASE_URL and PORTAL_BASE_URL: the bases of links people open, so only http(s) URLs with a host. */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

describe.each(["PUBLIC_BASE_URL", "PORTAL_BASE_URL"])("%s", (name) => {
  const key = name === "PUBLIC_BASE_URL" ? "publicBaseUrl" : "portalBaseUrl";

  test.each([
    ["https://lettings.example", "https://lettings.example"],
    ["http://localhost:3000/", "http://localhost:3000"],
    ["https://agency.example/portal//", "https://agency.example/portal"],
  ])("%s is taken, without its trailing slashes", (value, stored) => {
    expect(loadConfig({ [name]: value })[key]).toBe(stored);
  });

  test.each([
    "javascript:alert(1)",
    "file:///etc/passwd",
    "ftp://lettings.example",
    "data:text/html,hi",
    "lettings.example",
    "https://",
  ])("%s is refused, saying what is expected", (value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new ConfigError(`${name} must be an http:// or https:// URL, not "${value}"`),
    );
  });
});
