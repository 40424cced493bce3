/**
 * The signed links of e-mail subscriptions and the address rule of the public form. Pure: the
 * secret comes from the caller (subscription-store.ts keeps it in the database).
 *
 * A token is `{subscription id, base64url}.{expiry, Unix seconds}.{signature}` (URL-safe whatever
 * characters a seeded id has), the signature an HMAC-SHA256
 * (base64url) over the purpose, the status page's account and id, the subscription id and the
 * expiry. The purpose is signed so a verification link cannot be replayed as an unsubscribe link or
 * the reverse, and the page so a token of one page means nothing on another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type TokenPurpose = 'verify' | 'unsubscribe';

/** How long each kind of link works. An unsubscribe link must still work in an old mail, so it lives far longer. */
export const TOKEN_LIFETIME_MS: Readonly<Record<TokenPurpose, number>> = {
  verify: 24 * 3_600_000,
  unsubscribe: 90 * 24 * 3_600_000,
};

export interface TokenSubject {
  readonly accountId: string;
  readonly statusPageId: string;
  readonly subscriptionId: string;
}

function signature(secret: Buffer, purpose: TokenPurpose, subject: TokenSubject, expiresSec: number): string {
  // NUL separates the fields: none of them can contain it, so no two field lists sign the same bytes.
  const input = [purpose, subject.accountId, subject.statusPageId, subject.subscriptionId, String(expiresSec)].join('\u0000');
  return createHmac('sha256', secret).update(input).digest('base64url');
}

/** A token for `subject` valid until `expiresAtMs` (rounded down to the second). */
export function signToken(secret: Buffer, purpose: TokenPurpose, subject: TokenSubject, expiresAtMs: number): string {
  const expiresSec = Math.floor(expiresAtMs / 1000);
  return `${Buffer.from(subject.subscriptionId).toString('base64url')}.${expiresSec}.${signature(secret, purpose, subject, expiresSec)}`;
}

export type TokenCheck = { ok: true; subscriptionId: string } | { ok: false; reason: 'invalid' | 'expired' };

/**
 * Whether `token` was signed by this service for this purpose and page and has not expired. The
 * signature is checked before the expiry, so a forged expiry is "invalid", never "expired".
 */
export function checkToken(secret: Buffer, purpose: TokenPurpose, page: { accountId: string; statusPageId: string }, token: string, nowMs: number): TokenCheck {
  const match = /^([A-Za-z0-9_-]{1,400})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { ok: false, reason: 'invalid' };
  const [, encodedId, expires, given] = match as unknown as [string, string, string, string];
  const subscriptionId = Buffer.from(encodedId, 'base64url').toString('utf8');
  const expected = Buffer.from(signature(secret, purpose, { ...page, subscriptionId }, Number(expires)));
  if (!timingSafeEqual(expected, Buffer.from(given))) return { ok: false, reason: 'invalid' };
  if (Number(expires) * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, subscriptionId };
}

/** The longest address accepted: what fits a forward path of SMTP (RFC 5321, 256 octets less the brackets). */
export const ADDRESS_MAX = 254;

/**
 * The address typed into the form, trimmed, or what is wrong with it (the exact text the page
 * shows). Deliberately simple: one `@`, a local part of visible characters, a domain of dot-separated
 * labels; anything a mail server would reject anyway is left for it to reject, since the
 * verification mail proves the address.
 */
export function checkAddress(raw: unknown): { ok: true; address: string } | { ok: false; message: string } {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, message: 'Enter an e-mail address.' };
  const address = raw.trim();
  if (address.length > ADDRESS_MAX) return { ok: false, message: `An e-mail address is at most ${ADDRESS_MAX} characters long.` };
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const valid =
    at > 0 &&
    local.length <= 64 &&
    /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/.test(local) &&
    !local.startsWith('.') && !local.endsWith('.') && !local.includes('..') &&
    /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(domain);
  if (!valid) return { ok: false, message: 'Enter an e-mail address in the form name@example.com.' };
  return { ok: true, address };
}
