import { describe, expect, it } from 'vitest';
import { oneLine, redact, registerSecrets } from './errors.js';

registerSecrets(['Long-Secret-Value', 'pw', 'a"b\\c-quoted', '', undefined, 42]);

describe('redact', () => {
  it.each([
    ['a secret anywhere in the text', 'sent {"password":"long-secret-value"}', 'sent {"password":"(redacted)"}'],
    ['a short secret only as a whole word', 'pw=pw; pwd stays', '(redacted)=(redacted); pwd stays'],
    ['a secret as an echoed JSON body writes it', '{"value":"a\\"b\\\\c-quoted"}', '{"value":"(redacted)"}'],
    ['a secret percent-encoded in an echoed URL', 'GET /x?k=a%22b%5Cc-quoted&v=long-secret-value', 'GET /x?k=(redacted)&v=(redacted)'],
    ['a secret lower-cased in a host name', 'getaddrinfo ENOTFOUND long-secret-value.example', 'getaddrinfo ENOTFOUND (redacted).example'],
    ['any Bearer credential', 'authorization: Bearer sk_live_123', 'authorization: Bearer (redacted)'],
    ['terminal escapes, as visible escapes', 'name \u001b[2Jred\u0007', 'name \\u001b[2Jred\\u0007'],
    ['nothing else, line breaks included', 'line one\nline two', 'line one\nline two'],
  ])('removes %s', (_, text, expected) => {
    expect(redact(text)).toBe(expected);
  });
});

describe('oneLine', () => {
  it('also escapes line breaks, so a remote name cannot forge a line of output', () => {
    expect(oneLine('name\nforged line\u001b[2J')).toBe('name\\nforged line\\u001b[2J');
  });
});
