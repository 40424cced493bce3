/**
 * `heartbeat.pingUrl` in the responses of heartbeat monitors, as the real service returns it: the
 * URL this service is reached at, plus `/ping/{pingToken}`. Added on the way out, never stored: the
 * base belongs to the service, not to the check, and may change between two starts.
 *
 * The base is configured, never read from a request: `vigil server --public-url URL` (behind a
 * reverse proxy or a DNS name), else the URL the service listens on. Not the request's `Host`
 * header: that is the caller's to choose, so a URL built from it would say what the caller claimed
 * (any client, or a cache in front of the service, could make a response or a log carry a ping URL
 * pointing elsewhere), and the same check would show a different URL to each tenant user asking.
 */
import type { StoredDoc } from '../store/index.js';

/** How a stored heartbeat monitor's JSON text starts its type (stored by `JSON.stringify`, no spaces). */
export const HEARTBEAT_TYPE_TEXT = '"checkType":"HEARTBEAT"';

/**
 * `--public-url`: an http(s) URL, perhaps with a path prefix (a reverse proxy's), without query,
 * fragment or credentials; returned without a trailing slash. Throws an Error saying what is wrong.
 */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${text}" is not a URL (expected e.g. https://vigil.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${text}" must start with http:// or https://`);
  if (url.username !== '' || url.password !== '') throw new Error(`"${text}" must not hold credentials: ping URLs are printed and pasted into jobs`);
  if (url.search !== '' || url.hash !== '') throw new Error(`"${text}" must not have a query or a fragment: /ping/{token} is appended to it`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The heartbeat's ping URL under `base` (no trailing slash). */
export function pingUrlOf(base: string, token: string): string {
  return `${base}/ping/${encodeURIComponent(token)}`;
}

/** The check as returned: a heartbeat monitor with a token gets its `pingUrl` when the base is known. */
export function withPingUrl(doc: StoredDoc, base: string | undefined): StoredDoc {
  if (base === undefined || doc['checkType'] !== 'HEARTBEAT') return doc;
  const heartbeat = doc['heartbeat'];
  if (heartbeat === null || typeof heartbeat !== 'object' || Array.isArray(heartbeat)) return doc;
  const token = (heartbeat as Record<string, unknown>)['pingToken'];
  if (typeof token !== 'string' || token === '') return doc;
  return { ...doc, heartbeat: { ...heartbeat, pingUrl: pingUrlOf(base, token) } };
}
