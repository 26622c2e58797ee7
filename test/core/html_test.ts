/** The `html` template: every value escaped, fragments nested once, values only where escaping protects them. */
import { describe, expect, test } from "bun:test";
import { html, raw } from "../../src/core/html.ts";

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
