/** The event types the contacts group's writes record. */
import { eventType } from "../events/event_type.ts";
import { Company } from "./schema.ts";

/** A company contact was created (`POST /companies`); data is the company as the API answered it. */
export const companyCreated = eventType({
  name: "company.created",
  subjectKind: "company",
  data: Company,
  description: "A company contact was created. `data` is the company as `POST /companies` answered it.",
});
