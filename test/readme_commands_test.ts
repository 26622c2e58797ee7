/**
 * The README's commands, run as written. Each line is given to `sh -c` in a project folder of its own (the
 * repository's files linked in, its own `.data`), with only the README's placeholders filled in: the key it shows as
 * `lk_…`, the port of `http://localhost:3000` (3000 may be taken here) and the database of `export DATABASE_URL=…`.
 * The quick start's service is `bun src/main.ts --dev` (`bun run dev` without --watch, which test/dev_test.ts runs)
 * on DATABASE_URL, standing in for the embedded Postgres that the service and the CLI would share. Every line of the
 * README's sh blocks is either run here or named in `notRunHere` with the reason; the code examples are
 * type-checked with the project's TypeScript and settings, and the MCP one is run.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { parseEmail } from "./email/smtp.ts";
import { createTestDatabase, type TestDatabase } from "./support/database.ts";
import { harness } from "./support/harness.ts";
import { freePort } from "./support/pgbouncer.ts";
import { envWithout, root, runCli, runToEnd, spawnService, type Service } from "./support/service.ts";

const h = await harness();
// Every test starts processes (the service, the CLI, sh, the Inspector) on a loaded 2-core machine.
setDefaultTimeout(120_000);

const readme = await Bun.file(join(root, "README.md")).text();

/** The lines of every ```sh block, in order. */
const shLines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n"));
/** The commands of the sh blocks: every line that is neither empty nor a comment. */
const commands = shLines.filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));

/** The first sh block after `marker`, as lines. */
function shBlockAfter(marker: string): string[] {
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no "${marker}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))![1]!;
  return block.split("\n").filter((line) => line.trim() !== "");
}

/** The README's inline command starting with `start` (a code span may be wrapped over two lines). */
function inlineCommand(start: string): string {
  const prose = readme.replace(/```[\s\S]*?```/g, "");
  const found = [...prose.matchAll(/`([^`]+)`/g)]
    .map((m) => m[1]!.replace(/\s+/g, " "))
    .find((c) => c.startsWith(start));
  if (!found) throw new Error(`README.md has no \`${start}…\``);
  return found;
}

/** The README's lines run by this file (checked against `commands` by the last test). */
const ran = new Set<string>();

const inImage =
  "no Docker engine here: test/docker_image_test.ts runs the line as written after `docker exec [-i] lettings`, as " +
  "docker exec would (the image's user, workdir and environment) in the replayed image";
/** The README's commands this machine cannot run, each with the reason (and what stands in for it). */
const notRunHere: Record<string, string> = {
  "bun install && bun run dev     # API on http://localhost:3000, demo workspace, a fresh key printed":
    "`bun install` would change the node_modules the other tests use (.ci/run installs the locked dependencies); " +
    "`bun run dev` is run as it is by test/dev_test.ts",
  "bun test                       # the whole suite on a real Postgres (DATABASE_URL's, else the embedded one)":
    "the suite cannot run itself from one of its files: .ci/run runs it",
  "open http://localhost:3000/docs      # the interface: every operation, its rules and errors":
    "`open` is macOS's; the page it opens is fetched instead",
  'open http://localhost:3000/portal/invitations/…   # (xdg-open on Linux) the link above: greeting, "Accept invitation"':
    "a browser: the printed link's page is fetched and its form posted instead (the portal browser test clicks it)",
  "docker build -t lettings-service .": "no Docker engine here: test/docker_image_test.ts replays the Dockerfile",
  "docker run --name lettings --restart unless-stopped -v lettings:/app/.data -p 3000:3000 lettings-service":
    "no Docker engine here: test/docker_image_test.ts starts the replayed image on its embedded Postgres",
  "docker run --name lettings --restart unless-stopped -e DATABASE_URL=postgres://user:pass@db:5432/lettings -p 3000:3000 lettings-service":
    "no Docker engine here",
  "docker exec lettings bun run cli demo   # the demo workspace and a fresh key, as `bun run dev` prints": inImage,
  'docker exec lettings bun run cli workspace create --slug acme --name "Acme Lettings" --owner-email owner@acme.example':
    inImage,
  "docker exec -i lettings bun run cli import --workspace acme - < acme.json   # a file of the host, on stdin": inImage,
  "apt-get install -y pgbouncer haproxy": "installs system packages (.ci/run does)",
  "install -o postgres -d /var/run/postgresql /var/log/postgresql":
    "needs root and changes the machine: test/core/replicas_test.ts runs deploy/'s set-up in folders of its own",
  "cp deploy/pgbouncer.ini /etc/pgbouncer/pgbouncer.ini": "writes /etc: test/core/replicas_test.ts uses the file",
  'echo \'"postgres" ""\' > /etc/pgbouncer/userlist.txt': "writes /etc",
  "su postgres -s /bin/sh -c 'pgbouncer -d /etc/pgbouncer/pgbouncer.ini'":
    "starts a system daemon on port 6432: test/core/replicas_test.ts starts its own PgBouncer",
  "export DATABASE_DIRECT_URL=postgres://postgres@127.0.0.1:5432/lettings": "part of the replicas set-up above",
  "export DATABASE_URL=postgres://postgres@127.0.0.1:6432/lettings": "part of the replicas set-up above",
  "bun run migrate": "part of the replicas set-up above (`bun run migrate` itself runs in First setup below)",
  "for port in 3001 3002 3003; do PORT=$port HOST=127.0.0.1 bun run start > replica-$port.log 2>&1 & done":
    "part of the replicas set-up (fixed ports 3001-3003): test/core/replicas_test.ts starts three replicas",
  "haproxy -f deploy/haproxy.cfg   # serves on 127.0.0.1:8080; the X-Served-By header names the replica":
    "a fixed port and a daemon: test/core/replicas_test.ts runs HAProxy with deploy/haproxy.cfg",
};

/** A folder laid out as the project: the repository's files linked in, its own `.data`. */
const project = mkdtempSync(join(tmpdir(), "lettings-readme-"));
for (const name of ["package.json", "bun.lock", "tsconfig.json", "bunfig.toml", "src", "sql", "node_modules"])
  symlinkSync(join(root, name), join(project, name));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/**
 * The environment of the README's commands: this process's without the settings the README does not give, plus
 * `extra` (DATABASE_URL standing in for the embedded Postgres, where a command uses the database).
 */
function commandEnv(extra: Record<string, string> = {}) {
  const unset = ["DATABASE_URL", "DATABASE_DIRECT_URL", "LOG_LEVEL", "DATA_DIR", "PORT", "HOST", "PUBLIC_BASE_URL"];
  return envWithout([...unset, "PORTAL_BASE_URL", "SMTP_URL", "WEBHOOKS_ALLOW_PRIVATE"], extra);
}

/** Runs README lines with `sh -c` in the project folder, placeholders filled by `fill`; records them as run. */
async function sh(
  lines: string[],
  options: { fill?: (line: string) => string; env: Record<string, string>; stdin?: string },
) {
  for (const line of lines) ran.add(line);
  const script = lines.map(options.fill ?? ((l) => l)).join("\n");
  // Nothing left to fill in: the rest is the README's text.
  expect(script.replace(/\s#.*$/gm, "")).not.toContain("…");
  return runToEnd(["sh", "-e", "-c", script], { cwd: project, env: options.env, stdin: options.stdin });
}

/** The JSON objects a run printed one after the other (the CLI pretty-prints each). */
function jsonObjects(stdout: string): Record<string, unknown>[] {
  return stdout
    .trim()
    .split(/\n(?=\{)/)
    .map((text) => JSON.parse(text));
}

describe("Quick start", () => {
  let service: Service;
  let key = "";
  let port = 0;
  const fill = (line: string) =>
    line.replaceAll("lk_…", key).replaceAll("http://localhost:3000", `http://localhost:${port}`);

  beforeAll(async () => {
    port = freePort();
    service = spawnService([process.execPath, "src/main.ts", "--dev"], {
      cwd: project,
      env: commandEnv({
        DATABASE_URL: h.database.url,
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        SHUTDOWN_DRAIN_MS: "0",
      }),
    });
    await service.waitFor(/"msg":"listening"/);
    key = (await service.waitFor(/\n {4}(lk_\S+)\n/))[1]!;
  });
  afterAll(async () => {
    service?.proc.kill("SIGTERM");
    await service?.exited();
  });

  test("the try-it curl answers the tenancy's handover; the docs page it names is served", async () => {
    const [curl, open] = shBlockAfter("on change. Then:");
    const run = await sh([curl!], { fill, env: commandEnv({ DATABASE_URL: h.database.url }) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ tenancyId: "ten-ashby-2b" });
    const docs = /open (\S+)/.exec(open!)![1]!.replace("http://localhost:3000", `http://localhost:${port}`);
    const page = await fetch(docs);
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
  });

  test("the invitation in five lines: the grep prints the newest email's link once; accepted; 409; revoked", async () => {
    const [invite, grep, open, again, revoke] = shBlockAfter("The landlord portal invitation, offline");
    expect(open).toStartWith("open ");
    expect(again!.split("   #")[0]).toBe(invite!);
    const env = commandEnv({ DATABASE_URL: h.database.url });
    const outbox = join(project, ".data", "outbox");
    const emails = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith(".eml")) : []);
    const emailed = async (n: number) => {
      for (let i = 0; i < 600 && emails().length < n; i++) await Bun.sleep(50);
      expect(emails()).toHaveLength(n);
    };
    /** The grep line's output: exactly one line, the link of the newest email's text part. */
    const printedLink = async () => {
      const printed = await sh([grep!], { fill, env });
      expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: "" });
      const links = printed.stdout.split("\n").filter(Boolean);
      expect(links).toHaveLength(1);
      expect(links[0]).toMatch(new RegExp(`^http://localhost:${port}/portal/invitations/[A-Za-z0-9_-]{43}$`));
      const newest = emails().sort().at(-1)!;
      expect(parseEmail(await Bun.file(join(outbox, newest)).text()).text).toContain(`\r\n${links[0]}\r\n`);
      return links[0]!;
    };
    // One email, then two (the quick start tried twice): each time one line, the newest link, the only one working.
    const links: string[] = [];
    for (const n of [1, 2]) {
      const run = await sh([invite!], { fill, env });
      expect({ code: run.code, status: JSON.parse(run.stdout).status }).toEqual({ code: 0, status: "pending" });
      await emailed(n);
      links.push(await printedLink());
    }
    const link = links[1]!;
    expect(link).not.toBe(links[0]);

    const pageOf = async (url: string) => {
      const res = await fetch(url);
      return { status: res.status, heading: /<h1>([^<]*)<\/h1>/.exec(await res.text())?.[1] };
    };
    expect(await pageOf(links[0]!)).toEqual({ status: 410, heading: "This link has been replaced" });
    expect(await pageOf(link)).toEqual({ status: 200, heading: "Your landlord portal invitation" });
    // The button: the form's post.
    const accepted = await fetch(`${link}/accept`, { method: "POST", headers: { accept: "text/html" } });
    expect(accepted.status).toBe(200);

    const twice = await sh([again!], { fill, env });
    expect({ code: twice.code, body: JSON.parse(twice.stdout) }).toEqual({
      code: 0,
      body: { _tag: "PortalAccessActive", contactId: "con-northgate" },
    });
    const revoked = await sh([revoke!], { fill, env });
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ status: "revoked", revokeReason: "Sold", changed: true });
    expect(await pageOf(link)).toEqual({ status: 410, heading: "Access withdrawn" });
  });

  test("the repairs walkthrough answers as shown: the desk's breaches, then each step's clocks", async () => {
    const blocks = codeBlocksIn("## Repairs and hazard clocks");
    const lines = blocks.filter((b) => b.language === "sh").flatMap((b) => b.text.split("\n").filter((l) => l.trim()));
    const shown = blocks.filter((b) => b.language === "json").map((b) => JSON.parse(b.text));
    // One shell, as a reader's terminal: the first line's variables and the report's `id` serve the lines after.
    const run = await sh(lines, { fill, env: commandEnv({ DATABASE_URL: h.database.url }) });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const answers = jsonValues(run.stdout);
    expect(answers).toHaveLength(shown.length);
    for (const [i, answer] of answers.entries())
      expect([i, asShown(answer, shown[i])]).toEqual([i, asShown(shown[i], shown[i])]);
  });

  test("the MCP TypeScript example runs: the tool's JSON, or the refusal's tag", async () => {
    const code = codeBlockAfter("**Over HTTP**", "ts").replaceAll("http://localhost:3000", `http://localhost:${port}`);
    writeFileSync(join(project, "readme_mcp.ts"), code);
    const run = (apiKey: string) =>
      runToEnd([process.execPath, "readme_mcp.ts"], { cwd: project, env: commandEnv({ LETTINGS_API_KEY: apiKey }) });
    const answered = await run(key);
    expect({ code: answered.code, stderr: answered.stderr }).toEqual({ code: 0, stderr: "" });
    expect(answered.stdout).toContain("ten-ashby-2b");
    const narrow = await runCli(
      [
        "key",
        "create",
        "--workspace",
        "demo",
        "--name",
        "tasks only",
        "--scopes",
        "tasks:read",
        "--expires-in-days",
        "7",
      ],
      { databaseUrl: h.database.url },
    );
    const refused = await run(narrow.out.key);
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 0, stdout: "ScopeMissing\n" });
  });

  test("the Inspector's CLI line lists the tools", async () => {
    const line = inlineCommand("npx @modelcontextprotocol/inspector --cli");
    const home = mkdtempSync(join(tmpdir(), "readme-inspector-"));
    try {
      // npm's update notice would ask the registry: not the README's business.
      const env = commandEnv({ HOME: home, npm_config_update_notifier: "false" });
      // Where npm is not installed, bunx runs the same package (the README names npx, what most readers have).
      const runner = Bun.which("npx") ? "npx " : "bunx ";
      const run = await sh([line], { fill: (l) => fill(l).replace(/^npx /, runner), env });
      if (run.code !== 0) console.log(service.stdout().slice(-3000), service.stderr().slice(-3000));
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      const names = (JSON.parse(run.stdout).tools as { name: string }[]).map((t) => t.name);
      expect(names).toContain("handovers_forTenancy");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  // After the repairs walkthrough, whose answers are those of the demo as made (R-1088 breached, the next R-1091).
  const api = (path: string) => fetch(`http://localhost:${port}${path}`, { headers: { "x-api-key": key } });
  /** The sh blocks of a section, each as its lines. */
  const shBlocksIn = (heading: string) =>
    codeBlocksIn(heading)
      .filter((b) => b.language === "sh")
      .map((b) => b.text.split("\n").filter((l) => l.trim()));
  /** A line standing in for the reader's moment of waiting: until the outbox holds `file` (a glob). */
  const untilEmailed = (file: string, after = 0) =>
    `until [ "$(ls .data/outbox/${file} 2>/dev/null | wc -l)" -gt ${after} ]; do sleep 0.1; done`;

  test("the tenant's walkthrough: link asked for, read from the outbox, Continue, her page, a report's reference", async () => {
    const heading = "## The tenant's repair pages";
    const [ask, rest] = shBlocksIn(heading);
    const shown = codeBlocksIn(heading)
      .find((b) => b.language === "text")!
      .text.trim()
      .split("\n");
    // One shell, as a reader's terminal, waiting where the reader waits for the email.
    const outbox = join(project, ".data", "outbox");
    const links = existsSync(outbox) ? readdirSync(outbox).filter((f) => f.startsWith("tenant-link-")).length : 0;
    const run = await sh([...ask!, untilEmailed("tenant-link-*.eml", links), ...rest!], { fill, env: commandEnv() });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const printed = run.stdout.replaceAll(`//localhost:${port}/`, "//localhost:3000/").trim().split("\n");
    expect(printed[0]).toBe("If we found your tenancy, we have sent you a link by email or text message");
    // The link's token and the report's reference are this run's.
    expect(printed[1]).toMatch(/^http:\/\/localhost:3000\/report\/demo\/t\/[A-Za-z0-9_-]{43}$/);
    expect(shown[0]).toStartWith("http://localhost:3000/report/demo/t/");
    expect(printed[2]).toBe(shown[1]);
    // Her repairs, newest first: the demo's, after those reported since (the repairs walkthrough's R-1091).
    const demoRepairs = shown.slice(2, -1);
    expect(printed.slice(3, -1).slice(-demoRepairs.length)).toEqual(demoRepairs);
    const reference = printed.at(-1)!;
    expect([reference, shown.at(-1)]).toEqual([expect.stringMatching(/^R-\d+$/), "R-1091"]);
    // The agency sees it; its reference goes to her by email too.
    const repairs = (await (await api("/maintenance-pro/repairs?tenancyId=ten-ashby-2b")).json()) as Record<
      string,
      unknown
    >[];
    const repair = repairs.find((r) => r.reference === reference);
    expect(repair).toMatchObject({
      channel: "portal",
      category: "damp_mould",
      location: "Bathroom",
      reporter: { kind: "tenant", contactId: "con-chloe-martin" },
    });
    const noticed = await sh([untilEmailed(`tenant-reference-${repair!.id}.eml`)], { env: commandEnv() });
    expect(noticed.code).toBe(0);
  });

  test("the contractor's walkthrough: raised, the link from the outbox, accepted, on the agenda, completed", async () => {
    const heading = "## Works orders and the contractor's link";
    const [raise, agree, visit] = shBlocksIn(heading);
    const shown = codeBlocksIn(heading)
      .filter((b) => b.language === "json")
      .map((b) => JSON.parse(b.text));
    const wait = untilEmailed("works-order-$wo.eml");
    const run = await sh([...raise!, wait, ...agree!, ...visit!], { fill, env: commandEnv() });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    // The link printed, and each form answered 303 back to the page (curl prints no newline after JSON).
    expect(run.stdout).toMatch(new RegExp(`(^|[}\\]])http://localhost:${port}/contractor/[A-Za-z0-9_-]{43}\n`, "m"));
    expect(run.stdout.match(/(^|[}\]])303\n/gm) ?? []).toHaveLength(3);
    const answers = jsonValues(run.stdout);
    expect(answers).toHaveLength(shown.length);
    for (const [i, answer] of answers.entries())
      expect([i, asShown(answer, shown[i])]).toEqual([i, asShown(shown[i], shown[i])]);
    // The visit closed the agenda's event.
    const agenda = (await (await api("/calendar/agenda?kind=repair_visit")).json()) as Record<string, unknown>[];
    expect(agenda.map((e) => [e.subjectId, e.status])).toEqual([[(answers[0] as { id: string }).id, "completed"]]);
  });
});

describe("First setup, against your own Postgres", () => {
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
    // acme.json: the README's example import document.
    writeFileSync(join(project, "acme.json"), codeBlockAfter("### The import document", "json"));
  });
  afterAll(() => own?.drop());
  const fillUrl = (line: string) => line.replace("postgres://user:pass@db:5432/lettings", own.url);

  test("the five lines make the workspace, entitle it, import the document and make a key that works", async () => {
    const lines = shBlockAfter("## First setup");
    expect(lines[0]).toStartWith("export DATABASE_URL=");
    const run = await sh(lines, { fill: fillUrl, env: commandEnv() });
    // bunfig.toml's `[run] silent`: `bun run` echoes no `$ bun src/cli.ts …` line.
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const [workspace, entitled, imported, key] = jsonObjects(run.stdout);
    expect(workspace).toMatchObject({ slug: "acme" });
    expect(entitled).toMatchObject({ slug: "acme", moduleId: "maintenance-pro", entitled: true });
    expect(imported).toMatchObject({ contacts: 2, tenancies: 1, handovers: 1 });
    expect(key).toMatchObject({ name: "CRM sync", scopes: ["handovers:read", "keys:read", "inspections:read"] });

    // `bun run migrate` and `bun run start` (Running it), then the key against the service.
    const env = commandEnv({ DATABASE_URL: own.url });
    const migrate = await sh(["bun run migrate"], { env });
    expect({ code: migrate.code, applied: JSON.parse(migrate.stdout).applied }).toEqual({ code: 0, applied: [] });
    const port = freePort();
    const start = spawnService(["sh", "-c", "bun run start"], {
      cwd: project,
      env: { ...env, PORT: String(port), HOST: "127.0.0.1", WORKERS: "false", SHUTDOWN_DRAIN_MS: "0" },
    });
    ran.add("bun run start");
    try {
      const [, pid] = await start.waitFor(/"msg":"listening","url":"[^"]+","pid":(\d+)/);
      const res = await fetch(`http://127.0.0.1:${port}/handovers/tenancies/t-1`, {
        headers: { "x-api-key": key!.key as string },
      });
      expect(res.status).toBe(200);
      process.kill(Number(pid), "SIGTERM");
      expect(await start.exited()).toBe(0);
    } finally {
      start.proc.kill("SIGKILL");
    }
  });

  test("a refusal of `bun run cli` is its JSON alone on stderr, exit code 2", async () => {
    // The README's workspace line again: the slug is taken now.
    const line = shBlockAfter("## First setup").find((l) => l.startsWith("bun run cli workspace create "))!;
    const run = await sh([line], { env: commandEnv({ DATABASE_URL: own.url }) });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    const refusal = JSON.parse(run.stderr);
    expect(refusal).toMatchObject({ _tag: "TenantCreateRejected", field: "slug" });
    expect(run.stderr).toBe(`${JSON.stringify(refusal)}\n`);
  });

  test("the SMS number line, the help and the import schema", async () => {
    const env = commandEnv({ DATABASE_URL: own.url });
    const sms = await sh([inlineCommand("bun run cli sms-number add")], { env });
    expect({ code: sms.code, out: JSON.parse(sms.stdout) }).toEqual({
      code: 0,
      out: { workspace: "acme", number: "+441174960000", added: true },
    });
    const help = await sh([inlineCommand("bun run cli --help")], { env });
    expect({ code: help.code, first: help.stdout.split("\n")[0] }).toEqual({
      code: 0,
      first: "usage: bun run cli <command> [options]",
    });
    const schema = await sh([inlineCommand("bun run cli import-schema")], { env });
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({ type: "object" });
  });
});

/** The fenced blocks of the README's section under `heading`, in order, with their languages. */
function codeBlocksIn(heading: string): { language: string; text: string }[] {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README.md has no "${heading}"`);
  const end = readme.indexOf("\n## ", at + 1);
  const section = readme.slice(at, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1]!, text: m[2]! }));
}

/** The JSON values printed one after the other with nothing between them (curl ends none with a newline). */
function jsonValues(stdout: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < stdout.length; i++) {
    const c = stdout[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") {
      if (depth++ === 0) start = i;
    } else if ((c === "}" || c === "]") && --depth === 0) values.push(JSON.parse(stdout.slice(start, i + 1)));
  }
  return values;
}

/** Instants of the day it runs, masked; an explanation kept to its period ("10 working days"). */
const ofTheDay = new Set(["awareAt", "triagedAt", "startsAt", "dueAt", "metAt", "createdAt", "updatedAt"]);

/**
 * An answer cut to what the README shows of it (the fields of `shown`, at every depth; arrays element by element),
 * with what depends on the day it runs masked.
 */
function asShown(value: unknown, shown: unknown, key = ""): unknown {
  if (ofTheDay.has(key) && typeof value === "string") return "<instant>";
  if (key === "explanation" && typeof value === "string") return value.split(" after ")[0];
  if (Array.isArray(value)) return value.map((item, i) => asShown(item, Array.isArray(shown) ? shown[i] : undefined));
  if (value === null || typeof value !== "object" || shown === null || typeof shown !== "object") return value;
  const fields = Object.keys(shown);
  return Object.fromEntries(
    fields.map((k) => [k, asShown((value as Record<string, unknown>)[k], (shown as Record<string, unknown>)[k], k)]),
  );
}

/** The first fenced block of `language` after `marker`. */
function codeBlockAfter(marker: string, language: string): string {
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no "${marker}"`);
  return new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(readme.slice(at))![1]!;
}

describe("the README's code", () => {
  test("its TypeScript examples type-check with the project's TypeScript and settings (strict and more)", () => {
    const examples: Record<string, string> = {
      "readme_mcp_example.ts": codeBlockAfter("**Over HTTP**", "ts"),
      // A receiver's fragment: its request and raw body are the receiver's own.
      "readme_webhook_example.ts": `declare const rawBody: string;\ndeclare const request: Request;\n${codeBlockAfter(
        "Verifying a delivery in a receiver",
        "ts",
      )}\nexport { event };\n`,
    };
    const files = Object.fromEntries(Object.entries(examples).map(([name, text]) => [join(root, name), text]));
    const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    expect(options.strict).toBe(true);
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      name in files ? ts.createSourceFile(name, files[name]!, language) : read(name, language, ...rest);
    const exists = host.fileExists.bind(host);
    host.fileExists = (name) => name in files || exists(name);
    const program = ts.createProgram(Object.keys(files), options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && d.file.fileName in files)
      .map((d) => `${d.file!.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  });
});

describe("every command of the README's sh blocks", () => {
  test("is run above, or named with the reason it cannot run here", () => {
    const unaccounted = commands.filter((line) => !ran.has(line) && !(line in notRunHere));
    expect(unaccounted).toEqual([]);
    // No stale excuse: each names a line the README has.
    expect(Object.keys(notRunHere).filter((line) => !commands.includes(line))).toEqual([]);
  });
});
