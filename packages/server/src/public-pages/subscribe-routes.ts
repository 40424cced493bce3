/**
 * E-mail subscriptions from the public page, without an API key:
 *
 *     POST /status/{url}/subscribe            the form: a PENDING subscription and one verification e-mail
 *     GET  /status/{url}/verify?token=…       a page with a button; changes nothing
 *     POST /status/{url}/verify?token=…       marks the subscription VERIFIED
 *     GET  /status/{url}/unsubscribe?token=…  a page with a button; changes nothing
 *     POST /status/{url}/unsubscribe?token=…  removes the subscription (also RFC 8058 one-click)
 *
 * A GET never changes anything: mail scanners and link previews fetch every link of a mail.
 *
 * The form answers "check your inbox" whatever happened — a new address, one already PENDING or
 * VERIFIED, a rate limit reached — so it reveals neither who is subscribed nor where the limits
 * stand, and the mail itself goes through the outbox, so no answer waits on the SMTP server either.
 *
 * Cross-site forgery: the form's POST must come from the page's own origin (`Origin`, else
 * `Referer`, equal to this request's host or the service's public URL). Chosen over a double-submit
 * cookie because it needs no state and sets no cookie on a page anyone may read, and because every
 * browser that can submit the form sends `Origin` on a POST. The verify and unsubscribe POSTs are
 * exempt: their signed token is the proof a forger lacks, and a mail client's one-click unsubscribe
 * sends no `Origin` at all.
 */
import type { Subscription } from '@vigil/schema';
import type { Context, Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import { SUBSCRIBER_DELIVERY } from '../alerting/channels.js';
import { clientAddress } from '../http/auth-failures.js';
import type { AppEnv } from '../http/types.js';
import type { StoragePorts } from '../store/ports.js';
import { escapeMarkup as e } from './escape.js';
import type { FoundPage } from './page-data.js';
import { renderNotFound } from './render-html.js';
import { addressRefusedPage, subscribePage, type SubscribePageInfo } from './render-subscribe.js';
import { DEFAULT_SUBSCRIBE_LIMITS, type SubscribeLimits, type SubscriptionKey, type SubscriptionMailOptions } from './subscription-store.js';
import { checkAddress, checkToken, TOKEN_LIFETIME_MS, type TokenPurpose } from './subscription-tokens.js';

/** The paths whose POST is public (app.ts lets them through before authentication). */
export const SUBSCRIBE_POST_PATH = /^\/status\/[^/]+\/(?:subscribe|verify|unsubscribe)$/;

/** A form holds one address; anything longer is not our form. */
const FORM_MAX_BYTES = 4096;

export interface SubscribeDeps {
  /** The subscription, its submission and its verification mail are written through these, in one unit. */
  readonly ports: StoragePorts;
  /** Signs and checks the links of subscription e-mails, and keys the form's submissions. */
  readonly key: SubscriptionKey;
  readonly publicUrl: () => string | undefined;
  /** Present when the service sends e-mail (`--smtp` with the scheduler delivering); absent, the form is not offered. */
  readonly mail: SubscriptionMailOptions | undefined;
  readonly find: (c: Context<AppEnv>, slug: string) => Promise<FoundPage | undefined>;
  /** Answers HTML with the public pages' headers and policy. */
  readonly html: (c: Context<AppEnv>, body: string, status: 200 | 400 | 403 | 404 | 413) => Response;
}

/** Whether the request's `Origin` (else `Referer`) is this page's own origin. */
export function fromOwnOrigin(headers: { origin?: string | undefined; referer?: string | undefined; host?: string | undefined }, publicUrl: string | undefined): boolean {
  const source = headers.origin ?? headers.referer;
  if (!source || source === 'null') return false;
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return false;
  }
  const allowed = new Set<string>();
  if (publicUrl) allowed.add(new URL(publicUrl).origin);
  // Behind a TLS proxy the browser's scheme is not ours to see, so the host decides; URL drops default ports on both sides.
  if (headers.host) for (const scheme of ['http', 'https']) {
    try {
      allowed.add(new URL(`${scheme}://${headers.host}`).origin);
    } catch {
      // A Host that is no host matches nothing.
    }
  }
  return allowed.has(url.origin);
}

export function registerSubscriptions(app: Hono<AppEnv>, deps: SubscribeDeps): void {
  const { ports, key } = deps;
  const limits: SubscribeLimits = { ...DEFAULT_SUBSCRIBE_LIMITS, ...deps.mail?.limits };
  const infoOf = (found: FoundPage): SubscribePageInfo => ({
    slug: String(found.page.url ?? ''),
    name: found.page.name,
    theme: String(found.page.defaultTheme ?? 'AUTO').toLowerCase(),
  });
  const notFound = (c: Context<AppEnv>) => deps.html(c, renderNotFound(), 404);

  app.post('/status/:slug/subscribe', async (c) => {
    const found = await deps.find(c, c.req.param('slug'));
    if (!found) return notFound(c);
    const info = infoOf(found);
    if (!deps.mail) {
      return deps.html(c, subscribePage(info, 'Subscriptions are not available', ['This service does not send e-mail, so subscriptions by e-mail are not available on this status page.']), 404);
    }
    const headers = { origin: c.req.header('origin'), referer: c.req.header('referer'), host: c.req.header('host') };
    if (!fromOwnOrigin(headers, deps.publicUrl())) {
      return deps.html(c, subscribePage(info, 'Form not accepted', ['The form must be sent from this status page itself. Go back to the page and send it again.']), 403);
    }
    const length = Number(c.req.header('content-length') ?? Number.NaN);
    if (!(length <= FORM_MAX_BYTES)) return deps.html(c, subscribePage(info, 'Form not accepted', ['The form is larger than a subscription needs.']), 413);
    const form = new URLSearchParams(await c.req.text());
    const typed = form.get('address') ?? '';
    const checked = checkAddress(typed);
    if (!checked.ok) return deps.html(c, addressRefusedPage(info, checked.message, typed.slice(0, 1000)), 400);
    const { address } = checked;
    const nowMs = Date.now();
    const { accountId, page } = found;
    // Keyed before the unit: the key's first read goes through the replica's own ports, which a unit must not wait on.
    const submission = await key.formSubmission({ pageKey: `${accountId}/${page.id}`, address, client: clientAddress(c), nowMs, limits });
    // One unit: the submission counted, the subscription and its verification mail commit together or not at all.
    await ports.transaction(async (tx) => {
      if (!(await tx.subscribers.admit(submission))) return;
      const existing = (await tx.subscribers.byAddress(accountId, page.id, address)) as Subscription | undefined;
      // A VERIFIED address is subscribed already: it gets nothing, and the page says the same as for any other.
      if (existing?.status === 'VERIFIED') return;
      const subscription = existing ?? { id: randomUUID(), type: 'EMAIL' as const, address, status: 'PENDING' as const, created_at: new Date(nowMs).toISOString(), updated_at: null };
      if (!existing) await tx.statusPages.addSubscription(accountId, page.id, subscription);
      const id = randomUUID();
      const doc = {
        context: { notificationId: id, alertType: 'SUBSCRIPTION_VERIFICATION', checkId: '', checkName: '', checkType: '', checkResultId: null, responseTime: null, runLocation: null, startedAt: null, errorMessage: null, groupName: null, tags: [], statusCode: null, statusText: null },
        alertConfig: { kind: 'verification', address: subscription.address, subscriptionId: subscription.id, statusPageId: page.id, statusPageName: page.name, verifyExpiresAtMs: nowMs + TOKEN_LIFETIME_MS.verify },
        checkAlertId: subscription.id,
      };
      await tx.outbox.enqueue({ id, accountId, checkId: '', alertChannelId: 0, channelType: SUBSCRIBER_DELIVERY, alertType: 'SUBSCRIPTION_VERIFICATION', doc: JSON.stringify(doc) }, nowMs);
    });
    return deps.html(
      c,
      subscribePage(info, 'Check your inbox', [
        `If ${e(address)} can receive e-mail, a message to confirm the subscription to ${e(info.name)} is on its way. Its link works for 24 hours.`,
        'No e-mail is sent about incidents until the subscription is confirmed.',
      ]),
      200,
    );
  });

  /** The page and subscription a link's token names, or the page that refuses it. */
  const fromToken = async (c: Context<AppEnv>, purpose: TokenPurpose) => {
    const found = await deps.find(c, c.req.param('slug') ?? '');
    if (!found) return { refused: notFound(c) };
    const info = infoOf(found);
    const checked = checkToken(await key.secret(), purpose, { accountId: found.accountId, statusPageId: found.page.id }, c.req.query('token') ?? '', Date.now());
    if (!checked.ok) {
      const page =
        checked.reason === 'expired'
          ? subscribePage(info, 'This link has expired', [purpose === 'verify' ? 'Confirmation links work for 24 hours. Subscribe again on the status page.' : 'Unsubscribe links work for 90 days. Use the link in a more recent e-mail.'])
          : subscribePage(info, 'This link is not valid', ['The link is incomplete or was not made for this status page. Copy the whole link from the e-mail.']);
      return { refused: deps.html(c, page, 400) };
    }
    const subscription = (await ports.subscribers.byId(found.accountId, found.page.id, checked.subscriptionId)) as Subscription | undefined;
    return { found, info, subscription, action: `${c.req.path}?token=${encodeURIComponent(c.req.query('token') ?? '')}` };
  };

  const verify = async (c: Context<AppEnv>, confirm: boolean) => {
    const link = await fromToken(c, 'verify');
    if ('refused' in link) return link.refused;
    const { found, info, subscription, action } = link;
    if (!subscription) return deps.html(c, subscribePage(info, 'This subscription no longer exists', ['It was removed after this e-mail was sent. Subscribe again on the status page.']), 404);
    if (subscription.status !== 'VERIFIED' && !confirm) {
      return deps.html(c, subscribePage(info, 'Confirm your subscription', [`Press the button to receive e-mails about incidents on ${e(info.name)} at ${e(subscription.address)}.`], { url: action, label: 'Confirm subscription' }), 200);
    }
    if (subscription.status !== 'VERIFIED') {
      await ports.transaction((tx) => tx.subscribers.markVerified(found.accountId, found.page.id, subscription.id, new Date().toISOString()));
    }
    return deps.html(c, subscribePage(info, 'Subscription confirmed', [`${e(subscription.address)} will receive e-mails about incidents on ${e(info.name)}. Every e-mail has a link to unsubscribe.`]), 200);
  };
  app.get('/status/:slug/verify', (c) => verify(c, false));
  app.post('/status/:slug/verify', (c) => verify(c, true));

  const unsubscribe = async (c: Context<AppEnv>, confirm: boolean) => {
    const link = await fromToken(c, 'unsubscribe');
    if ('refused' in link) return link.refused;
    const { found, info, subscription, action } = link;
    if (subscription && !confirm) {
      return deps.html(c, subscribePage(info, 'Unsubscribe', [`Press the button to stop e-mails about incidents on ${e(info.name)} to ${e(subscription.address)}.`], { url: action, label: 'Unsubscribe' }), 200);
    }
    if (subscription) await ports.transaction((tx) => tx.subscribers.remove(found.accountId, found.page.id, subscription.id));
    // Also when it was gone already: a repeated one-click POST must succeed, and says nothing new.
    return deps.html(c, subscribePage(info, 'You are unsubscribed', [`No more e-mails about incidents on ${e(info.name)} are sent${subscription ? ` to ${e(subscription.address)}` : ''}.`]), 200);
  };
  app.get('/status/:slug/unsubscribe', (c) => unsubscribe(c, false));
  app.post('/status/:slug/unsubscribe', (c) => unsubscribe(c, true));
}
