/** The telephony operations as the OpenAPI document describes them. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { inlineRefs } from "../support/openapi.ts";

const h = await harness();
const doc = inlineRefs((await h.request("GET", "/openapi.json")).body);

describe("OpenAPI", () => {
  test("the SMS send is documented as an extension answering 202, with its errors and its replay header", () => {
    const op = doc.paths["/telephony/sms/threads/{id}/messages"].post;
    expect(op.operationId).toBe("telephony.sendSms");
    expect(op["x-extension"]).toBe(true);
    expect(op.tags).toEqual(["telephony (extension)"]);
    expect(op.requestBody.content["application/json"].schema.required).toEqual(["body"]);
    expect(op.requestBody.content["application/json"].schema.properties.body.maxLength).toBe(918);
    expect(op.responses["202"].content["application/json"].schema.properties.status.const).toBe("queued");
    expect(Object.keys(op.responses["202"].headers)).toContain("Idempotent-Replayed");
    expect(op.responses["404"].description).toContain("SmsThreadNotFound");
    expect(op.responses["409"].description).toContain("SmsStopped");
    expect(op.responses["422"].description).toContain("RequestIdReused");
    expect(op.responses["429"].description).toContain("RateLimited");
    expect(op.description).toContain("SMS_PER_MINUTE");
  });

  test("the thread list declares its query parameters and the Link header", () => {
    const op = doc.paths["/telephony/sms/threads"].get;
    expect(op.operationId).toBe("telephony.smsThreads");
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(["contactId", "stopped", "limit", "cursor"]);
    expect(op.parameters.find((p: { name: string }) => p.name === "limit").schema.maximum).toBe(200);
    expect(Object.keys(op.responses["200"].headers)).toContain("Link");
    expect(op.responses["200"].content["application/json"].schema.type).toBe("array");
  });

  test("the message list is an extension with cursor pages", () => {
    const op = doc.paths["/telephony/sms/threads/{id}/messages"].get;
    expect(op.operationId).toBe("telephony.smsMessages");
    expect(op["x-extension"]).toBe(true);
    expect(op.tags).toEqual(["telephony (extension)"]);
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(["id", "limit", "cursor"]);
    expect(Object.keys(op.responses["200"].headers)).toContain("Link");
    expect(op.responses["200"].content["application/json"].schema.items.required).toEqual([
      "id",
      "threadId",
      "direction",
      "body",
      "status",
      "errorCode",
      "createdAt",
      "sentAt",
      "deliveredAt",
    ]);
    expect(op.responses["404"].description).toContain("SmsThreadNotFound");
  });

  test("the webhook route: public, a form body, empty TwiML, and its refusals by status", () => {
    const op = doc.paths["/webhooks/{integration}"].post;
    expect(op.operationId).toBe("webhooks.receive");
    expect(op.security).toEqual([]);
    expect(op.requestBody.content["application/x-www-form-urlencoded"].schema.required).toEqual([
      "MessageSid",
      "AccountSid",
      "From",
      "To",
    ]);
    expect(Object.keys(op.responses["200"].content)).toEqual(["text/xml"]);
    expect(op.responses["400"].description).toContain("UnknownIntegration");
    expect(op.responses["400"].description).toContain("WebhookUnroutable");
    expect(op.responses["400"].description).toContain("RequestInvalid");
    expect(op.responses["401"].description).toContain("WebhookRejected");
    expect(op.responses["409"].description).toContain("WebhookDuplicate");
    expect(op.responses["413"].description).toContain("PayloadTooLarge");
    expect(op.responses["429"].description).toContain("RateLimited");
    expect(op.description).toContain("PUBLIC_BASE_URL/webhooks/sms");
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(["integration", "X-Twilio-Signature"]);
  });
});
