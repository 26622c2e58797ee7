/** OpenAPI `webhooks`: every declared event type with its payload schema, valid per Redocly's linter. */
import { describe, expect, test } from "bun:test";
import { eventTypes } from "../../src/event_types.ts";
import { harness } from "../support/harness.ts";

const h = await harness();

describe("the OpenAPI document's webhooks", () => {
  test("lists every event type, each with the envelope and its data schema", async () => {
    const doc = (await h.request("GET", "/openapi.json")).body;
    expect(Object.keys(doc.webhooks).sort()).toEqual(eventTypes.map((t) => t.name).sort());
    const post = doc.webhooks["company.created"].post;
    expect(post.parameters.map((p: any) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    const ref = post.requestBody.content["application/json"].schema.$ref;
    expect(ref).toBe("#/components/schemas/CompanyCreatedEvent");
    const envelope = doc.components.schemas.CompanyCreatedEvent;
    expect(envelope.properties.type).toEqual({ const: "company.created", type: "string" });
    expect(envelope.properties.data).toEqual({ $ref: "#/components/schemas/Company" });
    expect(doc.paths["/events"].get.operationId).toBe("events.list");
  });

  test("documents the hazard clock events: when each is sent, and their data", async () => {
    const doc = (await h.request("GET", "/openapi.json")).body;
    const dueSoon = doc.webhooks["hazard_clock.due_soon"].post;
    expect(dueSoon.description).toContain("a quarter of the clock's span");
    expect(dueSoon.description).toContain("never more than 24 hours before `dueAt`");
    expect(dueSoon.description).toContain("within a minute of its creation");
    const breached = doc.webhooks["hazard_clock.breached"].post;
    expect(breached.description).toContain("within a minute of its `dueAt`");
    expect(breached.description).toContain("created already past due");
    expect(breached.description).toContain("unless the clock was met or ceased by `dueAt`");
    for (const [type, name] of [
      ["hazard_clock.due_soon", "HazardClockDueSoonEvent"],
      ["hazard_clock.breached", "HazardClockBreachedEvent"],
    ] as const) {
      expect(doc.webhooks[type].post.requestBody.content["application/json"].schema.$ref).toBe(
        `#/components/schemas/${name}`,
      );
      expect(doc.components.schemas[name].properties.data).toEqual({ $ref: "#/components/schemas/HazardClockEvent" });
    }
    const data = doc.components.schemas.HazardClockEvent;
    expect(Object.keys(data.properties)).toEqual(["repairId", "reference", "regime", "clock"]);
    expect(data.required).toEqual(["repairId", "reference", "regime", "clock"]);
    expect(data.properties.clock).toEqual({ $ref: "#/components/schemas/RepairClock" });
  });
});
