/** The rows every group refers to, inserted straight into a test database: contacts, users, properties, units, tenancies. */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";
import { contactNorms } from "../../src/contacts/normalise.ts";

/** A contact to insert; every field has a default (a person named Alex Tenant, no roles). */
export interface ContactFields {
  id?: string;
  kind?: "person" | "company";
  name?: string;
  email?: string | null;
  mobile?: string | null;
  addressPostcode?: string | null;
  registrationNumber?: string | null;
  roles?: string[];
  archivedAt?: string | null;
}

/** A meter a unit can have. */
export type Meter = "electricity" | "gas" | "water";

/** Inserts rows into one workspace, as the service's writers would store them; each method returns the new id(s). */
export class Rows {
  constructor(
    readonly db: Db,
    readonly workspaceId: string,
  ) {}

  /** A contact, with the normalised columns a writer of contacts stores (duplicate checks read them). */
  async contact(fields: ContactFields = {}): Promise<string> {
    const [id] = await this.contacts([fields]);
    return id;
  }

  /** Several contacts in one statement; their ids in the order given. */
  async contacts<const T extends readonly ContactFields[]>(list: T): Promise<{ -readonly [K in keyof T]: string }> {
    const rows = list.map((c) => {
      const name = c.name ?? "Alex Tenant";
      const n = contactNorms({ ...c, name });
      return {
        workspace_id: this.workspaceId,
        id: c.id ?? ulid(),
        kind: c.kind ?? "person",
        name,
        email: c.email ?? null,
        mobile: c.mobile ?? null,
        address_postcode: c.addressPostcode ?? null,
        registration_number: c.registrationNumber ?? null,
        roles: `{${(c.roles ?? []).join(",")}}`,
        archived_at: c.archivedAt ?? null,
        name_norm: n.nameNorm,
        email_norm: n.emailNorm,
        email_canon: n.emailCanon,
        mobile_norm: n.mobileNorm,
        postcode_norm: n.postcodeNorm,
        registration_norm: n.registrationNorm,
      };
    });
    if (rows.length > 0) await this.db`insert into contacts ${this.db(rows)}`;
    // One id per contact given, in order: a tuple when the caller passed a literal list.
    return rows.map((r) => r.id) as { -readonly [K in keyof T]: string };
  }

  /** A user of the workspace (a member of staff unless told otherwise). */
  async user(fields: { id?: string; name?: string; role?: "admin" | "staff" } = {}): Promise<string> {
    const id = fields.id ?? ulid();
    await this.db`
      insert into users (workspace_id, id, name, role)
      values (${this.workspaceId}, ${id}, ${fields.name ?? "Sam Staff"}, ${fields.role ?? "staff"})`;
    return id;
  }

  /** A property, with its block compliance facts ({ fireAlarm: "yes" }) and its landlords (contact ids). */
  async property(
    fields: { id?: string; label?: string; facts?: Record<string, string>; landlordIds?: string[] } = {},
  ): Promise<string> {
    const id = fields.id ?? ulid();
    await this.db`
      insert into properties (workspace_id, id, label, facts)
      values (${this.workspaceId}, ${id}, ${fields.label ?? "12 Harbour Road"}, ${this.db.json(fields.facts ?? {})})`;
    for (const contactId of fields.landlordIds ?? []) {
      await this.db`
        insert into property_landlords (workspace_id, property_id, contact_id) values (${this.workspaceId}, ${id}, ${contactId})`;
    }
    return id;
  }

  /** A unit (of a new property unless one is given) and its meters. */
  async unit(fields: { id?: string; propertyId?: string; label?: string; meters?: Meter[] } = {}): Promise<string> {
    const propertyId = fields.propertyId ?? (await this.property());
    const id = fields.id ?? ulid();
    await this.db`
      insert into units (workspace_id, id, property_id, label)
      values (${this.workspaceId}, ${id}, ${propertyId}, ${fields.label ?? "Flat 1"})`;
    for (const meter of fields.meters ?? []) {
      await this
        .db`insert into unit_meters (workspace_id, unit_id, meter) values (${this.workspaceId}, ${id}, ${meter})`;
    }
    return id;
  }

  /** A tenancy (of a new unit unless one is given) with its occupants; it started on 2024-01-01 unless told. */
  async tenancy(
    fields: {
      id?: string;
      unitId?: string;
      status?: "active" | "notice_given" | "ended";
      startsOn?: string | null;
      endsOn?: string | null;
      noticeGivenOn?: string | null;
      occupants?: { contactId: string; role?: string; isLead?: boolean }[];
    } = {},
  ): Promise<string> {
    const unitId = fields.unitId ?? (await this.unit());
    const id = fields.id ?? ulid();
    await this.db`
      insert into tenancies (workspace_id, id, unit_id, status, starts_on, ends_on, notice_given_on)
      values (${this.workspaceId}, ${id}, ${unitId}, ${fields.status ?? "active"},
              ${fields.startsOn === undefined ? "2024-01-01" : fields.startsOn}, ${fields.endsOn ?? null},
              ${fields.noticeGivenOn ?? null})`;
    for (const o of fields.occupants ?? []) {
      await this.db`
        insert into tenancy_occupants (workspace_id, tenancy_id, contact_id, role, is_lead)
        values (${this.workspaceId}, ${id}, ${o.contactId}, ${o.role ?? "tenant"}, ${o.isLead ?? false})`;
    }
    return id;
  }
}
