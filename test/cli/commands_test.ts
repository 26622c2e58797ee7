/**
 * The CLI's commands are declared once (src/cli.ts's `commands`): the README's CLI table shows each of them with the
 * options and arguments it takes, the usage is made from them, and the command line is read with node:util's
 * parseArgs (checked here without a database: `open` is never reached by a refusal).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { commands, run, usage, UsageError } from "../../src/cli.ts";
import { root } from "../support/service.ts";

/** A command as written: its required and optional options, and its positional arguments. */
interface Shown {
  required: string[];
  optional: string[];
  positionals: string[];
}

/** How `commands` declares each command, in the shape the README is read into. */
function declared(): Map<string, Shown> {
  return new Map(
    commands.map((c) => {
      const options = Object.entries(c.options);
      const isOptional = ([, o]: (typeof options)[number]) => o.type === "boolean" || o.optional === true;
      return [
        c.name,
        {
          required: options.filter((o) => !isOptional(o)).map(([name]) => name),
          optional: options.filter(isOptional).map(([name]) => name),
          positionals: [...(c.positionals ?? [])],
        },
      ];
    }),
  );
}

/**
 * The README's CLI table, read from its first column: every code span that starts with a command's first word is a
 * command as written (`--x V` a required option, `[--x V]` an optional one, another word a positional argument).
 */
function readmeCommands(): { shown: [string, Shown][]; unknown: string[] } {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf("| command | prints |");
  expect(start).toBeGreaterThan(0);
  const rows = readme.slice(start, readme.indexOf("\n\n", start)).split("\n").slice(2);
  const names = commands.map((c) => c.name).sort((a, b) => b.length - a.length);
  const firstWords = new Set(names.map((n) => n.split(" ")[0]));
  const shown: [string, Shown][] = [];
  const unknown: string[] = [];
  for (const row of rows) {
    const cell = row.replace(/^\| /, "").split(/ (?<!\\)\| /)[0]!;
    for (const [, span] of cell.matchAll(/`([^`]+)`/g)) {
      const text = span!.replaceAll("\\|", "|");
      if (!firstWords.has(text.split(" ")[0])) continue;
      const name = names.find((n) => text === n || text.startsWith(`${n} `));
      if (!name) {
        unknown.push(text);
        continue;
      }
      const written: Shown = { required: [], optional: [], positionals: [] };
      const words = text.slice(name.length).match(/\[[^\]]*\]|\S+/g) ?? [];
      for (let i = 0; i < words.length; i++) {
        const word = words[i]!;
        if (word.startsWith("[")) written.optional.push(/^\[--([\w-]+)/.exec(word)?.[1] ?? word);
        else if (word.startsWith("--")) {
          written.required.push(word.slice(2));
          i++; // its value
        } else written.positionals.push(word);
      }
      shown.push([name, written]);
    }
  }
  return { shown, unknown };
}

describe("the README's CLI table", () => {
  const { shown, unknown } = readmeCommands();

  test("shows every command once, and no command the CLI lacks", () => {
    expect(unknown).toEqual([]);
    expect(shown.map(([name]) => name).sort()).toEqual(commands.map((c) => c.name).sort());
  });

  test.each(shown)("%s: with the options and arguments it takes", (name, written) => {
    const wanted = declared().get(name)!;
    const sorted = (s: Shown) => ({ ...s, required: [...s.required].sort(), optional: [...s.optional].sort() });
    expect(sorted(written)).toEqual(sorted(wanted));
  });
});

describe("the usage", () => {
  test("has each command's line, made from its declaration, no line wider than 116", () => {
    const lines = usage.split("\n");
    for (const c of commands) expect(lines.some((l) => l.startsWith(`  ${c.name} `) || l === `  ${c.name}`)).toBe(true);
    expect(lines.filter((l) => l.length > 116)).toEqual([]);
    expect(lines).toContain(
      "  import --workspace S FILE                  load a workspace document (FILE - reads standard input)",
    );
  });
});

describe("the command line", () => {
  const open = () => Promise.reject(new Error("no database here"));
  const refusal = (argv: string[]) =>
    run(argv, open).then(
      () => "ran",
      (error: unknown) => (error instanceof UsageError ? error.fields.message : String(error)),
    );

  test.each([
    [["key", "list", "--workspace"], "--workspace needs a value"],
    [["key", "list", "--workspace", "--id", "x"], "--workspace needs a value"],
    [["key", "list", "--workspace", "a", "--workspace=b"], "--workspace is given twice"],
    [["key", "list", "--workspace", "a", "--force", "yes"], "key list takes no option --force"],
    [["key", "list", "--workspace", "a", "-x"], 'key list: unexpected "-x"'],
    [["key", "list", "--workspace", "a", "--", "--id"], 'key list: unexpected "--id"'],
    [["webhook", "deliveries", "--id", "x", "--failed=yes"], "--failed takes no value"],
    [["webhook", "deliveries", "--failed", "--failed", "--id", "x"], "--failed is given twice"],
    [["key", "list", "--workspace", " "], "key list needs --workspace"],
    [["--workspace", "a"], "unknown command: "],
    [["key"], "unknown command: key"],
  ])("%j: %s", async (argv, message) => {
    expect(await refusal(argv)).toBe(message);
  });

  test("options come before, between or after the command's words, `--x v` or `--x=v`", async () => {
    for (const argv of [
      ["--id=x", "webhook", "deliveries", "--failed"],
      ["webhook", "--failed", "deliveries", "--id", "x"],
    ]) {
      expect(await refusal(argv)).toBe("Error: no database here");
    }
  });
});
