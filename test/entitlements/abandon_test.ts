/** POST /entitlements/onboarding/abandon. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { inlineRefs } from "../support/openapi.ts";
import { checkoutStatuses, insertCheckout } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const abandon = (key: string) => h.request("POST", "/entitlements/onboarding/abandon", { key });

describe("abandoning the onboarding checkout", () => {
  test("a started, unpaid checkout is abandoned, logged, and a repeat answers false", async () => {
    const ws = await h.workspace();
    const id = await insertCheckout(db, ws.id, "started");
    const first = await abandon(ws.key);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ abandoned: true });
    expect(await checkoutStatuses(db, ws.id)).toEqual({ [id]: "abandoned" });
    const [row] =
      await db`select abandoned_at is not null as stamped from onboarding_checkouts where workspace_id = ${ws.id}`;
    expect(row!.stamped).toBe(true);
    const logged =
      await db`select action, actor_key_id from activity_log where workspace_id = ${ws.id} and subject_id = ${id}`;
    expect([...logged]).toEqual([{ action: "entitlements.checkout_abandoned", actorKeyId: ws.keyId }]);
    const again = await abandon(ws.key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ abandoned: false });
  });

  test("no checkout at all answers false", async () => {
    const ws = await h.workspace();
    expect((await abandon(ws.key)).body).toEqual({ abandoned: false });
  });

  test("a paid checkout is never abandoned", async () => {
    const ws = await h.workspace();
    const paid = await insertCheckout(db, ws.id, "paid");
    const old = await insertCheckout(db, ws.id, "abandoned");
    expect((await abandon(ws.key)).body).toEqual({ abandoned: false });
    expect(await checkoutStatuses(db, ws.id)).toEqual({ [paid]: "paid", [old]: "abandoned" });
  });

  test("of twenty concurrent calls exactly one abandons", async () => {
    const ws = await h.workspace();
    const id = await insertCheckout(db, ws.id, "started");
    const answers = await Promise.all(Array.from({ length: 20 }, () => abandon(ws.key)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.abandoned === true)).toHaveLength(1);
    const logged = await db`select 1 from activity_log where workspace_id = ${ws.id} and subject_id = ${id}`;
    expect(logged).toHaveLength(1);
  });

  test("another workspace's started checkout is left alone", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const theirs = await insertCheckout(db, other.id, "started");
    expect((await abandon(ws.key)).body).toEqual({ abandoned: false });
    expect(await checkoutStatuses(db, other.id)).toEqual({ [theirs]: "started" });
  });
});

describe("OpenAPI", () => {
  test("entitlements.abandonOnboarding documents {abandoned: boolean}", async () => {
    const doc = inlineRefs((await h.request("GET", "/openapi.json")).body);
    const op = doc.paths["/entitlements/onboarding/abandon"].post;
    expect(op.operationId).toBe("entitlements.abandonOnboarding");
    const schema = op.responses["200"].content["application/json"].schema;
    expect(schema.required).toEqual(["abandoned"]);
    expect(schema.properties.abandoned.type).toBe("boolean");
  });
});
