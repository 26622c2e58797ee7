/**
 * Preloads that put a fault in the service's workers' thread (src/workers_thread.ts), for tests of the real service
 * (`bun --preload <file> src/main.ts`): a preload for the main thread that gives the workers' thread a preload of its
 * own, `code`, which runs there before the thread's entry.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "thread-preload-"));

/** Writes the two preloads for `code`; answers the main thread's one, to pass to `bun --preload`. */
export async function threadPreload(name: string, code: string): Promise<string> {
  const inThread = join(dir, `${name}_thread.ts`);
  await Bun.write(inThread, code);
  const inMain = join(dir, `${name}_main.ts`);
  await Bun.write(
    inMain,
    `const Real = globalThis.Worker;\n` +
      `globalThis.Worker = class extends Real { constructor(url, options) { ` +
      `super(url, { ...options, preload: [${JSON.stringify(inThread)}] }); } };\n`,
  );
  return inMain;
}
