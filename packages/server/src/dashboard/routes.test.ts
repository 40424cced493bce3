/**
 * The dashboard over HTTP against a real server: signing in and out, the session cookie's
 * attributes, a new session id at every sign-in, CSRF refusals, the sign-in rate limit, escaping of
 * every user text, and the pages' reads and writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_API_KEY, startTestServer, TEST_ACCOUNT, TEST_API_KEY, type TestApi } from '../test-support.js';
import { RESULTS_PER_PAGE } from './check-page.js';
import { CSRF_REFUSAL } from './web.js';
import { tooManySignInsMessage } from './sign-in.js';
import { CookieClient, FAILING_CHECK, hiddenToken, HOSTILE, PASSING_CHECK, startDashboardFixture, type DashboardFixture } from './test-fixture.js';

let fixture: DashboardFixture;
const client = () => new CookieClient(fixture.api.server.url);
async function signedIn(): Promise<CookieClient> {
  const browser = client();
  const answer = await browser.signIn(TEST_API_KEY);
  expect(answer.status).toBe(303);
  return browser;
}

/** A fresh service per group of tests: sign-ins from this one address count toward its limit (ten a minute). */
function withFixture(): void {
  beforeAll(async () => {
    fixture = await startDashboardFixture();
  });
  afterAll(async () => {
    await fixture?.api.close();
  });
}

describe('signing in', () => {
  withFixture();
  it('shows the sign-in form at / with a token cookie, and leaves API routes as they were', async () => {
    const browser = client();
    const form = await browser.get('/');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toMatch(/^text\/html/);
    expect(form.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(form.text).toContain('<form method="post" action="/dashboard/sign-in"');
    expect(browser.cookies.get('vigil_sign_in')).toBe(hiddenToken(form.text));
    const api = await fetch(`${fixture.api.server.url}/v1/checks`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ message: 'Missing authentication' });
  });

  it('sets an HttpOnly, SameSite=Strict session cookie, not Secure over plain http', async () => {
    const browser = client();
    const form = await browser.get('/');
    const answer = await browser.post('/dashboard/sign-in', { csrf: hiddenToken(form.text), apiKey: TEST_API_KEY });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/dashboard/checks');
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('vigil_session='))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).not.toMatch(/; Secure/);
    expect((await browser.get('/')).headers.get('location')).toBe('/dashboard/checks');
  });

  it('gives a new session id at every sign-in, and the old one is worth nothing', async () => {
    const browser = await signedIn();
    const first = browser.cookies.get('vigil_session')!;
    // A signed-in browser is sent on from `/`, so the second form comes from a fresh visit.
    const form = await client().get('/');
    browser.cookies.set('vigil_sign_in', hiddenToken(form.text));
    const again = await browser.post('/dashboard/sign-in', { csrf: hiddenToken(form.text), apiKey: TEST_API_KEY });
    expect(again.status).toBe(303);
    const second = browser.cookies.get('vigil_session')!;
    expect(second).not.toBe(first);
    const planted = client();
    planted.cookies.set('vigil_session', first);
    expect((await planted.get('/dashboard/checks')).status).toBe(303);
  });

  it('ignores a session id planted before sign-in', async () => {
    const browser = client();
    browser.cookies.set('vigil_session', 'chosen-by-an-attacker');
    await browser.signIn(TEST_API_KEY);
    expect(browser.cookies.get('vigil_session')).not.toBe('chosen-by-an-attacker');
  });

  it('refuses a wrong key with 401 and the form again, and never echoes the key', async () => {
    const browser = client();
    const answer = await browser.signIn('not-a-key-<b>');
    expect(answer.status).toBe(401);
    expect(answer.text).toContain('That API key is not known to this service.');
    expect(answer.text).not.toContain('not-a-key');
    expect(browser.cookies.has('vigil_session')).toBe(false);
  });

  it('refuses a sign-in without the form token with 403', async () => {
    const answer = await client().post('/dashboard/sign-in', { apiKey: TEST_API_KEY });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain(CSRF_REFUSAL);
  });

  it('signs out, after which the pages send the visitor to sign in', async () => {
    const browser = await signedIn();
    const page = await browser.get('/dashboard/checks');
    const out = await browser.post('/dashboard/sign-out', { csrf: hiddenToken(page.text) });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/');
    const after = await browser.get('/dashboard/checks');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/');
  });

  it('sends a visitor without a session from any page to sign in', async () => {
    const answer = await client().get(`/dashboard/checks/${FAILING_CHECK}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/');
  });
});

describe('CSRF', () => {
  withFixture();
  it('refuses a signed-in POST without the token with 403 and a page saying why', async () => {
    const browser = await signedIn();
    const answer = await browser.post(`/dashboard/incidents/${fixture.incidentId}/resolve`, { description: 'done' });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toContain('<h1>Form not accepted</h1>');
    expect(answer.text).toContain(CSRF_REFUSAL);
    const incident = await fixture.api.get(`/v1/status-pages/incidents/${fixture.incidentId}`);
    expect(incident.body.lastUpdateStatus).toBe('INVESTIGATING');
  });

  it('refuses another session’s token', async () => {
    const mine = await signedIn();
    const theirs = await signedIn();
    const token = hiddenToken((await theirs.get('/dashboard/checks')).text);
    const answer = await mine.post(`/dashboard/incidents/${fixture.incidentId}/updates`, { csrf: token, status: 'IDENTIFIED', description: 'x' });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain(CSRF_REFUSAL);
  });
});

describe('the sign-in rate limit', () => {
  it('answers the eleventh attempt in a minute from one address with 429, a Retry-After and a page saying when to retry', async () => {
    const api = await startTestServer();
    try {
      const browser = new CookieClient(api.server.url);
      for (let attempt = 1; attempt <= 10; attempt++) expect((await browser.signIn('wrong')).status).toBe(401);
      const limited = await browser.signIn(TEST_API_KEY);
      expect(limited.status).toBe(429);
      const seconds = Number(limited.headers.get('retry-after'));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(limited.text).toContain(tooManySignInsMessage(seconds));
      expect(tooManySignInsMessage(seconds)).toBe(`Too many sign-in attempts from this address. Try again in ${seconds} s.`);
    } finally {
      await api.close();
    }
  });
});

describe('the pages', () => {
  withFixture();
  let session: CookieClient;
  beforeAll(async () => {
    session = await signedIn();
  });
  it('lists the checks with their tags, every user text escaped', async () => {
    const browser = session;
    const page = await browser.get('/dashboard/checks');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Search API');
    expect(page.text).toContain('Checkout &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;Co&#39;');
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).not.toMatch(/<script>alert/);
    expect(page.text).toMatch(/<svg class="spark"[^>]*aria-label="Response time of Search API, last 24 hours: /);
  });

  it('searches by name and filters by tag and type', async () => {
    const browser = session;
    const searched = await browser.get('/dashboard/checks?q=search');
    expect(searched.text).toContain('Search API');
    expect(searched.text).not.toContain('Checkout');
    const tagged = await browser.get(`/dashboard/checks?tag=shop`);
    expect(tagged.text).toContain('Checkout');
    expect(tagged.text).not.toContain('Search API');
    const typed = await browser.get('/dashboard/checks?type=TCP');
    expect(typed.text).toContain('No checks match.');
  });

  it('lists incidents open or resolved, and a page past the last one empty', async () => {
    const browser = session;
    expect((await browser.get('/dashboard/incidents?state=open')).text).toContain('Checkout down &lt;script&gt;');
    expect((await browser.get('/dashboard/incidents?state=resolved')).text).toContain('No incidents.');
    const far = await browser.get('/dashboard/incidents?page=99999999999999999999');
    expect([far.status, far.text.includes('No incidents.')]).toEqual([200, true]);
    for (const id of ['unknown', 'x'.repeat(300)]) {
      const missing = await browser.get(`/dashboard/incidents/${id}`);
      expect([missing.status, missing.text.includes('This account has no such incident.')]).toEqual([404, true]);
    }
  });

  it('shows a check with its analytics summary, results, error group and incidents, escaped', async () => {
    const browser = session;
    const page = await browser.get(`/dashboard/checks/${FAILING_CHECK}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(HOSTILE);
    expect(page.text).toContain('<h2 id="analytics-title">Analytics</h2>');
    expect(page.text).toMatch(/Availability<\/th><td>75\.00 %/);
    expect(page.text).toContain('<span class="failed">Failed</span>');
    expect(page.text).toContain('Checkout down &lt;script&gt;');
    const json = await browser.get(`/dashboard/checks/${FAILING_CHECK}/analytics.json?range=last7Days`);
    const data = JSON.parse(json.text);
    expect(data.range).toBe('last7Days');
    expect(Object.keys(data.series)).toEqual(expect.arrayContaining(['responseTime_p50', 'responseTime_p95', 'responseTime_p99', 'availability', 'dns_avg']));
    expect(data.timestamps.length).toBe(data.series.availability.length);
    // A week is charted from hourly rollups, which keep no timing phases: the table says whose phases it shows.
    const week = await browser.get(`/dashboard/checks/${FAILING_CHECK}?range=last7Days`);
    expect(week.text).toMatch(/<th scope="row">DNS \(mean, since <time datetime="[^"]+">/);
    expect(page.text).toContain('<th scope="row">DNS (mean)</th>');
  });

  it('shows a result in full: assertion with its actual value, request, response, phases and log, escaped', async () => {
    const browser = session;
    const checkPage = await browser.get(`/dashboard/checks/${FAILING_CHECK}`);
    const link = /href="(\/dashboard\/checks\/[^"]+\/results\/[^"]+)"/.exec(checkPage.text)![1]!;
    const page = await browser.get(link);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<td><code>503<\/code><\/td><td><span class="failed">Failed<\/span>/);
    expect(page.text).toContain('GET https://shop.example.com/health');
    expect(page.text).toContain('Service Unavailable');
    expect(page.text).toContain('<dt>firstByte</dt><dd>80 ms</dd>');
    expect(page.text).toContain('down: &lt;script&gt;');
    expect(page.text).not.toContain(HOSTILE);
  });

  it('answers 404 pages for another account’s check and an unknown page', async () => {
    const other = new CookieClient(fixture.api.server.url);
    await other.signIn(OTHER_API_KEY);
    expect((await other.get(`/dashboard/checks/${PASSING_CHECK}`)).status).toBe(404);
    expect((await other.get('/dashboard/no-such-page')).status).toBe(404);
    const tooLong = await session.get(`/dashboard/checks/${'x'.repeat(300)}`);
    expect([tooLong.status, tooLong.text.includes('This account has no such check.')]).toEqual([404, true]);
    expect((await session.get(`/dashboard/checks/${'x'.repeat(300)}/analytics.json`)).status).toBe(404);
  });

  it('archives an error group through its form, and answers 404 for the group under another check', async () => {
    const browser = session;
    const page = await browser.get(`/dashboard/checks/${FAILING_CHECK}`);
    const action = /action="(\/dashboard\/checks\/[^"]+\/error-groups\/([^"/]+)\/archive)"/.exec(page.text)!;
    const groupId = decodeURIComponent(action[2]!);
    const elsewhere = await browser.post(`/dashboard/checks/${PASSING_CHECK}/error-groups/${action[2]}/archive`, { csrf: hiddenToken(page.text) });
    expect([elsewhere.status, elsewhere.text.includes('This check has no such error group.')]).toEqual([404, true]);
    expect((await fixture.api.get(`/v1/error-groups/${groupId}`)).body.archivedUntilNextEvent).toBe(false);
    const archived = await browser.post(action[1]!, { csrf: hiddenToken(page.text) });
    expect([archived.status, archived.headers.get('location')]).toEqual([303, `/dashboard/checks/${encodeURIComponent(FAILING_CHECK)}#errors-title`]);
    expect((await fixture.api.get(`/v1/error-groups/${groupId}`)).body.archivedUntilNextEvent).toBe(true);
  });

  it('posts an incident update and resolves the incident through forms', async () => {
    const browser = session;
    const page = await browser.get(`/dashboard/incidents/${fixture.incidentId}`);
    expect(page.text).toContain('Checkout down &lt;script&gt;');
    expect(page.text).toContain('Looking into it &lt;script&gt;');
    const csrf = hiddenToken(page.text);
    const posted = await browser.post(`/dashboard/incidents/${fixture.incidentId}/updates`, { csrf, status: 'IDENTIFIED', description: `Found ${HOSTILE}` });
    expect(posted.status).toBe(303);
    const empty = await browser.post(`/dashboard/incidents/${fixture.incidentId}/updates`, { csrf, status: 'IDENTIFIED', description: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('An update needs a text and one of the statuses Investigating, Identified, Monitoring or Resolved.');
    const resolved = await browser.post(`/dashboard/incidents/${fixture.incidentId}/resolve`, { csrf, description: 'Fixed.' });
    expect(resolved.status).toBe(303);
    const incident = await fixture.api.get(`/v1/status-pages/incidents/${fixture.incidentId}`);
    expect(incident.body.lastUpdateStatus).toBe('RESOLVED');
    expect(incident.body.incidentUpdates.map((update: { description: string }) => update.description)).toEqual([`Looking into it ${HOSTILE}`, `Found ${HOSTILE}`, 'Fixed.']);
    const after = await browser.get(`/dashboard/incidents/${fixture.incidentId}`);
    expect(after.text).not.toContain(HOSTILE);
    expect(after.text).not.toContain('Resolve incident');
  });

  it('lists maintenance windows, alert channels and status pages read-only, saying which project state holds them', async () => {
    await fixture.api.post('/v1/maintenance-windows', { name: `Upgrade ${HOSTILE}`, tags: ['shop'], startsAt: '2030-01-01T00:00:00.000Z', endsAt: '2030-01-01T01:00:00.000Z', repeatUnit: 'DAY' });
    const browser = session;
    const windows = await browser.get('/dashboard/maintenance-windows');
    expect(windows.text).toContain('Upgrade &lt;script&gt;');
    expect(windows.text).toContain('not in a project state on this service');
    expect((await browser.get('/dashboard/alert-channels')).status).toBe(200);
    expect((await browser.get('/dashboard/status-pages')).status).toBe(200);
  });
});

describe('a check with more results than a page', () => {
  const CHECK = '0d0a0000-0000-4000-8000-000000000003';
  const STORED = RESULTS_PER_PAGE + 5;
  // Newest first, as the page lists them: one a minute, the newest a minute ago.
  const times = Array.from({ length: STORED }, (_, index) => new Date(Date.now() - (index + 1) * 60_000).toISOString());
  let api: TestApi;
  let browser: CookieClient;
  beforeAll(async () => {
    const checkResults = times.map((created_at, index) => ({ checkId: CHECK, created_at, hasFailures: false, resultType: 'FINAL', runLocation: 'eu-west-1', responseTime: 100 + index }));
    const checks = [{ id: CHECK, checkType: 'API', name: 'Paged', request: { url: 'https://paged.example.com' }, activated: false }];
    api = await startTestServer({ seed: { accounts: [{ accountId: TEST_ACCOUNT, checks, checkResults }] } });
    browser = new CookieClient(api.server.url);
    expect((await browser.signIn(TEST_API_KEY)).status).toBe(303);
  });
  afterAll(async () => {
    await api?.close();
  });

  /** The results a page lists: each one's link and time, in the page's order. */
  const listed = (page: string) => [...page.matchAll(/<a href="([^"]+\/results\/[^"]+)"><time datetime="([^"]+)"/g)].map((match) => ({ link: match[1]!, at: match[2]! }));

  it('pages its results newest first by page number, with links to the newer and the older page', async () => {
    const first = await browser.get(`/dashboard/checks/${CHECK}`);
    expect(listed(first.text).map((row) => row.at)).toEqual(times.slice(0, RESULTS_PER_PAGE));
    expect([first.text.includes('rel="prev"'), /page=2#results" rel="next"/.test(first.text)]).toEqual([false, true]);
    const second = await browser.get(`/dashboard/checks/${CHECK}?page=2`);
    expect(listed(second.text).map((row) => row.at)).toEqual(times.slice(RESULTS_PER_PAGE));
    expect([/page=1#results" rel="prev"/.test(second.text), second.text.includes('rel="next"')]).toEqual([true, false]);
    const past = await browser.get(`/dashboard/checks/${CHECK}?page=3`);
    expect([past.status, past.text.includes('No results stored.'), listed(past.text)]).toEqual([200, true, []]);
  });

  it('shows a listed result, and the 404 page for an unknown, an over-long or another check\'s result id', async () => {
    const [newest] = listed((await browser.get(`/dashboard/checks/${CHECK}`)).text);
    const shown = await browser.get(newest!.link);
    expect([shown.status, shown.text.includes('<h1>Result of Paged</h1>')]).toEqual([200, true]);
    const resultId = newest!.link.split('/').pop()!;
    for (const path of [`/dashboard/checks/${CHECK}/results/unknown`, `/dashboard/checks/${CHECK}/results/${'x'.repeat(300)}`, `/dashboard/checks/${PASSING_CHECK}/results/${resultId}`, `/dashboard/checks/${'x'.repeat(300)}/results/${resultId}`]) {
      const missing = await browser.get(path);
      expect([path, missing.status, missing.text.includes('This check has no such result.')]).toEqual([path, 404, true]);
    }
  });
});
