/**
 * The signed links of a subscriber e-mail, made by the outbox when it sends one (start.ts hands this
 * to the scheduler's alerting). Links point at the page's `/status/{url}` on the service's public
 * URL, which also works when the page has a custom domain; a page without `url` has no public
 * address, so its mails carry no links. The page and the signing key are read through the storage
 * ports, so a page renamed by another replica is linked under its new name.
 */
import type { SubscriberMailLinks } from '../alerting/channels.js';
import type { StoragePorts } from '../store/ports.js';
import { basePath } from './render-html.js';
import { SubscriptionKey } from './subscription-store.js';
import { signToken, TOKEN_LIFETIME_MS, type TokenPurpose } from './subscription-tokens.js';

/** Status page ids are stored up to this length; a longer one names no page. */
const MAX_PAGE_ID_LENGTH = 255;

export function subscriberLinks(ports: Pick<StoragePorts, 'statusPages' | 'subscribers'>, publicUrl: () => string | undefined, now: () => number = Date.now) {
  const key = new SubscriptionKey(ports.subscribers);
  return async (accountId: string, config: Record<string, unknown>): Promise<SubscriberMailLinks | undefined> => {
    const base = publicUrl();
    const { statusPageId, subscriptionId } = config;
    if (!base || typeof statusPageId !== 'string' || typeof subscriptionId !== 'string') return undefined;
    if (statusPageId === '' || statusPageId.length > MAX_PAGE_ID_LENGTH) return undefined;
    const slug = (await ports.statusPages.get(accountId, statusPageId))?.['url'];
    if (typeof slug !== 'string' || slug === '') return undefined;
    const secret = await key.secret();
    const subject = { accountId, statusPageId, subscriptionId };
    const link = (purpose: TokenPurpose, expiresAtMs: number) =>
      `${base.replace(/\/+$/, '')}${basePath(slug)}/${purpose}?token=${signToken(secret, purpose, subject, expiresAtMs)}`;
    // The verification link's expiry was fixed when the form was sent: a retried mail does not extend it.
    const verifyBy = typeof config['verifyExpiresAtMs'] === 'number' ? config['verifyExpiresAtMs'] : undefined;
    return {
      ...(config['kind'] === 'verification' && verifyBy !== undefined ? { verifyUrl: link('verify', verifyBy) } : {}),
      unsubscribeUrl: link('unsubscribe', now() + TOKEN_LIFETIME_MS.unsubscribe),
    };
  };
}
