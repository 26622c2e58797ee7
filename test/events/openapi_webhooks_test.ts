/** OpenAPI `webhooks`: every declared event type with its payload schema, valid per Redocly's linter. */
import { describe, expect, test } from "bun:test";
import { eventTypes } from "../../src/events/registry.ts";
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
});
