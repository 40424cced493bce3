import { describe, expect, it } from 'vitest';
import { escapeMarkup, webUrl } from './escape.js';

describe('escapeMarkup', () => {
  it.each([
    ['a script tag', '<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['an attribute break-out with double quotes', '" onmouseover="alert(1)', '&quot; onmouseover=&quot;alert(1)'],
    ['an attribute break-out with single quotes', "' autofocus onfocus='x", '&#39; autofocus onfocus=&#39;x'],
    ['an entity that must stay text', '&lt;b&gt; &amp;', '&amp;lt;b&amp;gt; &amp;amp;'],
    ['a CDATA end in a feed', ']]><evil/>', ']]&gt;&lt;evil/&gt;'],
    ['control characters XML forbids', 'a\u0000b\u001Bc\tok\n', 'a\uFFFDb\uFFFDc\tok\n'],
    ['a lone surrogate', 'x\uD800y', 'x\uFFFDy'],
    ['a pair of surrogates, kept', 'ok 😀', 'ok 😀'],
    ['a number', 42, '42'],
  ])('makes %s inert', (_name, input, expected) => {
    expect(escapeMarkup(input)).toBe(expected);
  });
});

describe('webUrl', () => {
  it.each([
    ['https://acme.test/logo.png', 'https://acme.test/logo.png'],
    ['http://acme.test/x', 'http://acme.test/x'],
    ['javascript:alert(1)', undefined],
    ['data:image/svg+xml,<svg/>', undefined],
    ['not a url', undefined],
    [null, undefined],
  ])('%s → %s', (input, expected) => {
    expect(webUrl(input)?.href).toBe(expected);
  });
});
