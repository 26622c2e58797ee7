/** The project's documents stand alone: no file a user lacks is named, every link and path they give exists, and the README's examples work. */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { harness } from "./support/harness.ts";
import { operations } from "../src/operations.ts";
import { buildOpenApi } from "../src/core/openapi.ts";
import { apiDescription } from "../src/core/api_description.ts";
import { version } from "../src/core/version.ts";
import { WorkspaceDocument } from "../src/workspace_import/schema.ts";
import { configurationTable, variables } from "../src/config.ts";
import { importWorkspace } from "../src/workspace_import/import.ts";

const root = join(import.meta.dir, "..");
const documents = ["README.md", "ARCHITECTURE.md", "bench/README.md"];
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** Names of files the users of the service do not have (they are the developers' own). */
const notShipped = ["../shared", "shared/API.md", "API.md", "CONTRACT.md", "STYLE.md"];

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsIn(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe("the documents name nothing a user of the service lacks", () => {
  const texts: [string, string][] = [
    ...documents.map((file) => [file, read(file)] as [string, string]),
    ["the OpenAPI document", JSON.stringify(buildOpenApi(operations, { version, description: apiDescription }))],
    ["the import document's JSON Schema", JSON.stringify(WorkspaceDocument)],
  ];
  test.each(texts)("%s", (_name, text) => {
    for (const name of notShipped) expect(text).not.toContain(name);
  });
});

describe.each(documents)("%s", (file) => {
  const text = read(file);

  test("every relative link points to an existing file, and every anchor to one of its headings", () => {
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
    const broken: string[] = [];
    for (const link of links) {
      const [path, anchor] = link.split("#") as [string, string | undefined];
      const target = path === "" ? join(root, file) : resolve(root, dirname(file), path);
      if (!existsSync(target)) broken.push(link);
      else if (anchor !== undefined && !anchorsIn(readFileSync(target, "utf8")).has(anchor)) broken.push(link);
    }
    expect(broken).toEqual([]);
  });

  test("every file path it quotes exists", () => {
    const paths = [...text.matchAll(/`((?:src|test|sql|bench|patches|\.ci)\/[^`\s]+)`/g)]
      .map((m) => m[1]!)
      .filter((p) => !/[<*…]|NNNN/.test(p));
    // `sql/0008` names the migration numbered 0008.
    const migrations = readdirSync(join(root, "sql"));
    const exists = (p: string) =>
      existsSync(join(root, p)) || (/^sql\/\d{4}$/.test(p) && migrations.some((f) => f.startsWith(`${p.slice(4)}_`)));
    const missing = paths.filter((p) => !exists(p));
    expect(missing).toEqual([]);
  });
});

describe("the README", () => {
  const readme = read("README.md");

  test("its Configuration table is the declared variables' table, row for row", () => {
    // The rows are made from src/config.ts's declarations: on a mismatch, paste the expected table in.
    const start = readme.indexOf("| variable |", readme.indexOf("## Configuration"));
    const table = readme.slice(start, readme.indexOf("\n\n", start)).split("\n");
    expect(table).toEqual(configurationTable().split("\n"));
  });

  test("src reads the environment only through the declared variables", () => {
    const declared = new Set(Object.values(variables).map((v) => v.env));
    const undeclared: string[] = [];
    for (const file of readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts") || file === "config.ts") continue;
      const text = read(`src/${file}`);
      for (const m of text.matchAll(/(?:process|Bun)\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*["'`]([^"'`]+))/g)) {
        if (!declared.has(m[1] ?? m[2]!)) undeclared.push(`${file}: ${m[0]}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  test("its import document example is a document the import accepts", async () => {
    const h = await harness();
    const section = readme.slice(readme.indexOf("### The import document"));
    const example = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const ws = await h.workspace();
    const counts = await importWorkspace(h.database.db, ws.slug, JSON.parse(example));
    expect(counts).toMatchObject({
      users: 1,
      contacts: 2,
      properties: 1,
      units: 1,
      tenancies: 1,
      handovers: 1,
      contractorInvoices: 1,
    });
  });
});
