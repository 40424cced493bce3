/**
 * Which service and account a plan was made against, named in its header: a reviewer must see
 * that a plan is for production before approving it. The embedded service is announced on the
 * first line of output instead, and its recorded "URL" is no address.
 */
import { hasChanges, printable, type Plan } from '@vigil/engine';

/** What state records as the embedded service's URL: stable, whatever port it listens on. */
export const EMBEDDED_TARGET = 'embedded-local-service';

export function namedTarget(target: { readonly baseUrl: string; readonly accountId: string }): { baseUrl: string; accountId: string } | undefined {
  return target.baseUrl === EMBEDDED_TARGET ? undefined : { baseUrl: target.baseUrl, accountId: target.accountId };
}

/**
 * `Target: https://api.example.com, account acme` and a blank line above a plan with changes (what
 * is approved); nothing for "No changes." or the embedded service.
 */
export function targetHeader(plan: Plan): string {
  const named = namedTarget(plan.target);
  return named && hasChanges(plan) ? `Target: ${printable(named.baseUrl)}, account ${printable(named.accountId)}\n\n` : '';
}
