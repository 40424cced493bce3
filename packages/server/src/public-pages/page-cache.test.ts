import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_AGE_MS, RenderedPageCache } from './page-cache.js';

function cacheWith(state: { revision: number; nowMs: number }) {
  let renders = 0;
  const cache = new RenderedPageCache(() => state.nowMs);
  const visit = (key = 'acme') => {
    const fingerprint = String(state.revision);
    const kept = cache.kept(key, fingerprint);
    if (kept) return kept;
    renders++;
    return cache.keep(key, fingerprint, { html: `<p>${'rendered '.repeat(200)}${renders}</p>`, policy: "default-src 'self'" });
  };
  return { visit, renders: () => renders };
}

describe('RenderedPageCache', () => {
  it('answers visitors from one rendering while nothing was written and it is younger than its maximum age', () => {
    const state = { revision: 1, nowMs: 1_000_000 };
    const { visit, renders } = cacheWith(state);
    const first = visit();
    state.nowMs += MAX_AGE_MS - 1;
    expect(visit()).toBe(first);
    expect(renders()).toBe(1);
  });

  it('renders again once the rendering is as old as its maximum age: check states move without a write', () => {
    const state = { revision: 1, nowMs: 1_000_000 };
    const { visit, renders } = cacheWith(state);
    visit();
    state.nowMs += MAX_AGE_MS;
    expect(visit().html).toContain('rendered 2');
    expect(renders()).toBe(2);
  });

  it('renders again at once after a write to what a page shows', () => {
    const state = { revision: 1, nowMs: 1_000_000 };
    const { visit, renders } = cacheWith(state);
    visit();
    state.revision = 2;
    expect(visit().html).toContain('rendered 2');
    expect(renders()).toBe(2);
  });

  it('renders again when the clock went backwards rather than keep a page from the future', () => {
    const state = { revision: 1, nowMs: 1_000_000 };
    const { visit, renders } = cacheWith(state);
    visit();
    state.nowMs -= 1;
    visit();
    expect(renders()).toBe(2);
  });

  it('keeps each page apart', () => {
    const state = { revision: 1, nowMs: 1_000_000 };
    const { visit, renders } = cacheWith(state);
    visit('acme');
    visit('globex');
    visit('acme');
    expect(renders()).toBe(2);
  });

  it('gzips a rendering once, and not at all when it is too small to gain', () => {
    const page = { html: `<p>${'x'.repeat(5000)}</p>`, policy: '' };
    const zipped = RenderedPageCache.gzipped(page);
    expect(zipped).not.toBeNull();
    expect(RenderedPageCache.gzipped(page)).toBe(zipped);
    expect(gunzipSync(zipped!).toString('utf8')).toBe(page.html);
    expect(RenderedPageCache.gzipped({ html: '<p>short</p>', policy: '' })).toBeNull();
  });
});
