import { describe, expect, it } from 'vitest';
import { html } from './html.js';
import { IDLE_MS, LIFETIME_MS, sameToken, SessionStore } from './sessions.js';

describe('sessions', () => {
  it('opens each session under a new random id with its own CSRF token, the key’s first account chosen', () => {
    const sessions = new SessionStore();
    const a = sessions.create(['acme', 'globex'], 0);
    const b = sessions.create(['acme'], 0);
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.session.csrfToken).not.toBe(b.session.csrfToken);
    expect(sessions.get(a.id, 1)?.accountId).toBe('acme');
  });

  it('ends a session after its idle time, after its lifetime however busy, and at sign-out', () => {
    const sessions = new SessionStore();
    const idle = sessions.create(['acme'], 0);
    expect(sessions.get(idle.id, IDLE_MS - 1)).toBeDefined();
    expect(sessions.get(idle.id, 2 * IDLE_MS - 2)).toBeDefined();
    expect(sessions.get(idle.id, 3 * IDLE_MS)).toBeUndefined();
    const busy = sessions.create(['acme'], 0);
    for (let at = 0; at < LIFETIME_MS; at += IDLE_MS / 2) sessions.get(busy.id, at);
    expect(sessions.get(busy.id, LIFETIME_MS)).toBeUndefined();
    const ended = sessions.create(['acme'], 0);
    sessions.end(ended.id);
    expect(sessions.get(ended.id, 1)).toBeUndefined();
  });

  it('holds neither the cookie’s id nor an API key in what it keeps', () => {
    const sessions = new SessionStore();
    const { id, session } = sessions.create(['acme'], 0);
    expect(JSON.stringify(session)).not.toContain(id);
    expect(Object.keys(session).sort()).toEqual(['accountId', 'accountIds', 'createdMs', 'csrfToken', 'lastSeenMs']);
  });

  it('compares tokens exactly, refusing missing and empty ones', () => {
    expect(sameToken('abc', 'abc')).toBe(true);
    expect(sameToken('abc', 'abd')).toBe(false);
    expect(sameToken('abc', '')).toBe(false);
    expect(sameToken('abc', null)).toBe(false);
    expect(sameToken('abc', undefined)).toBe(false);
  });
});

describe('the HTML template', () => {
  it('escapes every interpolated value and keeps nested templates as markup', () => {
    const name = `<script>alert("x")</script> & 'Co'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;</p>',
    );
    expect(html`<ul>${['<a>', 'b'].map((item) => html`<li>${item}</li>`)}</ul>`.text).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>');
    expect(html`${false}${null}${undefined}${0}`.text).toBe('0');
  });
});
