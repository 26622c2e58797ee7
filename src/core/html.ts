/**
 * HTML for every page and email, written as `html` templates that escape what they interpolate.
 *
 * html`<p>Dear ${name},</p>` escapes `& < > " '` in `name` unless it is already Html (made by `html` itself), so
 * fragments nest without being escaped twice; an array renders its items one after another; null, undefined and
 * false render as nothing, for `${condition && html`…`}`.
 *
 * Escaping makes a value safe as element text and inside a quoted attribute value, and nowhere else, so where a
 * template puts a value is checked the first time it runs (it throws otherwise):
 * - in a tag, only inside a quoted attribute value (not a tag or attribute name, not an unquoted value), and never in
 *   an event handler (`on…`), `style` or `srcdoc`, where the browser decodes the entities before running the text;
 * - a URL attribute (`href`, `src`, `action`…) takes only a string that resolves to an http(s) URL (absolute or
 *   relative), checked on every render: escaping does not stop `javascript:`;
 * - a `<script>` or `<style>` body takes only Html, which there can only come from `raw`: entities are not decoded
 *   in them, so no escaping can help.
 */

/** Markup that is safe to write out as it is: only `html` and `raw` make it. */
class Html {
  constructor(private readonly markup: string) {}

  /** The markup. */
  toString(): string {
    return this.markup;
  }
}
export type { Html };

/** What a template may interpolate. */
export type HtmlValue = string | number | Html | null | undefined | false | readonly HtmlValue[];

/** Where a template puts a value: element text or a quoted attribute value, a URL attribute, a script or style body. */
type Place = "text" | "url" | "body";

/** Attributes whose value is a URL (or URLs) the browser follows or loads. */
const urlAttributes = new Set([
  "action",
  "background",
  "cite",
  "data",
  "formaction",
  "href",
  "manifest",
  "ping",
  "poster",
  "src",
  "srcset",
  "xlink:href",
]);

/** The places of a template's values, found once per template (its strings are the same object on every call). */
const places = new WeakMap<TemplateStringsArray, Place[]>();

/** The place of a value written after `before` (the template's text up to it), or an error where none may go. */
function placeAfter(before: string): Place {
  const tagStart = before.lastIndexOf("<");
  if (tagStart > before.lastIndexOf(">")) {
    const tag = before.slice(tagStart);
    let quote: string | undefined;
    let attribute = "";
    for (let i = 0; i < tag.length; i++) {
      const c = tag[i]!;
      if (quote) {
        if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") {
        quote = c;
        attribute = (tag.slice(0, i).match(/([^\s"'=<>/]+)\s*=\s*$/)?.[1] ?? "").toLowerCase();
      }
    }
    const where = JSON.stringify(before.slice(-40));
    if (!quote || !attribute) throw new Error(`html: a value after ${where} is not inside a quoted attribute value`);
    if (/^on|^style$|^srcdoc$/.test(attribute)) throw new Error(`html: a value after ${where} is in ${attribute}`);
    return urlAttributes.has(attribute) ? "url" : "text";
  }
  const lower = before.toLowerCase();
  const opened = Math.max(lower.lastIndexOf("<script"), lower.lastIndexOf("<style"));
  return opened > Math.max(lower.lastIndexOf("</script"), lower.lastIndexOf("</style")) ? "body" : "text";
}

/** The places of a template's values. */
function placesOf(strings: TemplateStringsArray): Place[] {
  let found = places.get(strings);
  if (!found) {
    found = strings.slice(0, -1).map((_, i) => placeAfter(strings.slice(0, i + 1).join("")));
    places.set(strings, found);
  }
  return found;
}

/** Whether a URL, absolute or relative to the page, is an http(s) one (as the browser would resolve it). */
function isHttpUrl(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url, "https://relative.invalid/").protocol);
  } catch {
    return false;
  }
}

/** A value written at its place. */
function render(value: HtmlValue, place: Place): string {
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item, place)).join("");
  if (place === "url") {
    if (typeof value !== "string" || !isHttpUrl(value)) throw new Error("html: a URL attribute takes an http(s) URL");
    return Bun.escapeHTML(value);
  }
  if (value instanceof Html) return value.toString();
  if (place === "body") throw new Error("html: a script or style body takes only raw constants");
  return Bun.escapeHTML(String(value));
}

/** HTML from a template: each interpolated value escaped (unless it is Html), where it may go. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const at = placesOf(strings);
  let markup = strings[0]!;
  for (let i = 0; i < values.length; i++) markup += render(values[i], at[i]!) + strings[i + 1];
  return new Html(markup);
}

/**
 * A constant written into HTML as it is. It takes only a string whose type is a literal (a constant of the source,
 * never input); each use must say why it cannot be a template.
 */
export function raw<T extends string>(constant: string extends T ? never : T): Html {
  return new Html(constant);
}
