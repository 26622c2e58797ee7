/**
 * What the contractor link tests share: a repair with a contractor who has an email address, a works order raised on
 * it through the API, its link email delivered as the worker does (to the outbox) and the token read back, and the
 * contractor's page called through app.handle.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tinyPng } from "./photo_fixtures.ts";
import { buildApp } from "../../src/app.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { createMailer, outboxDir } from "../../src/email/transport.ts";
import { deliverContractorLink } from "../../src/maintenance_pro/contractor_link.ts";
import type { Harness, TestWorkspace } from "../support/harness.ts";
import { parseEmail } from "../email/smtp.ts";
import { expectStatus, fromNow, repairCalls, repairWorld } from "./repair_fixtures.ts";

/** Headers of a form sent from the page itself. */
export const sameSite = { "sec-fetch-site": "same-origin", origin: "http://localhost" };

/** The token of the contractor link in an email's text. */
export function tokenInText(text: string): string {
  const token = /\/contractor\/([A-Za-z0-9_-]{43})/.exec(text)?.[1];
  if (!token) throw new Error(`no contractor link in: ${text}`);
  return token;
}

/** The contractor's page, called through app.handle of an app over `ctx`. */
export function contractorCalls(ctx: AppContext) {
  const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });
  const page = async (token: string) => {
    const res = await app.handle(
      new Request(`http://localhost/contractor/${token}`, { headers: { accept: "text/html" } }),
    );
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  /**
   * Posts a form: urlencoded, or multipart with `photos` (by default a visit with no access carries one photo, the
   * evidence it needs).
   */
  const post = async (
    token: string,
    form: Record<string, string>,
    headers: Record<string, string> = sameSite,
    photos: Uint8Array[] = form.outcome === "no_access" ? [tinyPng(4, 3)] : [],
  ) => {
    let body: string | FormData = new URLSearchParams(form).toString();
    let type: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if (photos.length) {
      const multipart = new FormData();
      for (const [name, value] of Object.entries(form)) multipart.set(name, value);
      for (const [i, bytes] of photos.entries())
        multipart.append("photo", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }), `p${i}.png`);
      body = multipart;
      type = {};
    }
    const res = await app.handle(
      new Request(`http://localhost/contractor/${token}`, {
        method: "POST",
        headers: { ...type, accept: "text/html", ...headers },
        body,
      }),
    );
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return { app, page, post };
}

/** A workspace's repair (emergency, reported an hour ago) and a contractor with an email address. */
export async function contractorWorld(h: Harness, ws?: TestWorkspace) {
  const world = await repairWorld(h, ws);
  const call = repairCalls(h, world);
  const contractorEmail = `cal-${crypto.randomUUID()}@example.test`;
  const contractorId = await h
    .rows(world.ws)
    .contact({ name: "Cal Contractor", email: contractorEmail, roles: ["contractor"] });
  const repair = expectStatus(
    await call.report({ awareAt: fromNow(-3_600_000), hazard: "emergency", hhsrsHazard: "damp_and_mould_growth" }),
    201,
  );
  const raise = async (body: Record<string, unknown> = {}) =>
    expectStatus(
      await h.request("POST", `/maintenance-pro/repairs/${repair.id}/works-orders`, {
        key: world.ws.key,
        body: { contractorContactId: contractorId, purpose: "make_safe", instructions: "Make it safe", ...body },
      }),
      201,
    );
  return { world, call, repair, contractorId, contractorEmail, raise };
}

/** Delivers an order's link as the worker does (to `ctx`'s outbox) and answers its token. */
export async function deliverToOutbox(ctx: AppContext, workspaceId: string, worksOrderId: string): Promise<string> {
  const outcome = await deliverContractorLink(
    ctx,
    createMailer(ctx.config, ctx.log),
    { workspaceId, worksOrderId },
    { final: false },
  );
  if (outcome !== "sent") throw new Error(`delivery ${outcome}`);
  const raw = readFileSync(join(outboxDir(ctx.config), `works-order-${worksOrderId}.eml`), "utf8");
  return tokenInText(parseEmail(raw).text ?? "");
}
