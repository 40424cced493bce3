import { describe, expect, it } from 'vitest';
import { secretMatcher, spellingsOf } from './redaction.js';

const SECRET = 'Se"cret Höst/+1';
const matcher = secretMatcher([SECRET])!;
const redact = (text: string) => matcher.replace(text, '*****');

describe('a secret in every spelling it takes on its way out', () => {
  it.each([
    ['raw', SECRET],
    ['encodeURIComponent', encodeURIComponent(SECRET)],
    ['encodeURIComponent, lower-case hex', encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())],
    ['form encoding (URLSearchParams, space as +)', new URLSearchParams({ q: SECRET }).toString().slice(2)],
    ['the WHATWG URL serializer of a query', new URL(`http://h/?${SECRET}`).search.slice(1)],
    ['encodeURI', encodeURI(SECRET)],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(SECRET))],
    ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
    ['JSON-escaped with \\/ and \\u escapes (ensure_ascii)', 'Se\\"cret H\\u00f6st\\/+1'],
    ['JSON-escaped then percent-encoded', encodeURIComponent(JSON.stringify(SECRET).slice(1, -1))],
    ['upper-cased', SECRET.toUpperCase()],
    ['lower-cased', SECRET.toLowerCase()],
    ['HTML character references', 'Se&quot;cret H&#246;st&#x2f;+1'],
  ])('%s', (_form, spelled) => {
    expect(redact(`before ${spelled} after`)).toBe('before ***** after');
  });

  it('a host name label: lower-cased, or punycode when not ASCII', () => {
    const host = secretMatcher(['ShopSecret', 'Bücher-Geheim'])!;
    expect(host.replace(new URL('https://ShopSecret.example.com/').href, '*****')).toBe('https://*****.example.com/');
    expect(host.replace(new URL('https://Bücher-Geheim.example.com/').href, '*****')).toBe('https://*****.example.com/');
    expect(host.replace('getaddrinfo ENOTFOUND shopsecret.invalid', '*****')).toBe('getaddrinfo ENOTFOUND *****.invalid');
  });

  it('leaves text without the secret alone, also near misses', () => {
    expect(redact('Se"cret Höst/+2 and %53e')).toBe('Se"cret Höst/+2 and %53e');
  });

  it('replaces longer secrets first, so one inside another is not half-revealed', () => {
    expect(secretMatcher(['abcd', 'abcd-efgh'])!.replace('x abcd-efgh y abcd', '#')).toBe('x # y #');
  });

  it('matches short secrets only as whole words when asked to', () => {
    const short = secretMatcher(['pw', 'long-secret'], { wholeWordBelow: 6 })!;
    expect(short.replace('pw=pw; pwd stays; xlong-secretx', '#')).toBe('#=#; pwd stays; x#x');
  });

  it('finds a cut tail in any spelling, a cut escape included', () => {
    const cut = secretMatcher(['abc/def'])!;
    expect(cut.cutTail('ends in abc/de')).toBe(8);
    expect(cut.cutTail('ends in abc%2Fd')).toBe(8);
    expect(cut.cutTail('ends in abc%2')).toBe(8);
    expect(cut.cutTail('ends in ABC\\/')).toBe(8);
    expect(cut.cutTail('ends in ab')).toBe(-1);
    expect(cut.cutTail('nothing here')).toBe(-1);
  });

  it('is undefined without a value to look for', () => {
    expect(secretMatcher(['', ''])).toBeUndefined();
  });

  it('spells a character raw, percent-encoded, JSON- and HTML-escaped', () => {
    expect(spellingsOf('/')).toEqual(expect.arrayContaining(['/', '%2F', '%252F', '\\/', '\\u002f', '&#47;', '&#x2f;', '%5C%2F']));
    expect(spellingsOf(' ')).toContain('+');
    expect(spellingsOf('é')).toEqual(expect.arrayContaining(['é', '%C3%A9', '\\u00e9']));
  });
});
