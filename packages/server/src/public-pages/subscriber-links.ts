/**
 * The signed links of a subscriber e-mail, made by the outbox when it sends one (start.ts hands this
 * to the scheduler's alerting). Links point at the page's `/status/{url}` on the service's public
 * URL, which also works when the page has a custom domain; a page without `url` has no public
 * address, so its mails carry no links.
 */
import type { SubscriberMailLinks } from '../alerting/channels.js';
import type { Repositories } from '../repositories.js';
import { basePath } from './render-html.js';
import { signToken, TOKEN_LIFETIME_MS, type TokenPurpose } from './subscription-tokens.js';

export function subscriberLinks(repositories: Pick<Repositories, 'readSide' | 'statusPageSubscriptions'>, publicUrl: () => string | undefined, now: () => number = Date.now) {
  const { pages } = repositories.readSide;
  const secret = repositories.statusPageSubscriptions.secret;
  return (accountId: string, config: Record<string, unknown>): SubscriberMailLinks | undefined => {
    const base = publicUrl();
    const { statusPageId, subscriptionId } = config;
    if (!base || typeof statusPageId !== 'string' || typeof subscriptionId !== 'string') return undefined;
    const slug = pages.statusPage(accountId, statusPageId)?.url;
    if (typeof slug !== 'string' || slug === '') return undefined;
    const subject = { accountId, statusPageId, subscriptionId };
    const link = (purpose: TokenPurpose, expiresAtMs: number) =>
      `${base.replace(/\/+$/, '')}${basePath(slug)}/${purpose}?token=${signToken(secret, purpose, subject, expiresAtMs)}`;
    // The verification link's expiry was fixed when the form was sent: a retried mail does not extend it.
    const verifyBy = typeof config.verifyExpiresAtMs === 'number' ? config.verifyExpiresAtMs : undefined;
    return {
      ...(config.kind === 'verification' && verifyBy !== undefined ? { verifyUrl: link('verify', verifyBy) } : {}),
      unsubscribeUrl: link('unsubscribe', now() + TOKEN_LIFETIME_MS.unsubscribe),
    };
  };
}
