/** API keys (src/core/api_description.ts): `lk_` and at least 128 random bits; only a hash is stored; expiry choices. */
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { harness } from "../support/harness.ts";
import { createApiKey } from "../../src/core/api_keys.ts";

const h = await harness();
const ws = await h.workspace();

test("a key is lk_ and 256 random bits, and only its SHA-256 is stored", async () => {
  const keys = await Promise.all(
    Array.from({ length: 20 }, () =>
      createApiKey(h.database.db, { workspace: ws.slug, name: "k", scopes: ["tasks:read"], expiresInDays: 7 }),
    ),
  );
  for (const k of keys) expect(k.key).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
  expect(new Set(keys.map((k) => k.key)).size).toBe(20);
  const stored = await h.database.db`select * from api_keys where id = ${keys[0]!.id}`;
  expect(JSON.stringify(stored)).not.toContain(keys[0]!.key.slice(3));
  expect(Buffer.from(stored[0]!.keyHash).equals(createHash("sha256").update(keys[0]!.key).digest())).toBe(true);
});

test.each([7, 30, 90, 365])("a key made for %p days expires that many days from now", async (days) => {
  const k = await createApiKey(h.database.db, {
    workspace: ws.slug,
    name: "k",
    scopes: ["tasks:read"],
    expiresInDays: days,
  });
  const ms = Date.parse(k.expiresAt) - Date.now();
  expect(Math.round(ms / 86_400_000)).toBe(days);
});

test("other expiries and unknown scopes are refused", async () => {
  await expect(
    createApiKey(h.database.db, { workspace: ws.slug, name: "k", scopes: ["tasks:read"], expiresInDays: 14 }),
  ).rejects.toMatchObject({ tag: "ApiKeyCreateRejected", fields: { field: "expiresInDays" } });
  await expect(
    createApiKey(h.database.db, { workspace: ws.slug, name: "k", scopes: ["keys:admin"], expiresInDays: 7 }),
  ).rejects.toMatchObject({ fields: { scope: "keys:admin" } });
});

test("a bad name or budget is ApiKeyCreateRejected naming the field, an unknown creator is UserNotFound; nothing is made", async () => {
  const make = (input: { name?: string; budgetPerMinute?: number; createdBy?: string }) =>
    createApiKey(h.database.db, { workspace: ws.slug, name: "k", scopes: ["tasks:read"], expiresInDays: 7, ...input });
  const before = await h.database.db`select count(*)::int as n from api_keys where workspace_id = ${ws.id}`;
  await expect(make({ name: "" })).rejects.toMatchObject({ tag: "ApiKeyCreateRejected", fields: { field: "name" } });
  await expect(make({ name: "k".repeat(201) })).rejects.toMatchObject({
    tag: "ApiKeyCreateRejected",
    fields: { field: "name" },
  });
  await expect(make({ budgetPerMinute: 0 })).rejects.toMatchObject({
    tag: "ApiKeyCreateRejected",
    fields: { field: "budgetPerMinute" },
  });
  await expect(make({ createdBy: "usr-nobody" })).rejects.toMatchObject({
    tag: "UserNotFound",
    fields: { slug: ws.slug, userId: "usr-nobody" },
  });
  expect(await h.database.db`select count(*)::int as n from api_keys where workspace_id = ${ws.id}`).toEqual(before);
});
