/** The invitation rules: who can be invited, and what an invitation does to each access state. */
import { describe, expect, test } from "bun:test";
import { decideInvite, type InviteTarget } from "../../src/maintenance_pro/invite_rules.ts";

const landlord: InviteTarget = { archived: false, landlord: true, email: "l@x.test", accessStatus: null };

describe("decideInvite", () => {
  const table: [string, Partial<InviteTarget>, ReturnType<typeof decideInvite>][] = [
    ["no access yet → invite", {}, { kind: "invite", replaces: "nothing" }],
    ["revoked → invite again", { accessStatus: "revoked" }, { kind: "invite", replaces: "revoked" }],
    ["pending → a new link replaces the old", { accessStatus: "pending" }, { kind: "invite", replaces: "pending" }],
    ["active → refused", { accessStatus: "active" }, { kind: "active" }],
    ["archived → blocked", { archived: true }, { kind: "blocked", reason: "archived" }],
    ["not a landlord → blocked", { landlord: false }, { kind: "blocked", reason: "not_a_landlord" }],
    ["no email → blocked", { email: null }, { kind: "blocked", reason: "no_email" }],
    [
      "archived and not a landlord → archived first",
      { archived: true, landlord: false, email: null },
      { kind: "blocked", reason: "archived" },
    ],
    [
      "not a landlord and no email → not_a_landlord first",
      { landlord: false, email: null },
      { kind: "blocked", reason: "not_a_landlord" },
    ],
    [
      "blocked wins over active access",
      { archived: true, accessStatus: "active" },
      { kind: "blocked", reason: "archived" },
    ],
    [
      "blocked wins over pending access",
      { email: null, accessStatus: "pending" },
      { kind: "blocked", reason: "no_email" },
    ],
  ];
  for (const [name, change, expected] of table) {
    test(name, () => expect(decideInvite({ ...landlord, ...change })).toEqual(expected));
  }
});
