/** The signed links of subscription e-mails, the form's address rule and its same-origin rule. */
import { describe, expect, it } from 'vitest';
import { fromOwnOrigin } from './subscribe-routes.js';
import { ADDRESS_MAX, checkAddress, checkToken, signToken, TOKEN_LIFETIME_MS } from './subscription-tokens.js';

const SECRET = Buffer.alloc(32, 7);
const PAGE = { accountId: 'acme', statusPageId: 'page-1' };
const SUBJECT = { ...PAGE, subscriptionId: 'sub_1 with odd/characters' };
const NOW = Date.UTC(2026, 2, 1, 12);

describe('subscription link tokens', () => {
  const token = signToken(SECRET, 'verify', SUBJECT, NOW + TOKEN_LIFETIME_MS.verify);

  it('accept a token this service signed, naming its subscription, until it expires', () => {
    expect(checkToken(SECRET, 'verify', PAGE, token, NOW)).toEqual({ ok: true, subscriptionId: SUBJECT.subscriptionId });
    expect(checkToken(SECRET, 'verify', PAGE, token, NOW + TOKEN_LIFETIME_MS.verify)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuse a token for another purpose, another page, another secret, or altered in any part', () => {
    const [id, expires, signature] = token.split('.') as [string, string, string];
    const refusals = [
      checkToken(SECRET, 'unsubscribe', PAGE, token, NOW),
      checkToken(SECRET, 'verify', { ...PAGE, statusPageId: 'page-2' }, token, NOW),
      checkToken(Buffer.alloc(32, 8), 'verify', PAGE, token, NOW),
      checkToken(SECRET, 'verify', PAGE, `${id}.${Number(expires) + 86_400}.${signature}`, NOW),
      checkToken(SECRET, 'verify', PAGE, `${Buffer.from('another').toString('base64url')}.${expires}.${signature}`, NOW),
      checkToken(SECRET, 'verify', PAGE, `${id}.${expires}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, NOW),
      checkToken(SECRET, 'verify', PAGE, '', NOW),
    ];
    expect(refusals).toEqual(Array(refusals.length).fill({ ok: false, reason: 'invalid' }));
  });
});

describe('the form address', () => {
  it.each([
    ['', 'Enter an e-mail address.'],
    ['   ', 'Enter an e-mail address.'],
    ['no-at-sign', 'Enter an e-mail address in the form name@example.com.'],
    ['a@b', 'Enter an e-mail address in the form name@example.com.'],
    ['<script>@x.com', 'Enter an e-mail address in the form name@example.com.'],
    ['a..b@example.com', 'Enter an e-mail address in the form name@example.com.'],
    ['a@example.com\r\nBcc: x@example.com', 'Enter an e-mail address in the form name@example.com.'],
    [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`, `An e-mail address is at most ${ADDRESS_MAX} characters long.`],
  ])('refuses %j with the message the page shows', (typed, message) => {
    expect(checkAddress(typed)).toEqual({ ok: false, message });
  });

  it('accepts an ordinary address, trimmed', () => {
    expect(checkAddress('  Ops+status@Example.COM ')).toEqual({ ok: true, address: 'Ops+status@Example.COM' });
  });
});

describe('the form is accepted only from the page itself', () => {
  it.each([
    [{ origin: 'http://127.0.0.1:4010', host: '127.0.0.1:4010' }, undefined, true],
    [{ origin: 'https://status.acme.test', host: 'status.acme.test' }, undefined, true],
    [{ referer: 'https://status.acme.test/status/acme', host: 'status.acme.test' }, undefined, true],
    [{ origin: 'https://vigil.example.com', host: '10.0.0.5:4010' }, 'https://vigil.example.com/', true],
    [{ origin: 'https://evil.example', host: 'status.acme.test' }, undefined, false],
    [{ origin: 'null', host: 'status.acme.test' }, undefined, false],
    [{ origin: 'https://evil.example', referer: 'https://status.acme.test/', host: 'status.acme.test' }, undefined, false],
    [{ host: 'status.acme.test' }, undefined, false],
  ])('%j with public URL %j: %s', (headers, publicUrl, accepted) => {
    expect(fromOwnOrigin(headers, publicUrl)).toBe(accepted);
  });
});
