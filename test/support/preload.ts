/** Preloaded by bun test (bunfig.toml): starts the test Postgres before any file runs, stops it after the last. */
import { afterAll, setDefaultTimeout } from "bun:test";
import { testServerUrl, stopTestServer } from "./server.ts";

// Tests that start workers, servers or subprocesses need more than bun's 5 s on a loaded 2-core machine. Bun
// applies this to the first test file only; harness() sets it again for each file that builds one.
setDefaultTimeout(30_000);
// Service processes the tests stop with SIGTERM stop at once, unless a test asks for the drain (src/main.ts).
process.env.SHUTDOWN_DRAIN_MS ??= "0";
await testServerUrl();
afterAll(stopTestServer);
