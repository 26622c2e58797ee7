/** The sms_threads table's written columns (the import upserts them; the first message of a pair inserts them). */
import type { TableSpec } from "../core/table_spec.ts";

export const smsThreadsTable = {
  key: ["id"],
  columns: {
    id: "text",
    local_number: "text",
    address: "text",
    contact_id: "text",
    last_message_at: "timestamptz",
    last_inbound_at: "timestamptz",
    preview: "text",
    stopped: "boolean",
  },
  revision: true,
} satisfies TableSpec;
