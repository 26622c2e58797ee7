/** The plain text of the four link emails, to the byte: a change to their frame must not change what they say. */
import { describe, expect, test } from "bun:test";
import { contractorLinkEmail } from "../../src/maintenance_pro/contractor_link.ts";
import { invitationEmail } from "../../src/maintenance_pro/invitation_email.ts";
import { tenantLinkEmail } from "../../src/maintenance_pro/tenant_link.ts";
import { referenceEmail } from "../../src/maintenance_pro/tenant_reference.ts";

const workspaceName = 'A&B <Lets>\r\n"x"';
const lines = (...text: string[]) => text.join("\r\n");

describe("the link emails' text", () => {
  test("the landlord's invitation", () => {
    const email = invitationEmail({
      workspaceName,
      landlordName: "Ada <b>",
      link: "https://p.test/invitations/t&1",
      expiresAt: "2026-07-01T08:30:00.000Z",
    });
    expect(email.text).toBe(
      lines(
        "Dear Ada <b>,",
        "",
        'A&B <Lets> "x" has invited you to its landlord portal, where you can follow the repairs, maintenance and ' +
          "compliance of your properties.",
        "",
        "Accept the invitation here:",
        "https://p.test/invitations/t&1",
        "",
        "The link works until 1 July 2026 at 09:30 (UK time). If a newer invitation reaches you, only the newest " +
          "link works.",
        "If you were not expecting this, you can ignore this email.",
        "",
        'A&B <Lets> "x"',
        "",
      ),
    );
  });

  test("the contractor's works order, with and without a date it is required by", () => {
    const order = {
      workspaceName,
      contractorName: "Bob's",
      reference: "WO-1<",
      address: "1 High St\nX",
      requiredBy: "2026-07-01T08:30:00.000Z",
      link: "https://p.test/contractor/t",
    };
    const rest = [
      "",
      "Open it to accept or decline it, agree an appointment and record your visits:",
      "https://p.test/contractor/t",
      "",
      "The link works until the order is closed and for 14 days after. Do not share it: anyone with it can act on " +
        "the order.",
      "",
      'A&B <Lets> "x"',
      "",
    ];
    expect(contractorLinkEmail(order).text).toBe(
      lines(
        "Dear Bob's,",
        "",
        'A&B <Lets> "x" has sent you works order WO-1< at 1 High St X. It is required by 1 July 2026 at 09:30 (UK ' +
          "time).",
        ...rest,
      ),
    );
    expect(contractorLinkEmail({ ...order, requiredBy: null }).text).toBe(
      lines("Dear Bob's,", "", 'A&B <Lets> "x" has sent you works order WO-1< at 1 High St X.', ...rest),
    );
  });

  test("the tenant's link", () => {
    const email = tenantLinkEmail({
      workspaceName,
      link: "https://p.test/report/s/t/x",
      expiresAt: "2026-01-01T08:30:00.000Z",
    });
    expect(email.text).toBe(
      lines(
        "Hello,",
        "",
        'You asked for a link to report a repair to A&B <Lets> "x" and follow your repairs. Open it here:',
        "https://p.test/report/s/t/x",
        "",
        "The link works until 1 January 2026 at 08:30 (UK time). If you did not ask for it, you can ignore this email.",
        "",
        'A&B <Lets> "x"',
        "",
      ),
    );
  });

  test("the tenant's repair reference", () => {
    const email = referenceEmail({
      workspaceName,
      reference: "R-1",
      title: "Leak & <drip>",
      reportedAt: "2026-01-01T08:30:00.000Z",
      reportPage: "https://p.test/report/s",
    });
    expect(email.text).toBe(
      lines(
        "Hello,",
        "",
        "We received your repair report (Leak & <drip>) on 1 January 2026 at 08:30 (UK time). Its reference is R-1:",
        "please quote it when you contact us about it.",
        "",
        "To see what must happen by when, ask for a new link at https://p.test/report/s",
        "",
        "If anyone is in danger now, call 999. If you smell gas, call 0800 111 999.",
        "",
        'A&B <Lets> "x"',
        "",
      ),
    );
  });
});
