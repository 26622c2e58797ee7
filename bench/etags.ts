/**
 * The ETags a conditional scenario sends: each tenancy's handover row read once from the running service with the
 * bench key, its ETag header kept. Read after the first reads stored the rows (a first read's answer is the row it
 * stores, so its tag is the stored row's too), before the scenario's load starts; not measured.
 */

/** How many reads are in flight at once. */
const inFlight = 16;

/** Tenancy id → the ETag of its handover row; throws when a read does not answer 200 with an ETag. */
export async function collectHandoverEtags(
  url: string,
  apiKey: string,
  tenancyIds: readonly string[],
): Promise<Record<string, string>> {
  const etags: Record<string, string> = {};
  let next = 0;
  const worker = async () => {
    while (next < tenancyIds.length) {
      const id = tenancyIds[next++]!;
      const res = await fetch(`${url}/handovers/tenancies/${encodeURIComponent(id)}`, {
        // The load generator sends no Accept-Encoding: the tag wanted is the uncompressed answer's (Bun's fetch
        // asks for gzip, br and zstd unless told otherwise, and a compressed answer's tag names its coding).
        headers: { "x-api-key": apiKey, "accept-encoding": "identity" },
      });
      const text = await res.text();
      const etag = res.headers.get("etag");
      if (res.status !== 200 || !etag) {
        throw new Error(
          `GET /handovers/tenancies/${id} answered ${res.status} with ETag ${etag}: ${text.slice(0, 200)}`,
        );
      }
      etags[id] = etag;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, tenancyIds.length) }, worker));
  return etags;
}
