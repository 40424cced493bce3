/** The public status page over plain HTTP against a real server: no API key, states, bars, feeds, 404s. */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { at, HOSTILE, startPageFixture, type PageFixture } from './test-fixture.js';

let fixture: PageFixture;
beforeAll(async () => {
  fixture = await startPageFixture();
});
afterAll(async () => {
  await fixture.api.close();
});

/** A GET without an API key, as a visitor's browser sends it; through node:http, since fetch cannot set Host. */
function visit(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${fixture.api.server.url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') received.set(name, value);
        const body = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, headers: received, text: body.toString('utf8'), body });
      });
    });
    request.on('error', reject);
  });
}

describe('GET /status/{url}', () => {
  it('serves the page without an API key, with a policy allowing nothing from elsewhere', async () => {
    const page = await visit('/status/acme');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'; img-src 'self';/);
    expect(page.text).not.toMatch(/<script/i);
  });

  it('sends the page gzipped to a client that accepts gzip, as it is to one that does not', async () => {
    const plain = await visit('/status/acme');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/accept-encoding/i);
    const zipped = await visit('/status/acme', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(zipped.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    expect(Number(zipped.headers.get('content-length'))).toBe(zipped.body.byteLength);
    expect(zipped.body.byteLength).toBeLessThan(plain.body.byteLength / 4);
    // The footer's time may move on between the two requests.
    const withoutTime = (html: string) => html.replace(/<span>Updated <time[^]*?<\/time><\/span>/, '');
    expect(withoutTime(gunzipSync(zipped.body).toString('utf8'))).toBe(withoutTime(plain.text));
    expect((await visit('/status/acme', { 'accept-encoding': 'gzip;q=0' })).headers.get('content-encoding')).toBeNull();
  });

  it('escapes every stored name: a hostile service, card, page name and update text stay text', async () => {
    const { text } = await visit('/status/acme');
    expect(text).not.toContain('<script>alert');
    expect(text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;');
  });

  it('shows each service state: outage for a MAJOR open incident, maintenance for an active window, operational for none', async () => {
    const { text } = await visit('/status/acme');
    const stateOf = (name: string) => new RegExp(`service-name">${name}</span><span class="state (\\w+)"`).exec(text)?.[1];
    expect(stateOf('Shop')).toBe('outage');
    expect(stateOf('Search')).toBe('maintenance');
    expect(text).toMatch(/service-name">&lt;script.*?<span class="state operational"/);
  });

  it('labels each day bar: a result inside a maintenance window is left out, days without results say no data', async () => {
    const { text } = await visit('/status/acme');
    expect(text).toContain(`title="${at(3, 0).slice(0, 10)}: 100.00 % of 4 runs passed; maintenance excluded"`);
    expect(text).toContain(`title="${at(2, 0).slice(0, 10)}: 75.00 % of 4 runs passed"`);
    expect(text).toContain(`title="${at(4, 0).slice(0, 10)}: no data"`);
    expect(text.match(/role="img"/g)?.length).toBe(3 * 90);
  });

  it('lists the active incident with its updates newest first, the resolved one as past, and the upcoming maintenance', async () => {
    const { text } = await visit('/status/acme');
    const active = text.slice(text.indexOf('id="active"'), text.indexOf('id="services"'));
    expect(active).toContain('Checkout is failing');
    expect(active.indexOf('Found it')).toBeLessThan(active.indexOf('We are looking into it.'));
    expect(text.slice(text.indexOf('id="past"'))).toContain('Slow search results');
    const maintenance = text.slice(text.indexOf('id="maintenance"'), text.indexOf('id="past"'));
    expect(maintenance).toContain('Search reindex');
    expect(maintenance).toContain('Shop failover test');
    expect(maintenance).not.toContain('Shop database upgrade');
  });

  it('answers a page that does not exist with an HTML 404', async () => {
    const missing = await visit('/status/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(missing.text).toContain('Status page not found');
  });

  it('leaves the API closed: a POST to a public path still needs a key', async () => {
    const response = await fetch(`${fixture.api.server.url}/status/acme`, { method: 'POST' });
    expect(response.status).toBe(401);
  });
});

describe('custom domains', () => {
  it('serves the page at / when the Host is its custom domain (its port ignored)', async () => {
    const page = await visit('/', { host: 'status.acme.test:8080' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Checkout is failing');
  });

  it('leaves / on any other host to the dashboard\'s sign-in, and answers 404 for another page asked for on a custom domain', async () => {
    const elsewhere = await visit('/', { host: 'other.test' });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.text).toContain('<h1>Sign in to Vigil</h1>');
    const second = await fixture.api.post('/v1/status-pages', { name: 'Other', url: 'other-page', cards: [] });
    expect(second.status).toBe(201);
    expect((await visit('/status/other-page')).status).toBe(200);
    expect((await visit('/status/other-page', { host: 'status.acme.test' })).status).toBe(404);
    expect((await visit('/status/acme', { host: 'status.acme.test' })).status).toBe(200);
  });
});

describe('GET /status/{url}/summary.json', () => {
  it('has the shape of a Statuspage v2 summary', async () => {
    const reply = await visit('/status/acme/summary.json');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    const summary = JSON.parse(reply.text);
    expect(summary.page).toEqual({ id: fixture.pageId, name: `Acme ${HOSTILE}`, url: 'https://status.acme.test', time_zone: 'Etc/UTC', updated_at: expect.any(String) });
    expect(summary.status).toEqual({ indicator: 'major', description: 'Partial System Outage' });
    expect(summary.components.map((c: any) => [c.name, c.status])).toEqual([
      ['Shop', 'partial_outage'],
      ['Search', 'under_maintenance'],
      [HOSTILE, 'operational'],
    ]);
    expect(summary.incidents).toHaveLength(1);
    expect(summary.incidents[0]).toMatchObject({ name: 'Checkout is failing', status: 'identified', impact: 'major', resolved_at: null, page_id: fixture.pageId });
    expect(summary.incidents[0].incident_updates.map((u: any) => u.status)).toEqual(['identified', 'investigating']);
    expect(summary.incidents[0].components.map((c: any) => c.id)).toEqual([fixture.services.shop]);
    expect(summary.scheduled_maintenances.map((m: any) => [m.name, m.status, m.impact])).toEqual([
      ['Search reindex', 'in_progress', 'maintenance'],
      ['Shop failover test', 'scheduled', 'maintenance'],
    ]);
    expect(summary.scheduled_maintenances[1].scheduled_for).toBe(at(-2, 1));
  });

  it('answers a missing page with the JSON 404 of the API', async () => {
    const reply = await visit('/status/nope/summary.json');
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.text)).toEqual({ statusCode: 404, error: 'Not Found', message: 'Status page nope not found' });
  });
});

describe('GET /status/{url}/feed.atom', () => {
  it('is well-formed Atom: one entry per incident, names escaped', async () => {
    const reply = await visit('/status/acme/feed.atom');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/atom\+xml/);
    expect(reply.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"')).toBe(true);
    expect(wellFormed(reply.text)).toBe(true);
    expect(reply.text.match(/<entry>/g)).toHaveLength(2);
    expect(reply.text).toContain('<title>Acme &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39; status - incident history</title>');
    // The update text is escaped twice: once as HTML inside the content, once as XML around it.
    expect(reply.text).toContain('Found it: &amp;lt;script&amp;gt;');
  });
});

describe('GET /status/{url}/badge/{serviceId}.svg', () => {
  it('draws the state of a service on the page, and 404s for a service not on it', async () => {
    const badge = await visit(`/status/acme/badge/${fixture.services.shop}.svg`);
    expect(badge.status).toBe(200);
    expect(badge.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(badge.text).toContain('<title>Shop: outage</title>');
    expect(wellFormed(badge.text)).toBe(true);
    const hostile = await visit(`/status/acme/badge/${fixture.services.docs}.svg`);
    expect(hostile.text).not.toContain('<script>');
    expect(wellFormed(hostile.text)).toBe(true);
    expect((await visit('/status/acme/badge/00000000-0000-4000-8000-000000000000.svg')).status).toBe(404);
  });
});

// Last: these write to the fixture the tests above read.
describe('a page kept between visitors (page-cache.ts)', () => {
  it('shows an incident update, a renamed service and a new maintenance window at the very next visit', async () => {
    const zipped = { 'accept-encoding': 'gzip' };
    expect((await visit('/status/acme')).text).not.toContain('Deploying the fix');
    expect(gunzipSync((await visit('/status/acme', zipped)).body).toString('utf8')).not.toContain('Deploying the fix');

    const update = await fixture.api.post(`/v1/status-pages/incidents/${fixture.majorIncident}/incident-updates`, { description: 'Deploying the fix', status: 'MONITORING' });
    expect(update.status).toBe(200);
    expect((await visit('/status/acme')).text).toContain('Deploying the fix');
    expect(gunzipSync((await visit('/status/acme', zipped)).body).toString('utf8')).toContain('Deploying the fix');

    const renamed = await fixture.api.put(`/v1/status-pages/services/${fixture.services.search}`, { name: 'Product search' });
    expect(renamed.status).toBe(200);
    expect((await visit('/status/acme')).text).toContain('Product search');

    const window = await fixture.api.post('/v1/maintenance-windows', { name: 'Search cluster move', tags: ['search'], startsAt: at(-1, 1), endsAt: at(-1, 2), repeatUnit: 'DAY' });
    expect(window.status).toBe(201);
    expect((await visit('/status/acme')).text).toContain('Search cluster move');
  });

  it('shows an incident created at the very next visit, and drops it once deleted', async () => {
    expect((await visit('/status/acme')).text).not.toContain('Docs are unreachable');
    const created = await fixture.api.post('/v1/status-pages/incidents', {
      name: 'Docs are unreachable',
      severity: 'MINOR',
      services: [{ id: fixture.services.docs }],
      incidentUpdates: [{ description: 'Looking into it.', status: 'INVESTIGATING' }],
    });
    expect(created.status).toBe(201);
    expect((await visit('/status/acme')).text).toContain('Docs are unreachable');

    const deleted = await fixture.api.delete(`/v1/status-pages/incidents/${(created.body as { id: string }).id}`);
    expect(deleted.status).toBe(204);
    expect((await visit('/status/acme')).text).not.toContain('Docs are unreachable');
  });
});

/**
 * A small structural XML check (no DOM in Node): every tag closes in order, every `&` starts a
 * known entity, no `<` inside text or attribute values.
 */
function wellFormed(xml: string): boolean {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(body)) return false;
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|</g;
  for (const match of body.matchAll(tag)) {
    if (match[2] === undefined) return false;
    if (match[1]) {
      if (stack.pop() !== match[2]) return false;
    } else if (!match[4]) stack.push(match[2]);
  }
  return stack.length === 0;
}
