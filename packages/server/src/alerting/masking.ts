/**
 * An alert channel's credentials as the API shows them back (`GET /v1/alert-notifications`): the
 * config's key fields and header values are masked, and so are the parts of its URL that carry a
 * credential — a query parameter's value (`?token=`), the user info, the fragment, Slack's webhook
 * secret (the last segment of `/services/T…/B…/SECRET`) and any path segment that looks like a
 * token (16 or more characters with letters and digits: Discord's, Telegram's bot token, Teams'
 * ids). The scheme, host and path's shape stay readable. The same values are redacted, in any
 * spelling (@vigil/runner's redaction), from the delivery's error and the receiver's answer, which
 * may quote the URL.
 */
import { secretMatcher } from '@vigil/runner/redaction';

export const MASK = '*****';

/** Config fields that are credentials. */
const SECRET_FIELDS = new Set(['webhookSecret', 'apiKey', 'serviceKey']);
/** Config fields holding a URL. */
const URL_FIELDS = new Set(['url']);
const SLACK_PATH = /^\/services\/T[^/]*\/B[^/]*\/([^/]+)/;
/** Shorter values are redacted from free text only as whole words, so `?v=1` does not mask every digit. */
const SHORT_VALUE = 6;

function looksLikeToken(segment: string): boolean {
  return segment.length >= 16 && !/\s/.test(segment) && /[A-Za-z]/.test(segment) && /\d/.test(segment);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The URL with its credentials masked, and those credentials as found in it (to redact elsewhere). */
export function maskUrl(url: string): { masked: string; secrets: string[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: nothing of it can be shown as safe.
    return { masked: url === '' ? url : MASK, secrets: url === '' ? [] : [url] };
  }
  const secrets: string[] = [];
  const keep = (value: string): string => {
    if (value !== '') secrets.push(value, decoded(value));
    return MASK;
  };
  const userInfo = parsed.username !== '' || parsed.password !== '' ? `${keep(parsed.username)}${parsed.password !== '' ? `:${keep(parsed.password)}` : ''}@` : '';
  const slackSecret = SLACK_PATH.exec(parsed.pathname)?.[1];
  const path = parsed.pathname
    .split('/')
    .map((segment) => (segment !== '' && (segment === slackSecret || looksLikeToken(decoded(segment))) ? keep(segment) : segment))
    .join('/');
  const query = parsed.search === ''
    ? ''
    : `?${parsed.search
        .slice(1)
        .split('&')
        .map((pair) => {
          const equals = pair.indexOf('=');
          // A bare `?abc123` is as much a credential as a value.
          if (equals === -1) return pair === '' ? pair : keep(pair);
          return `${pair.slice(0, equals)}=${pair.slice(equals + 1) === '' ? '' : keep(pair.slice(equals + 1))}`;
        })
        .join('&')}`;
  const fragment = parsed.hash === '' ? '' : `#${keep(parsed.hash.slice(1))}`;
  return { masked: `${parsed.protocol}//${userInfo}${parsed.host}${path}${query}${fragment}`, secrets };
}

export interface MaskedChannel {
  config: Record<string, unknown>;
  /** Redacts the channel's credentials from free text (a delivery error, a receiver's answer). */
  redact(text: string | null): string | null;
}

export function maskChannel(config: Record<string, unknown>): MaskedChannel {
  const secrets: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (SECRET_FIELDS.has(key)) {
      if (typeof value === 'string') secrets.push(value);
      out[key] = value ? MASK : value;
    } else if (URL_FIELDS.has(key) && typeof value === 'string') {
      const url = maskUrl(value);
      secrets.push(...url.secrets);
      out[key] = url.masked;
    } else if ((key === 'headers' || key === 'queryParameters') && Array.isArray(value)) {
      out[key] = value.map((entry: { key?: unknown; value?: unknown } | null) => {
        if (typeof entry?.value === 'string') secrets.push(entry.value);
        return { key: entry?.key, value: MASK };
      });
    } else {
      out[key] = value;
    }
  }
  const matcher = secretMatcher(secrets, { wholeWordBelow: SHORT_VALUE });
  return { config: out, redact: (text) => (text === null || matcher === undefined ? text : matcher.replace(text, MASK)) };
}
