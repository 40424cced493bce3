/**
 * The signed-in dashboard and a public status page at size, served by `vigil server` in its own
 * process from an on-disk database (test/bench/lib/dashboard-seed.ts builds the data set):
 * - the checks list of 10,000 checks: page 1, a deep page, a state filter, a name search;
 * - the page of a check with a month of results at one a minute (43,200), and its 30-day chart data;
 * - a status page of 20 services with 90 days of uptime bars and six incidents: time and size, as
 *   kept between visitors and rendered afresh for the first visitor after a change, and the
 *   service's CPU per visit (from /proc, so it does not depend on what else the machine runs);
 * - first contentful paint of the checks list in Chromium, each load in a fresh browser context
 *   (nothing cached), already signed in.
 * Two times per request: the server's time, which the goals name, as the service itself logs it
 * (`--request-log`'s `ms`: arrival to response ready), and the wall time at this client from the request
 * to the last byte of the body over loopback with a kept-alive connection, which adds the round trip,
 * the client's own parsing and collections, and the machine's scheduling of two processes. Each run
 * takes SAMPLES requests of each page after WARM_UP unmeasured ones and reports their p50 and p99;
 * the table shows the median run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { median, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { signInToDashboard } from '../lib/dashboard-session.js';
import { cpuMsOf } from '../lib/scheduled-checks.js';
import { API_KEY, CHECKS, MONTH_RESULTS, NAME_WORDS, SERVICES, STATUS_PAGE_URL, seedStore, seedThroughApi } from '../lib/dashboard-seed.js';
import { startServiceProcess } from '../lib/service-process.js';

const SAMPLES = 100;
const WARM_UP = 3;
const PAINTS_PER_RUN = 5;
/** Visits of the status page per run that each follow an incident update (so each renders afresh). */
const FRESH_RENDERS = 20;
const CHROMIUM = process.env['VIGIL_CHROMIUM_PATH'] ?? '/usr/bin/chromium';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The service's `--request-log`, read as it grows: the `ms` of the GETs of one path logged since the
 * last read.
 */
class ServerTimes {
  #offset = 0;
  constructor(private readonly file: string) {}

  /** Leaves out what was logged so far. */
  skipLogged(): void {
    this.#offset = readFileSync(this.file).byteLength;
  }

  /** The `ms` of the last `count` GETs of `pagePath` (its query string left out, as the log does) logged since the previous call. */
  take(pagePath: string, count: number): number[] {
    const text = readFileSync(this.file);
    const fresh = text.subarray(this.#offset).toString('utf8');
    this.#offset = text.byteLength;
    const wanted = pagePath.split('?')[0];
    const times = fresh
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { method: string; path: string; ms: number })
      .filter((entry) => entry.method === 'GET' && entry.path === wanted)
      .map((entry) => entry.ms);
    if (times.length < count) throw new Error(`dashboard: the request log has ${times.length} GETs of ${wanted} since the last read, not ${count}`);
    return times.slice(-count);
  }
}

interface Timed {
  readonly p50: number;
  readonly p99: number;
  /** The same requests' server time, from the service's request log. */
  readonly serverP50: number;
  readonly serverP99: number;
  readonly bytes: number;
  /** The last answer's body. */
  readonly body: string;
}

/** SAMPLES sequential GETs of `url` (after the warm-up), each checked for a 200 and `mustContain`. */
async function timeGets(url: string, headers: Record<string, string>, mustContain: string, serverTimes: ServerTimes): Promise<Timed> {
  serverTimes.skipLogged();
  const times: number[] = [];
  let bytes = 0;
  let last = '';
  for (let index = 0; index < WARM_UP + SAMPLES; index++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200 || !body.includes(mustContain)) throw new Error(`dashboard: GET ${url} answered ${response.status} without "${mustContain}": ${body.slice(0, 300)}`);
    bytes = Buffer.byteLength(body);
    last = body;
    if (index >= WARM_UP) times.push(elapsed);
  }
  const server = serverTimes.take(new URL(url).pathname, SAMPLES);
  return { p50: percentile(times, 50), p99: percentile(times, 99), serverP50: percentile(server, 50), serverP99: percentile(server, 99), bytes, body: last };
}

/**
 * FRESH_RENDERS visits of the status page, each right after an incident update dropped the kept
 * page: the time of the visit alone, and the service's CPU for the visit alone (its CPU over the
 * update is read before and left out).
 */
async function timeFreshRenders(base: string, pagePath: string, incidentId: string, pid: number, serverTimes: ServerTimes): Promise<{ p50: number; p99: number; serverP99: number; cpuMsPerVisit: number }> {
  const times: number[] = [];
  const server: number[] = [];
  let cpuMs = 0;
  for (let index = 0; index < FRESH_RENDERS; index++) {
    const update = await fetch(`${base}/v1/status-pages/incidents/${incidentId}/incident-updates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ description: `Still watching the replica (${index + 1}).`, status: 'MONITORING' }),
    });
    if (update.status !== 200) throw new Error(`dashboard: posting an incident update answered ${update.status}: ${(await update.text()).slice(0, 300)}`);
    await update.text();
    const cpuBefore = cpuMsOf(pid);
    const started = performance.now();
    const response = await fetch(`${base}${pagePath}`, { headers: { accept: 'text/html' } });
    const body = await response.text();
    times.push(performance.now() - started);
    cpuMs += cpuMsOf(pid) - cpuBefore;
    if (response.status !== 200 || !body.includes(`Still watching the replica (${index + 1}).`)) throw new Error(`dashboard: the status page after update ${index + 1} answered ${response.status} without it`);
    server.push(...serverTimes.take(pagePath, 1));
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), serverP99: percentile(server, 99), cpuMsPerVisit: cpuMs / FRESH_RENDERS };
}

/** The bytes of `url`'s body as sent (fetch would decode a gzipped one), asking for gzip as browsers do. */
function bytesOnTheWire(url: string, headers: Record<string, string>): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { ...headers, 'accept-encoding': 'gzip, deflate, br' } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      response.on('end', () => resolve({ bytes, encoding: String(response.headers['content-encoding'] ?? 'identity') }));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * The page's first-contentful-paint entry, waited for: the load event can come before the first
 * paint. Text, as this file compiles without the DOM's types; -1 when none comes within 10 s.
 */
const FIRST_CONTENTFUL_PAINT = `new Promise((resolve) => {
  new PerformanceObserver((list) => {
    const entry = list.getEntriesByName('first-contentful-paint')[0];
    if (entry) resolve(entry.startTime);
  }).observe({ type: 'paint', buffered: true });
  setTimeout(() => resolve(-1), 10000);
})`;

/** First contentful paint of `url` in a fresh context holding only the session cookie, in ms from navigation start. */
async function firstContentfulPaints(baseUrl: string, pagePath: string, cookies: ReadonlyArray<{ name: string; value: string }>): Promise<number[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const paints: number[] = [];
    for (let index = 0; index < PAINTS_PER_RUN; index++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addCookies(cookies.map(({ name, value }) => ({ name, value, url: baseUrl })));
      const page = await context.newPage();
      await page.goto(`${baseUrl}${pagePath}`, { waitUntil: 'load' });
      if (!(await page.title()).startsWith('Checks')) throw new Error(`dashboard: ${pagePath} in Chromium showed "${await page.title()}", not the checks list`);
      const paint = (await page.evaluate(FIRST_CONTENTFUL_PAINT)) as number;
      if (paint < 0) throw new Error('dashboard: Chromium recorded no first-contentful-paint for the checks list within 10 s');
      paints.push(paint);
      await context.close();
    }
    return paints;
  } finally {
    await browser.close();
  }
}

export const suite: BenchSuite = {
  name: 'dashboard',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    if (!existsSync(CHROMIUM)) throw new Error(`dashboard: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set VIGIL_CHROMIUM_PATH)`);
    const dataDir = path.join(context.tmpDir, 'data');
    let service = await startServiceProcess({ dataDir, apiKey: API_KEY });
    let seeded;
    try {
      context.log('dashboard: creating the measured check, 20 services with their checks, a status page and incidents through the API');
      seeded = await seedThroughApi(service.url);
    } finally {
      await service.stop();
    }
    const seedStarted = performance.now();
    await seedStore(dataDir, seeded, Date.now(), context.log);
    context.log(`dashboard: data set stored in ${Math.round((performance.now() - seedStarted) / 1000)} s`);

    const requestLog = path.join(context.tmpDir, 'requests.jsonl');
    service = await startServiceProcess({ dataDir, apiKey: API_KEY, requestLog });
    const serverTimes = new ServerTimes(requestLog);
    try {
      const session = await signInToDashboard(service.url, API_KEY);
      const signedIn = { cookie: session.cookieHeader, accept: 'text/html' };
      const base = service.url;
      const check = `/dashboard/checks/${seeded.chartedCheckId}`;
      const pages = {
        first: { path: '/dashboard/checks', contains: 'Page 1 of 200' },
        deep: { path: '/dashboard/checks?page=150', contains: 'Page 150 of 200' },
        failing: { path: '/dashboard/checks?state=failing', contains: 'Page 1 of' },
        passing: { path: '/dashboard/checks?state=passing', contains: 'Page 1 of' },
        search: { path: `/dashboard/checks?q=${NAME_WORDS[0]}`, contains: 'Page 1 of' },
        check: { path: `${check}?range=last30Days`, contains: 'Last 30 days' },
        chart: { path: `${check}/analytics.json?range=last30Days`, contains: '"timestamps"' },
        status: { path: `/status/${STATUS_PAGE_URL}`, contains: 'Bench status' },
        // The control: the service's cheapest answer, timed the same way. Its p99 is what this
        // machine adds to any request (scheduling, collections in either process), not a page's work.
        health: { path: '/healthz', contains: '"UP"' },
      } as const;
      type PageName = keyof typeof pages;
      const measured = Object.fromEntries(Object.keys(pages).map((name) => [name, [] as Timed[]])) as Record<PageName, Timed[]>;
      const paints: number[] = [];
      const statusSent: Array<{ bytes: number; encoding: string }> = [];
      const statusCpuPerVisit: number[] = [];
      const fresh: Array<{ p50: number; p99: number; serverP99: number; cpuMsPerVisit: number }> = [];
      const pid = service.pid!;
      for (let run = 0; run < context.runs; run++) {
        statusSent.push(await bytesOnTheWire(`${base}${pages.status.path}`, { accept: 'text/html' }));
        for (const [name, { path: pagePath, contains }] of Object.entries(pages) as Array<[PageName, { path: string; contains: string }]>) {
          const cpuBefore = cpuMsOf(pid);
          // The status page is public: asked for as a visitor asks, without the dashboard's cookie.
          measured[name].push(await timeGets(`${base}${pagePath}`, name === 'status' || name === 'health' ? { accept: 'text/html' } : signedIn, contains, serverTimes));
          if (name === 'status') statusCpuPerVisit.push((cpuMsOf(pid) - cpuBefore) / (WARM_UP + SAMPLES));
        }
        fresh.push(await timeFreshRenders(base, pages.status.path, seeded.openIncidentId, pid, serverTimes));
        paints.push(median(await firstContentfulPaints(base, pages.first.path, session.cookies)));
        context.log(`dashboard: run ${run + 1} of ${context.runs} done`);
      }

      const listNote = `${CHECKS.toLocaleString('en-US')} checks (2 % failing, 1 % degraded, 1 % never run; 6 results each in the last day for the sparklines), 50 a page, signed in; ${SAMPLES} sequential requests per run after ${WARM_UP} unmeasured`;
      const listGoal = { text: 'p99 ≤ 100 ms', met: (value: number) => value <= 100 };
      const checkGoal = { text: '≤ 300 ms', met: (value: number) => value <= 300 };
      const figures: BenchFigure[] = [];
      // The goals name the server's time; the client's wall time is kept beside it, without a goal.
      const timing = (id: PageName, label: string, note: string, goal?: { text: string; met: (value: number) => boolean }) => {
        figures.push({ id: `dashboard.${id}-server-p50`, label: `${label}, server time p50`, unit: 'ms', better: 'lower', runs: measured[id].map((timed) => timed.serverP50), note });
        figures.push({ id: `dashboard.${id}-server-p99`, label: `${label}, server time p99`, unit: 'ms', better: 'lower', runs: measured[id].map((timed) => timed.serverP99), note, ...(goal ? { goal } : {}) });
        figures.push({ id: `dashboard.${id}-p50`, label: `${label}, wall time at the client p50`, unit: 'ms', better: 'lower', runs: measured[id].map((timed) => timed.p50), note });
        figures.push({ id: `dashboard.${id}-p99`, label: `${label}, wall time at the client p99`, unit: 'ms', better: 'lower', runs: measured[id].map((timed) => timed.p99), note });
      };
      /** How many checks a list page says match, from its pager ("Page 1 of 4 · 200 checks"). */
      const matching = (name: PageName) => (/· (\d+) checks?/.exec(measured[name][0]!.body)?.[1] ?? '?').replace(/\B(?=(\d{3})+$)/g, ',');
      const kb = (bytes: number) => `${Math.round(bytes / 1000).toLocaleString('en-US')} KB`;
      timing('first', 'checks list, page 1 unfiltered', `${listNote}; ${kb(measured.first[0]!.bytes)} of HTML`, listGoal);
      timing('deep', 'checks list, page 150 of 200', listNote, listGoal);
      timing('failing', `checks list, state filter "failing" (${matching('failing')} match)`, listNote, listGoal);
      timing('passing', `checks list, state filter "passing" (${matching('passing')} match)`, listNote, listGoal);
      timing('search', `checks list, name search "${NAME_WORDS[0]}" (${matching('search')} match)`, listNote, listGoal);
      const monthNote = `one API check with ${MONTH_RESULTS.toLocaleString('en-US')} results (one a minute for 30 days, two locations), range last30Days; ${SAMPLES} requests per run`;
      timing('check', 'check page, 30 days of results', `${monthNote}; ${kb(measured.check[0]!.bytes)} of HTML`, checkGoal);
      timing('chart', 'check page chart data (analytics.json), 30 days', `${monthNote}; ${kb(measured.chart[0]!.bytes)} of JSON`, checkGoal);
      const statusNote = `${SERVICES} services in two cards, each with a linked check with 90 days of hourly results, 6 incidents; public, no cookie; ${SAMPLES} requests per run`;
      timing('health', 'control: GET /healthz (the service\'s cheapest answer, timed the same way)', `${SAMPLES} sequential requests per run after ${WARM_UP} unmeasured; what the machine adds to any request`);
      timing('status', 'public status page', statusNote, { text: 'p99 ≤ 50 ms', met: (value) => value <= 50 });
      figures.push({ id: 'dashboard.status-cpu', label: "public status page, the service's CPU per visit", unit: 'ms', better: 'lower', runs: statusCpuPerVisit, note: `${statusNote}; utime + stime of the service process over the run's visits (10 ms ticks), divided by them` });
      const freshNote = `the same page, each visit right after an incident update (the kept page dropped, so it renders afresh); ${FRESH_RENDERS} visits per run, the update's own time and CPU left out`;
      figures.push({ id: 'dashboard.status-fresh-p50', label: 'public status page rendered afresh, p50', unit: 'ms', better: 'lower', runs: fresh.map((timed) => timed.p50), note: freshNote });
      figures.push({ id: 'dashboard.status-fresh-server-p99', label: 'public status page rendered afresh, server time p99', unit: 'ms', better: 'lower', runs: fresh.map((timed) => timed.serverP99), note: freshNote, goal: { text: 'p99 ≤ 50 ms', met: (value) => value <= 50 } });
      figures.push({ id: 'dashboard.status-fresh-p99', label: 'public status page rendered afresh, wall time at the client p99', unit: 'ms', better: 'lower', runs: fresh.map((timed) => timed.p99), note: freshNote });
      figures.push({ id: 'dashboard.status-fresh-cpu', label: "public status page rendered afresh, the service's CPU per visit", unit: 'ms', better: 'lower', runs: fresh.map((timed) => timed.cpuMsPerVisit), note: freshNote });
      figures.push({ id: 'dashboard.status-html-bytes', label: 'public status page, HTML bytes', unit: 'KB', better: 'lower', runs: measured.status.map((timed) => timed.bytes / 1000), note: statusNote, goal: { text: '≤ 200 KB', met: (value) => value <= 200 } });
      figures.push({
        id: 'dashboard.status-bytes',
        label: `public status page, bytes transferred (asked for with accept-encoding gzip; sent ${statusSent[0]!.encoding})`,
        unit: 'KB',
        better: 'lower',
        runs: statusSent.map((sent) => sent.bytes / 1000),
        note: statusNote,
        goal: { text: '≤ 200 KB', met: (value) => value <= 200 },
      });
      figures.push({
        id: 'dashboard.list-fcp',
        label: 'first contentful paint of the checks list in Chromium',
        unit: 'ms',
        better: 'lower',
        runs: paints,
        note: `page 1 of ${CHECKS.toLocaleString('en-US')} checks, 1280×800, a fresh context per load (cold cache), signed in; median of ${PAINTS_PER_RUN} loads per run; Debian's Chromium, headless`,
        goal: { text: '≤ 1 s', met: (value) => value <= 1000 },
      });
      return figures;
    } finally {
      await service.stop();
    }
  },
};
