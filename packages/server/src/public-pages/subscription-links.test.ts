/**
 * The links of subscription e-mails against the app itself: the links the outbox puts in a mail
 * work, an expired one is refused with its exact message, and a GET never changes a subscription.
 * (The whole flow with a real SMTP server is test/e2e/public-subscriptions.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import { subscriberLinks } from './subscriber-links.js';
import { signToken } from './subscription-tokens.js';

const BASE = 'http://status.test';
let service: ServiceApp;
let pageId: string;

beforeAll(async () => {
  service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }], subscriptionMail: {}, publicUrl: BASE });
  const created = await service.app.request('/v1/status-pages', {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Acme', url: 'acme', cards: [] }),
  });
  pageId = ((await created.json()) as { id: string }).id;
});
afterAll(() => service.close());

async function pending(id: string, address: string): Promise<void> {
  await service.repositories.ports.statusPages.addSubscription('acme', pageId, { id, type: 'EMAIL', address, status: 'PENDING', created_at: new Date().toISOString(), updated_at: null });
}

const statusOf = async (id: string) => (await service.repositories.ports.subscribers.byId('acme', pageId, id))?.['status'];
const request = async (url: string, method = 'GET') => {
  const response = await service.app.request(url.replace(BASE, ''), { method });
  return { status: response.status, text: await response.text(), cache: response.headers.get('cache-control') };
};

describe('links of subscription e-mails', () => {
  it('verify with the link the outbox makes: GET shows a button and changes nothing, POST verifies', async () => {
    await pending('s-1', 'one@example.com');
    const links = await subscriberLinks(service.repositories.ports, () => BASE)('acme', { kind: 'verification', statusPageId: pageId, subscriptionId: 's-1', verifyExpiresAtMs: Date.now() + 60_000 });
    expect(links?.verifyUrl).toMatch(/^http:\/\/status\.test\/status\/acme\/verify\?token=/);
    expect(links?.unsubscribeUrl).toMatch(/^http:\/\/status\.test\/status\/acme\/unsubscribe\?token=/);
    const shown = await request(links!.verifyUrl!);
    expect(shown.status).toBe(200);
    expect(shown.cache).toBe('no-store');
    expect(await statusOf('s-1')).toBe('PENDING');
    expect((await request(links!.verifyUrl!, 'HEAD')).status).toBe(200);
    expect(await statusOf('s-1')).toBe('PENDING');
    expect((await request(links!.verifyUrl!, 'POST')).text).toContain('<h1>Subscription confirmed</h1>');
    expect(await statusOf('s-1')).toBe('VERIFIED');
  });

  it('refuse an expired link with its exact message, changing nothing', async () => {
    await pending('s-2', 'two@example.com');
    const secret = await service.repositories.ports.subscribers.secret('subscription-links', () => Buffer.alloc(32));
    const subject = { accountId: 'acme', statusPageId: pageId, subscriptionId: 's-2' };
    const verify = `/status/acme/verify?token=${signToken(secret, 'verify', subject, Date.now() - 1000)}`;
    const unsubscribe = `/status/acme/unsubscribe?token=${signToken(secret, 'unsubscribe', subject, Date.now() - 1000)}`;
    for (const method of ['GET', 'POST']) {
      const refused = await request(verify, method);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('<h1>This link has expired</h1>');
      expect(refused.text).toContain('Confirmation links work for 24 hours. Subscribe again on the status page.');
      expect((await request(unsubscribe, method)).text).toContain('Unsubscribe links work for 90 days. Use the link in a more recent e-mail.');
    }
    expect(await statusOf('s-2')).toBe('PENDING');
  });

  it('answer a page that does not exist with the 404 page, without an API key', async () => {
    for (const path of ['/status/nope/subscribe', '/status/nope/verify?token=x', '/status/nope/unsubscribe?token=x']) {
      const answer = await service.app.request(path, { method: 'POST', headers: { origin: 'http://localhost' } });
      expect(answer.status, path).toBe(404);
      expect(await answer.text()).toContain('<h1>Status page not found</h1>');
    }
  });

  it('are not made for a page without a public address, nor for a page that is not stored', async () => {
    await service.repositories.ports.statusPages.save('acme', { id: 'seeded', name: 'Seeded', cards: [] });
    const links = subscriberLinks(service.repositories.ports, () => BASE);
    for (const statusPageId of ['seeded', 'missing', 'x'.repeat(256), '']) {
      expect(await links('acme', { statusPageId, subscriptionId: 's-1' }), statusPageId).toBeUndefined();
    }
  });

  it('name the page by its url as stored when the mail is sent, not when it was queued', async () => {
    const links = subscriberLinks(service.repositories.ports, () => BASE);
    await service.repositories.ports.statusPages.save('acme', { id: 'moving', name: 'Moving', url: 'before', cards: [] });
    expect((await links('acme', { statusPageId: 'moving', subscriptionId: 's-1' }))?.unsubscribeUrl).toMatch(/^http:\/\/status\.test\/status\/before\/unsubscribe\?token=/);
    await service.repositories.ports.statusPages.save('acme', { id: 'moving', name: 'Moving', url: 'after', cards: [] });
    expect((await links('acme', { statusPageId: 'moving', subscriptionId: 's-1' }))?.unsubscribeUrl).toMatch(/^http:\/\/status\.test\/status\/after\/unsubscribe\?token=/);
  });
});
