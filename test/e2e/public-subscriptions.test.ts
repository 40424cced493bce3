/**
 * E-mail subscriptions from the public status page, over HTTP against a real `vigil server` with a
 * loopback SMTP server: the form, the verification mail and its link, an incident mailed with
 * one-click unsubscribe headers, the unsubscribe, and what the form refuses (forged origins, bad
 * addresses, volume) without telling a visitor more than "check your inbox".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type RunningServer, type ServerOptions } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/cli.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.js';

const KEY = 'subscriptions-key';
const HOSTILE = `"><script>alert(1)</script>`;

interface Service {
  server: RunningServer;
  serviceId: string;
  pageId: string;
  api(method: string, path: string, body?: unknown): Promise<any>;
  submit(address: string, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/** A server with one status page `acme` showing one service. */
async function startService(options: ServerOptions): Promise<Service> {
  const server = await startServer({ accounts: [{ apiKey: KEY, accountId: 'acme' }], ...options });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const serviceId = (await api('POST', '/v1/status-pages/services', { name: 'Shop' })).id as string;
  const pageId = (await api('POST', '/v1/status-pages', { name: 'Acme', url: 'acme', cards: [{ name: 'Core', services: [{ id: serviceId }] }] })).id as string;
  const submit = async (address: string, headers: Record<string, string> = { origin: server.url }) => {
    const response = await fetch(`${server.url}/status/acme/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ address }).toString(),
    });
    return { status: response.status, text: await response.text() };
  };
  return { server, serviceId, pageId, api, submit, close: () => server.close() };
}

async function visit(url: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text() };
}

function linkIn(mail: ReceivedMail, kind: 'verify' | 'unsubscribe'): string {
  const found = new RegExp(`https?://\\S+/status/acme/${kind}\\?token=[A-Za-z0-9._-]+`).exec(mail.text);
  if (!found) throw new Error(`no ${kind} link in the mail:\n${mail.text}`);
  return found[0];
}

const CHECK_INBOX = '<h1>Check your inbox</h1>';
let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await smtp?.close();
});

const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.to.includes(address));
const mailTo = (address: string, subject: RegExp) =>
  waitFor(`a mail to ${address} with a subject matching ${subject}`, async () => mailsTo(address).find((mail) => subject.test(mail.header('subject') ?? '')), { intervalMs: 100 });

describe('subscribing from the public page', () => {
  let service: Service;
  let target: Server;
  let healthy = false;
  beforeAll(async () => {
    target = createServer((_request, response) => response.writeHead(healthy ? 200 : 503).end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    service = await startService({
      scheduler: { tickMs: 200, refreshMs: 200, alerting: { smtpUrl: smtp.url, pollMs: 100, backoffMs: 100 } },
      // The per-client limit has its own test; every request here comes from 127.0.0.1.
      subscribeLimits: { perClientPerHour: 1000 },
    });
  });
  afterAll(async () => {
    await service?.close();
    target?.close();
  });

  it('shows the form on the page, allowed to post to the page only', async () => {
    const response = await fetch(`${service.server.url}/status/acme`);
    expect(response.headers.get('content-security-policy')).toContain("form-action 'self'");
    const text = await response.text();
    expect(text).toContain('<form method="post" action="/status/acme/subscribe">');
    expect(text).toContain('<label for="subscribe-address">E-mail address</label>');
  });

  it('verifies by POST only, mails an incident with one-click unsubscribe headers, and stops after the unsubscribe', async () => {
    const submitted = await service.submit('fan@example.com');
    expect(submitted.status).toBe(200);
    expect(submitted.text).toContain(CHECK_INBOX);
    expect(submitted.text).toContain('If fan@example.com can receive e-mail');
    const verification = await mailTo('fan@example.com', /^\[Acme\] Confirm your subscription$/);
    expect(verification.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const verify = linkIn(verification, 'verify');
    expect(verify.startsWith(`${service.server.url}/status/acme/verify?token=`)).toBe(true);

    // A mail scanner fetching the link changes nothing.
    const shown = await visit(verify);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<h1>Confirm your subscription</h1>');
    expect(shown.text).toContain(`<form method="post" action="/status/acme/verify?token=`);
    const pending = await service.api('GET', `/v1/status-pages/${service.pageId}/subscriptions`);
    expect(pending.map((each: { address: string; status: string }) => [each.address, each.status])).toEqual([['fan@example.com', 'PENDING']]);

    const confirmed = await visit(verify, { method: 'POST' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('<h1>Subscription confirmed</h1>');
    // A second subscriber, verified too, is the witness that mails still go out after the first leaves.
    await service.submit('witness@example.com');
    await visit(linkIn(await mailTo('witness@example.com', /Confirm your subscription/), 'verify'), { method: 'POST' });
    const verified = await service.api('GET', `/v1/status-pages/${service.pageId}/subscriptions`);
    expect(verified.map((each: { status: string }) => each.status)).toEqual(['VERIFIED', 'VERIFIED']);

    const port = (target.address() as AddressInfo).port;
    await service.api('POST', '/v1/checks/api', {
      name: 'Shop API',
      frequency: 0,
      frequencyOffset: 10,
      locations: ['eu-west-1'],
      request: { url: `http://127.0.0.1:${port}/`, method: 'GET', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
      triggerIncident: { serviceId: service.serviceId, name: 'Shop is down', severity: 'MAJOR', description: 'Orders fail.', notifySubscribers: true },
    });
    const incident = await mailTo('fan@example.com', /^\[Acme\] Incident: Shop is down$/);
    expect(mailsTo('fan@example.com').filter((mail) => /Incident:/.test(mail.header('subject') ?? ''))).toHaveLength(1);
    const unsubscribe = linkIn(incident, 'unsubscribe');
    expect(incident.header('list-unsubscribe')).toBe(`<${unsubscribe}>`);
    expect(incident.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');

    // GET shows a button and changes nothing; the mail client's one-click POST (no Origin) removes it.
    const asked = await visit(unsubscribe);
    expect(asked.text).toContain('<h1>Unsubscribe</h1>');
    expect((await service.api('GET', `/v1/status-pages/${service.pageId}/subscriptions`)).length).toBe(2);
    const oneClick = await visit(unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(oneClick.status).toBe(200);
    expect(oneClick.text).toContain('<h1>You are unsubscribed</h1>');
    const left = await service.api('GET', `/v1/status-pages/${service.pageId}/subscriptions`);
    expect(left.map((each: { address: string }) => each.address)).toEqual(['witness@example.com']);

    healthy = true;
    await mailTo('witness@example.com', /^\[Acme\] Resolved: Shop is down$/);
    expect(mailsTo('fan@example.com').map((mail) => mail.header('subject'))).toEqual(['[Acme] Confirm your subscription', '[Acme] Incident: Shop is down']);
  }, 90_000);

  it('refuses a tampered or foreign token with the same exact message, and changes nothing', async () => {
    await service.submit('tamper@example.com');
    const link = linkIn(await mailTo('tamper@example.com', /Confirm your subscription/), 'verify');
    const tampered = link.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    for (const url of [tampered, link.replace('/verify?', '/unsubscribe?'), `${service.server.url}/status/acme/verify?token=nonsense`]) {
      for (const method of ['GET', 'POST']) {
        const refused = await visit(url, { method });
        expect(refused.status, `${method} ${url}`).toBe(400);
        expect(refused.text).toContain('<h1>This link is not valid</h1>');
        expect(refused.text).toContain('The link is incomplete or was not made for this status page. Copy the whole link from the e-mail.');
      }
    }
    const subscriptions = await service.api('GET', `/v1/status-pages/${service.pageId}/subscriptions`);
    expect(subscriptions.find((each: { address: string }) => each.address === 'tamper@example.com')?.status).toBe('PENDING');
  });

  it('refuses the form from another origin or with no origin at all, sending nothing', async () => {
    for (const headers of [{ origin: 'https://evil.example' }, { referer: 'https://evil.example/page' }, {}] as Array<Record<string, string>>) {
      const refused = await service.submit('forged@example.com', headers);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('<h1>Form not accepted</h1>');
      expect(refused.text).toContain('The form must be sent from this status page itself. Go back to the page and send it again.');
    }
    const accepted = await service.submit('forged@example.com', { referer: `${service.server.url}/status/acme` });
    expect(accepted.text).toContain(CHECK_INBOX);
    await mailTo('forged@example.com', /Confirm your subscription/);
    expect(mailsTo('forged@example.com')).toHaveLength(1);
  });

  it('refuses a bad address with its exact message, echoing what was typed as text', async () => {
    const refused = await service.submit(HOSTILE);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('<p id="subscribe-error" class="error" role="alert">Enter an e-mail address in the form name@example.com.</p>');
    expect(refused.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(refused.text).not.toContain('<script>');
    const long = await service.submit(`${'a'.repeat(250)}@example.com`);
    expect(long.text).toContain('An e-mail address is at most 254 characters long.');
  });

  it('answers the fourth request for one address like the others, but sends no fourth mail', async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await service.submit('Busy@Example.com');
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(CHECK_INBOX);
    }
    // Mails leave in order of queueing: once two later addresses are served in turn, a fourth would have arrived.
    await service.submit('later-1@example.com');
    await mailTo('later-1@example.com', /Confirm/);
    await service.submit('later-2@example.com');
    await mailTo('later-2@example.com', /Confirm/);
    // Compared without case: the mailer writes the domain in lower case.
    expect(smtp.mails.filter((mail) => mail.to.some((to) => to.toLowerCase() === 'busy@example.com'))).toHaveLength(3);
  });
});

describe('limits per client and per page', () => {
  it('stop mailing past the per-client and per-page limits, with the same answer', async () => {
    for (const [limits, witness] of [[{ perClientPerHour: 2 }, 'client'], [{ perPagePerHour: 2 }, 'page']] as const) {
      const service = await startService({ scheduler: { tickMs: 200, alerting: { smtpUrl: smtp.url, pollMs: 100 } }, subscribeLimits: limits });
      try {
        for (const n of [1, 2, 3]) expect((await service.submit(`${witness}-${n}@example.com`)).text).toContain(CHECK_INBOX);
        await mailTo(`${witness}-2@example.com`, /Confirm/);
        await mailTo(`${witness}-1@example.com`, /Confirm/);
      } finally {
        await service.close();
      }
      // Closing drains the outbox: whatever was queued has been sent.
      expect(mailsTo(`${witness}-3@example.com`)).toEqual([]);
    }
  });
});

describe('without --smtp', () => {
  it('offers no form, and the POST says subscriptions are not available', async () => {
    const service = await startService({ scheduler: { tickMs: 200 } });
    try {
      expect(await (await fetch(`${service.server.url}/status/acme`)).text()).not.toContain('<form');
      const answer = await service.submit('nobody@example.com');
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('<h1>Subscriptions are not available</h1>');
      expect(answer.text).toContain('This service does not send e-mail, so subscriptions by e-mail are not available on this status page.');
    } finally {
      await service.close();
    }
  });
});
