/** Preloaded by bun test (bunfig.toml): starts the test Postgres before any file runs, stops it after the last. */
import { afterAll } from "bun:test";
import { testServerUrl, stopTestServer } from "./server.ts";

await testServerUrl();
afterAll(stopTestServer);
