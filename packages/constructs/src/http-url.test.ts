import { describe, expect, it } from 'vitest';
import { isHttpUrl } from './http-url.js';

describe('isHttpUrl', () => {
  it.each([
    ['https://example.com/', true],
    ['http://127.0.0.1:8080/health?x=1', true],
    ['{{BASE_URL}}/health', true],
    ['{{ GROUP_BASE_URL }}', true],
    ['https://{{HOST}}/hook', true],
    ['https://api.example.com:{{PORT}}/{{PATH}}', true],
    ['https://{{SUBDOMAIN}}.example.com/', true],
    ['example.com/x', false],
    ['/relative/path', false],
    ['ftp://example.com/file', false],
    ['mailto:ops@example.com', false],
    ['https://', false],
    ['https://exa mple.com/', false],
    ['http{{S}}://example.com/', false],
  ])('%s → %s', (value, expected) => {
    expect(isHttpUrl(value)).toBe(expected);
  });
});
