/**
 * The one escaping helper of the public pages. Every stored string (a page's, card's, service's or
 * incident's name, an update's text, a URL) reaches HTML, XML (the Atom feed) and SVG (badges) only
 * through it: names are typed by the account's users and read by anyone, so a page must never run
 * what a name says.
 */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text safe inside an element and inside a quoted attribute of HTML, XML and SVG. Characters XML 1.0
 * forbids (C0 controls other than tab and line breaks, lone surrogates, U+FFFE/U+FFFF) become U+FFFD,
 * so a stored name can never make the feed unparsable.
 */
export function escapeMarkup(value: string | number): string {
  return String(value)
    .replace(/[&<>"']/g, (character) => ENTITIES[character]!)
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** The URL when it is http or https (a stored logo or favicon), else undefined: no `javascript:` or `data:` ever reaches an attribute. */
export function webUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
