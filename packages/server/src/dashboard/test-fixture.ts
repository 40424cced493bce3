/**
 * For the dashboard's tests: a real service with checks, results, an error group and an incident
 * (results come from `--seed`, as the API has no write endpoint for them; everything else through
 * the API), and a small cookie-keeping HTTP client that uses the dashboard as a browser would.
 */
import type { ServerOptions } from '../start.js';
import { startTestServer, type TestApi } from '../test-support.js';

export const FAILING_CHECK = '0d0a0000-0000-4000-8000-000000000001';
export const PASSING_CHECK = '0d0a0000-0000-4000-8000-000000000002';
export const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)> & 'Co'`;

export interface DashboardFixture {
  readonly api: TestApi;
  readonly incidentId: string;
  readonly serviceId: string;
}

function result(checkId: string, minutesAgo: number, failed: boolean, extra: Record<string, unknown> = {}) {
  return {
    checkId,
    created_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    hasFailures: failed,
    resultType: 'FINAL',
    runLocation: 'eu-west-1',
    responseTime: 100 + (minutesAgo % 7) * 10,
    ...extra,
  };
}

const FAILED_API_RESULT = {
  assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', actual: 503, passed: false }],
  request: { method: 'GET', url: 'https://shop.example.com/health', data: '', headers: { accept: 'application/json' }, params: {} },
  response: { status: 503, statusText: 'Service Unavailable', body: `down: ${HOSTILE}`, headers: { 'content-type': 'text/plain' }, timings: {}, timingPhases: { wait: 1, dns: 5, tcp: 7, firstByte: 80, download: 3 } },
  requestError: null,
  jobLog: [{ time: '12:00:00', level: 'info', msg: `GET https://shop.example.com/health ${HOSTILE}` }],
  jobAssets: null,
};

export async function startDashboardFixture(options: ServerOptions = {}): Promise<DashboardFixture> {
  const seed = {
    accounts: [
      {
        accountId: 'acme',
        checks: [
          { id: FAILING_CHECK, checkType: 'API', name: `Checkout ${HOSTILE}`, request: { url: 'https://shop.example.com/health' }, tags: ['shop', HOSTILE], activated: false },
          { id: PASSING_CHECK, checkType: 'API', name: 'Search API', request: { url: 'https://search.example.com' }, tags: ['search'], activated: false },
        ],
        checkResults: [
          ...[50, 40, 30, 20].map((minutes) => result(PASSING_CHECK, minutes, false)),
          ...[200, 130, 70].map((minutes) => result(FAILING_CHECK, minutes, false)),
          result(FAILING_CHECK, 5, true, { apiCheckResult: FAILED_API_RESULT, hasErrors: false }),
        ],
      },
    ],
  };
  const api = await startTestServer({ ...options, seed });
  const created = async (path: string, body: unknown): Promise<any> => {
    const reply = await api.post(path, body);
    if (reply.status >= 300) throw new Error(`POST ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const service = await created('/v1/status-pages/services', { name: `Shop ${HOSTILE}` });
  const incident = await created('/v1/status-pages/incidents', {
    name: `Checkout down ${HOSTILE}`,
    severity: 'MAJOR',
    services: [{ id: service.id }],
    incidentUpdates: [{ description: `Looking into it ${HOSTILE}`, status: 'INVESTIGATING' }],
  });
  const reply = await api.put(`/v1/checks/${FAILING_CHECK}`, { triggerIncident: { serviceId: service.id, name: 'Checkout down', severity: 'MAJOR' } });
  if (reply.status !== 200) throw new Error(`PUT check: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { api, incidentId: incident.id, serviceId: service.id };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** A client that keeps cookies and never follows redirects, so tests see each answer. */
export class CookieClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    const sent: Record<string, string> = { ...headers };
    if (this.cookies.size > 0) sent['cookie'] = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (form) sent['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers: sent, redirect: 'manual', ...(form ? { body: new URLSearchParams(form).toString() } : {}) });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  get(path: string): Promise<Answer> {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string>): Promise<Answer> {
    return this.request('POST', path, form);
  }

  /** Loads the sign-in form and sends `apiKey` with its token. */
  async signIn(apiKey: string): Promise<Answer> {
    const form = await this.get('/');
    return this.post('/dashboard/sign-in', { csrf: hiddenToken(form.text), apiKey });
  }
}

/** The value of the page's first `csrf` field. */
export function hiddenToken(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('the page has no csrf field');
  return match[1]!;
}
