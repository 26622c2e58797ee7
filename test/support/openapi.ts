/** Reading the OpenAPI document in tests: its named schemas put back in place of their references. */

/** The document with every `{"$ref": "#/components/schemas/<name>"}` replaced by that schema (recursively). */
export function inlineRefs<T>(doc: T): T {
  const schemas = (doc as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const inline = (node: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, seen));
    if (node === null || typeof node !== "object") return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string") {
      const name = ref.replace("#/components/schemas/", "");
      if (!ref.startsWith("#/components/schemas/") || !(name in schemas)) throw new Error(`dangling $ref ${ref}`);
      if (seen.includes(name)) throw new Error(`recursive schema ${name}`);
      return inline(schemas[name], [...seen, name]);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, seen)]));
  };
  return inline(doc, []) as T;
}

/** Every `$ref` value in a JSON value. */
export function refsIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" ? [v] : refsIn(v)));
}
