/** The text rule (core/storable_text.ts): no NUL character, no unpaired surrogate, in any string or field name. */
import { describe, expect, test } from "bun:test";
import { textIssues, textProblem } from "../../src/core/storable_text.ts";
import { harness } from "../support/harness.ts";

describe("the rule on one string", () => {
  test.each([
    ["plain text", "Harbour View"],
    ["an empty string", ""],
    ["accents and a pair of surrogates (an emoji)", "Zoë Ångström – 🏠"],
    ["tabs, line breaks and other control characters", "a\tb\nc\u0001d\u007f"],
    ["U+FFFD and the last code point", "\ufffd\u{10ffff}"],
  ])("%s is kept", (_name, text) => {
    expect(textProblem(text)).toBeUndefined();
  });

  test.each([
    ["a NUL character", "a\u0000b", /NUL/],
    ["a NUL character alone", "\u0000", /NUL/],
    ["a lone high surrogate", "a\ud800b", /surrogate/],
    ["a lone low surrogate", "a\udc00", /surrogate/],
    ["a pair in the wrong order", "\udc00\ud800", /surrogate/],
    ["a high surrogate at the end", "🏠\ud83c", /surrogate/],
  ])("%s breaks it", (_name, text, message) => {
    expect(textProblem(text)).toMatch(message);
  });
});

describe("the issues of a value", () => {
  test("every string is found with its JSON pointer, in document order, field names included", () => {
    const value = {
      a: "ok",
      b: ["x", "y\u0000"],
      "c/d~e": { f: "\ud800" },
      "g\u0000": 1,
      h: [{ i: "\udfff" }],
      n: 5,
      t: true,
      z: null,
    };
    expect(textIssues(value, "/body")).toEqual([
      { path: "/body/b/1", message: expect.stringMatching(/NUL/) },
      { path: "/body/c~1d~0e/f", message: expect.stringMatching(/surrogate/) },
      { path: "/body/g\u0000", message: expect.stringMatching(/^Field name: .*NUL/) },
      { path: "/body/h/0/i", message: expect.stringMatching(/surrogate/) },
    ]);
  });

  test("a field name's lone surrogate is replaced in the path, which must itself be valid text", () => {
    const [issue] = textIssues({ "k\ud800": "v" });
    expect(issue!.path).toBe("/k\ufffd");
    expect(issue!.path.isWellFormed()).toBe(true);
  });

  test("a value that keeps the rule has no issue; a string alone is at the base path", () => {
    expect(textIssues({ a: ["b", { c: "d" }], e: 1 })).toEqual([]);
    expect(textIssues("\u0000", "/body")).toEqual([{ path: "/body", message: expect.stringMatching(/NUL/) }]);
  });

  test("at most max issues are listed", () => {
    expect(
      textIssues(
        Array.from({ length: 50 }, () => "\u0000"),
        "",
        20,
      ),
    ).toHaveLength(20);
    expect(
      textIssues(
        Array.from({ length: 50 }, () => "\u0000"),
        "",
        1,
      ),
    ).toEqual([{ path: "/0", message: expect.any(String) }]);
  });

  test("a value nested as deep as a 64 KiB body allows is walked without overflowing the stack", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 40_000; i++) deep = [deep];
    const [issue] = textIssues(deep);
    expect(issue!.path).toBe("/0".repeat(40_000));
  });
});

const h = await harness();
const ws = await h.workspace();

describe("over REST", () => {
  test("a NUL in the agenda's kind (?kind=%00) is RequestInvalid at /query/kind", async () => {
    const res = await h.request("GET", "/calendar/agenda?kind=%00", { key: ws.key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      _tag: "RequestInvalid",
      message: "The query does not match its schema.",
      issues: [{ path: "/query/kind", message: "Text must not contain the NUL character (U+0000)" }],
    });
  });

  test("the rule's issues come after the schema's, each path named once", async () => {
    const res = await h.request("POST", "/companies", {
      key: ws.key,
      body: '{"name":"a\\u0000b","notes":"\\ud800","email":"nope","colour":"red"}',
    });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: "/body/colour", message: "Unexpected property" },
      { path: "/body/email", message: expect.stringMatching(/match/) },
      { path: "/body/name", message: expect.stringMatching(/NUL/) },
      { path: "/body/notes", message: expect.stringMatching(/surrogate/) },
    ]);
    expect(await h.database.db`select 1 from contacts where workspace_id = ${ws.id} and kind = 'company'`).toHaveLength(
      0,
    );
  });

  test("an unknown field whose name holds a NUL is named once, with the rule", async () => {
    const res = await h.request("POST", "/companies", { key: ws.key, body: '{"name":"Acme","na\\u0000me":"x"}' });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: "/body/na\u0000me", message: expect.stringMatching(/^Field name: .*NUL/) },
    ]);
  });

  test("the answer to a lone surrogate in a field name is valid UTF-8 JSON", async () => {
    const res = await h.request("POST", "/companies", { key: ws.key, body: '{"name":"Acme","\\udc00":"x"}' });
    expect(res.status).toBe(400);
    expect(res.text.isWellFormed()).toBe(true);
    expect(res.text).not.toContain("\\udc00");
    expect(res.body.issues).toEqual([
      { path: "/body/\ufffd", message: expect.stringMatching(/^Field name: .*surrogate/) },
    ]);
  });
});
