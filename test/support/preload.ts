/** Preloaded by bun test (bunfig.toml): starts the test Postgres before any file runs, stops it after the last. */
import { afterAll, setDefaultTimeout } from "bun:test";
import { testServerUrl, stopTestServer } from "./server.ts";

// Tests that start workers, servers or subprocesses need more than bun's 5 s on a loaded 2-core machine.
setDefaultTimeout(30_000);
await testServerUrl();
afterAll(stopTestServer);
