/**
 * The `html` template: every value escaped, fragments nested once, where a value may go; and every page and email
 * of the service written with it, so a hostile name stays text in each.
 */
import { describe, expect, test } from "bun:test";
import { docsHtml } from "../../src/core/docs_page.ts";
import { html, raw } from "../../src/core/html.ts";
import { invitationEmail } from "../../src/maintenance_pro/invitation_email.ts";
import { type PageKind, portalHtml } from "../../src/maintenance_pro/portal_page.ts";
import type { InvitationView } from "../../src/maintenance_pro/queries.ts";

describe("html", () => {
  test("escapes the five special characters of every interpolated value", () => {
    expect(html`<p title="${`a"b'c`}">${`<a href="x">'&'</a>`}</p>`.toString()).toBe(
      '<p title="a&quot;b&#x27;c">&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;</p>',
    );
    expect(html`<b>${42}</b><i>${0}</i>`.toString()).toBe("<b>42</b><i>0</i>");
    expect(html`plain & <b>static</b>`.toString()).toBe("plain & <b>static</b>");
  });

  test("nests fragments without escaping them twice", () => {
    const inner = html`<b>${"Tom & Jerry"}</b>`;
    expect(html`<p>${inner}</p>`.toString()).toBe("<p><b>Tom &amp; Jerry</b></p>");
    expect(html`<div>${html`<p>${inner}</p>`}</div>`.toString()).toBe("<div><p><b>Tom &amp; Jerry</b></p></div>");
  });

  test("renders an array's items one after another, each escaped unless it is a fragment", () => {
    const items = ["<a>", "b&c"].map((name) => html`<li>${name}</li>`);
    expect(html`<ul>${items}</ul>`.toString()).toBe("<ul><li>&lt;a&gt;</li><li>b&amp;c</li></ul>");
    expect(html`<p>${["<", html`<br>`, [">", 1]]}</p>`.toString()).toBe("<p>&lt;<br>&gt;1</p>");
    expect(html`<ul>${[]}</ul>`.toString()).toBe("<ul></ul>");
  });

  test("renders null, undefined and false as nothing", () => {
    const shown = (on: boolean) => html`<p>a${on && html`<b>b</b>`}${null}${undefined}c</p>`.toString();
    expect(shown(false)).toBe("<p>ac</p>");
    expect(shown(true)).toBe("<p>a<b>b</b>c</p>");
  });

  test("a URL attribute takes only an http(s) URL, absolute or relative, escaped", () => {
    const link = (url: string) => html`<a href="${url}">x</a>`.toString();
    expect(link("https://a.test/?a=1&b=2")).toBe('<a href="https://a.test/?a=1&amp;b=2">x</a>');
    expect(link("tok/accept")).toBe('<a href="tok/accept">x</a>');
    expect(html`<form action='${"accept"}'></form>`.toString()).toBe("<form action='accept'></form>");
    for (const bad of ["javascript:alert(1)", " JavaScript:alert(1)", "java\tscript:alert(1)", "data:text/html,x"]) {
      expect(() => link(bad)).toThrow("http(s) URL");
    }
    expect(() => html`<img src="${html`https://a.test/`}">`).toThrow("http(s) URL");
  });

  test("refuses a value outside text and quoted attribute values, where escaping does not protect", () => {
    const value = "x";
    expect(() => html`<p class=${value}>`).toThrow("not inside a quoted attribute value");
    expect(() => html`<p ${value}="1">`).toThrow("not inside a quoted attribute value");
    expect(() => html`<${value}>`).toThrow("not inside a quoted attribute value");
    expect(() => html`<p title="a" ${value}>`).toThrow("not inside a quoted attribute value");
    expect(() => html`<p onmouseover="${value}">`).toThrow("is in onmouseover");
    expect(() => html`<p style="${value}">`).toThrow("is in style");
    expect(() => html`<script>${value}</script>`).toThrow("script or style body");
    expect(() => html`<style>${value}</style>`).toThrow("script or style body");
    expect(html`<p title="it's ${value}">${value}</p>`.toString()).toBe(`<p title="it's x">x</p>`);
    expect(html`<script src="a.js"></script><p>${value}</p>`.toString()).toBe('<script src="a.js"></script><p>x</p>');
  });

  test("raw writes a constant of the source as it is, in a style body too", () => {
    const css = `p > b { content: "&"; }`;
    expect(html`<style>${raw(css)}</style>`.toString()).toBe(`<style>p > b { content: "&"; }</style>`);
    const input: string = css;
    // @ts-expect-error: raw takes only a constant (a string literal type), never input.
    raw(input);
  });
});

/** Names that would break out of text or a quoted attribute if written unescaped. */
const attacks = [`"><script>alert(1)</script>`, `' onmouseover=alert(1) x='`];

/** Checks that `render(attack)` is `render(marker)` with each marker the attack escaped, and that no markup leaks. */
function rendersEscaped(render: (value: string) => string, marker = "MARKER") {
  const plain = render(marker);
  expect(plain).toContain(marker);
  for (const attack of attacks) {
    const page = render(attack);
    expect(page).toBe(plain.replaceAll(marker, Bun.escapeHTML(attack)));
    expect(page).not.toContain("<script>");
    expect(page).not.toContain("' onmouseover");
    expect(page.match(/[<"']/g)?.length).toBe(plain.match(/[<"']/g)?.length);
  }
}

describe("every page and email escapes what it is given", () => {
  const view: InvitationView = {
    workspaceId: "w",
    invitationId: "i",
    contactId: "c",
    superseded: false,
    accepted: false,
    expired: false,
    expiresAt: "2026-07-01T08:30:00.000Z",
    accessStatus: "pending",
    landlordName: "Ada Lovelace",
    workspaceName: "Harbour Lettings",
    properties: 2,
  };

  for (const kind of ["pending", "welcome"] satisfies PageKind[]) {
    test(`the portal's ${kind} page: the workspace's and the landlord's names`, () => {
      rendersEscaped((name) => portalHtml(kind, { ...view, workspaceName: name }, { action: "tok/accept" }));
      rendersEscaped((name) => portalHtml(kind, { ...view, landlordName: name }, { action: "tok/accept" }));
    });
  }

  test("the portal's expired page: the workspace's name", () => {
    rendersEscaped((name) => portalHtml("expired", { ...view, workspaceName: name }));
  });

  for (const kind of ["tooMany", "trouble"] satisfies PageKind[]) {
    test(`the portal's ${kind} page: its line of text`, () => {
      rendersEscaped((text) => portalHtml(kind, undefined, { text }));
    });
  }

  test("the portal's pending page: the form's target", () => {
    rendersEscaped((token) => portalHtml("pending", view, { action: `${token}/accept` }));
    expect(() => portalHtml("pending", view, { action: "javascript:alert(1)//accept" })).toThrow("http(s) URL");
  });

  test("the /docs page: the title, the version and the description", () => {
    const info = { title: "Lettings API", version: "1.0.0", description: "The API.\n\nMore." };
    rendersEscaped((title) => docsHtml({ ...info, title }));
    rendersEscaped((version) => docsHtml({ ...info, version }));
    rendersEscaped((description) => docsHtml({ ...info, description }));
  });

  test("the invitation email's HTML part: the names and the link", () => {
    const input = {
      workspaceName: "Harbour Lettings",
      landlordName: "Ada Lovelace",
      link: "https://portal.test/invitations/tok",
      expiresAt: "2026-07-01T08:30:00.000Z",
    };
    rendersEscaped((workspaceName) => invitationEmail({ ...input, workspaceName }).html);
    rendersEscaped((landlordName) => invitationEmail({ ...input, landlordName }).html);
    rendersEscaped((token) => invitationEmail({ ...input, link: `https://portal.test/invitations/${token}` }).html);
    expect(() => invitationEmail({ ...input, link: "javascript:alert(1)" })).toThrow("http(s) URL");
  });
});
