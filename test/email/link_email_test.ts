/** The frame of the link emails: one set of parts written as plain text and as escaped HTML. */
import { describe, expect, test } from "bun:test";
import { br, linkEmail, type LinkEmailParts } from "../../src/email/link_email.ts";

const parts: LinkEmailParts = {
  subject: "Hello from A&B",
  greeting: "Dear <Ada>,",
  before: [["Plain ", { strong: "bold & <b>" }, br, "next line", { textOnly: " (text)" }, { htmlOnly: " (html)" }]],
  link: { url: "https://x.test/l?a=1&b=2", button: "Open <it>", lead: ["Open it", { textOnly: " here:" }] },
  after: [["After."]],
  signature: "A&B",
};

describe("linkEmail", () => {
  test("writes the text in CRLF lines: greeting, paragraphs, lead and URL, paragraphs, signature", () => {
    expect(linkEmail(parts).text).toBe(
      [
        "Dear <Ada>,",
        "",
        "Plain bold & <b>",
        "next line (text)",
        "",
        "Open it here:",
        "https://x.test/l?a=1&b=2",
        "",
        "After.",
        "",
        "A&B",
        "",
      ].join("\r\n"),
    );
  });

  test("an inline link ends its lead's line", () => {
    const email = linkEmail({ ...parts, link: { ...parts.link, inline: true } });
    expect(email.text).toContain("\r\nOpen it here: https://x.test/l?a=1&b=2\r\n");
  });

  test("the HTML escapes every part, bolds strong runs, breaks lines and makes the link a button", () => {
    const email = linkEmail(parts);
    expect(email.subject).toBe("Hello from A&B");
    expect(email.html).toContain("<title>Hello from A&amp;B</title>");
    expect(email.html).toContain("<p>Dear &lt;Ada&gt;,</p>");
    expect(email.html).toContain("<p>Plain <strong>bold &amp; &lt;b&gt;</strong><br>next line (html)</p>");
    expect(email.html).toContain("<p>Open it</p>");
    expect(email.html).toMatch(/<a href="https:\/\/x\.test\/l\?a=1&amp;b=2" style="[^"]+">Open &lt;it&gt;<\/a>/);
    expect(email.html).toContain(
      '<br><a href="https://x.test/l?a=1&amp;b=2">https://x.test/l?a=1&amp;b=2</a></p>\n<p>After.</p>\n<p>A&amp;B</p>',
    );
  });

  test("a lead said only in the text leaves no paragraph in the HTML", () => {
    const email = linkEmail({ ...parts, link: { ...parts.link, lead: [{ textOnly: "Here:" }] } });
    expect(email.text).toContain("\r\nHere:\r\nhttps://x.test/");
    expect(email.html).not.toContain("Here:");
    expect(email.html).not.toContain("<p></p>");
  });

  test("refuses a link that is not http(s)", () => {
    expect(() => linkEmail({ ...parts, link: { ...parts.link, url: "javascript:alert(1)" } })).toThrow("http(s) URL");
  });
});
