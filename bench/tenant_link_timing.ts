/**
 * How long `POST /report/{slug}` takes for details that match a tenancy and for details that match nothing
 * (issue 33): the answer must not tell them apart. Runs against DATABASE_URL through the app in process (the test
 * harness's fresh database), alternating known and unknown requests, and prints median, p90 and mean of each.
 *
 * It uses the test harness, so it runs under the test runner (it asserts nothing about time):
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres ROUNDS=200 bun test ./bench/tenant_link_timing.ts
 */
import { test } from "bun:test";
import { buildApp } from "../src/app.ts";
import { harness } from "../test/support/harness.ts";

const rounds = Number(process.env.ROUNDS ?? 200);
const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const rows = h.rows(ws);
const app = buildApp({ ...h.ctx, config: { ...h.ctx.config, portalBudgetPerMinute: 1_000_000 } });
const email = "known.tenant@example.test";
const contactId = await rows.contact({ name: "Known Tenant", email, roles: ["tenant"] });
const propertyId = await rows.property();
await db`update properties set address_postcode = 'BS1 4DJ' where workspace_id = ${ws.id} and id = ${propertyId}`;
await rows.tenancy({ unitId: await rows.unit({ propertyId }), occupants: [{ contactId, isLead: true }] });

/** One request's duration in ms; a different postcode each round so the postcode budget never refuses. */
async function timed(form: Record<string, string>): Promise<number> {
  const start = performance.now();
  const res = await app.handle(
    new Request(`http://localhost/report/${ws.slug}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: new URLSearchParams(form).toString(),
    }),
  );
  await res.text();
  if (res.status !== 200) throw new Error(`answered ${res.status}`);
  return performance.now() - start;
}

test("link request timing, known vs unknown", async () => {
  const known: number[] = [];
  const unknown: number[] = [];
  await db`delete from address_buckets where scope like 'report-postcode/%'`;
  for (let i = 0; i < 20; i++) await timed({ postcode: `W${i} 1AA`, contact: "warm@example.test" });
  for (let i = 0; i < rounds; i++) {
    await db`delete from address_buckets where scope = ${`report-postcode/${ws.slug}`}`;
    known.push(await timed({ postcode: "BS1 4DJ", contact: email }));
    unknown.push(await timed({ postcode: "ZZ1 1ZZ", contact: `nobody${i}@example.test` }));
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2);
    return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(2)} ms`;
  };
  console.log(`rounds: ${rounds} of each, alternating`);
  console.log(`known details:   ${stats(known)}`);
  console.log(`unknown details: ${stats(unknown)}`);
  await db`delete from pgboss.job where name = 'tenant-link' and data->>'slug' = ${ws.slug}`;
}, 600_000);
