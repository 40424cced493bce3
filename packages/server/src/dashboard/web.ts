/**
 * What every dashboard request shares: the response headers, the session cookie, reading a form,
 * the CSRF rule and the signed-in guard.
 *
 * The cookie is `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's page sends it)
 * and `Secure` when the browser reached the service over https: the request's own URL says so, or
 * the operator's `--public-url` is https (the service speaks plain HTTP itself, so https means a TLS
 * proxy in front; `X-Forwarded-Proto` is not trusted, because nothing else in the service trusts a
 * proxy's headers and any client can send one).
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AccountRegistry } from '../accounts.js';
import type { AppEnv } from '../http/types.js';
import { messagePage, type Viewer } from './layout.js';
import { sameToken, type Session, type SessionStore } from './sessions.js';

export const SESSION_COOKIE = 'vigil_session';
/** Ties the sign-in form to the browser that loaded it, before there is a session to hold a token. */
export const SIGN_IN_COOKIE = 'vigil_sign_in';
/** Forms are small; anything larger is refused before it is read. */
export const FORM_MAX_BYTES = 64 * 1024;
export const CSRF_REFUSAL = 'This form was not sent from this dashboard, or it is too old. Reload the page and send it again.';

export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  // Signed-in pages show one account's data: never kept by a shared cache or the back/forward cache of another user.
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

export interface DashboardDeps {
  readonly sessions: SessionStore;
  readonly accounts: AccountRegistry;
  readonly publicUrl: () => string | undefined;
  /** Whether the request's Host is a status page's custom domain, where `/` is that page. */
  readonly isStatusPageHost: (c: Context<AppEnv>) => Promise<boolean>;
}

export function page(c: Context<AppEnv>, body: string, status = 200, headers: Record<string, string> = {}): Response {
  return c.html(body, status as 200, { ...DASHBOARD_HEADERS, ...headers });
}

export function isSecureRequest(c: Context<AppEnv>, publicUrl: string | undefined): boolean {
  return new URL(c.req.url).protocol === 'https:' || (publicUrl?.startsWith('https:') ?? false);
}

export function setSessionCookie(c: Context<AppEnv>, name: string, value: string, secure: boolean, maxAgeSeconds?: number): void {
  setCookie(c, name, value, { path: '/', httpOnly: true, sameSite: 'Strict', secure, ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }) });
}

export function clearCookie(c: Context<AppEnv>, name: string, secure: boolean): void {
  deleteCookie(c, name, { path: '/', httpOnly: true, sameSite: 'Strict', secure });
}

export function sessionIdOf(c: Context<AppEnv>): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

export function cookieOf(c: Context<AppEnv>, name: string): string | undefined {
  return getCookie(c, name);
}

/** The form's fields, or a refusal page when it is too large or not a form. */
export async function readForm(c: Context<AppEnv>): Promise<URLSearchParams | Response> {
  const length = Number(c.req.header('content-length') ?? Number.NaN);
  if (!(length <= FORM_MAX_BYTES)) return page(c, messagePage('Form not accepted', 'The form is larger than any form of this dashboard.'), 413);
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return page(c, messagePage('Form not accepted', 'Send the form from the dashboard page.'), 415);
  return new URLSearchParams(await c.req.text());
}

export function csrfRefused(c: Context<AppEnv>, viewer?: Viewer): Response {
  return page(c, messagePage('Form not accepted', CSRF_REFUSAL, viewer), 403);
}

export interface SignedIn {
  readonly session: Session;
  readonly viewer: Viewer;
}

export function viewerOf(deps: DashboardDeps, session: Session): Viewer {
  return {
    accountName: deps.accounts.get(session.accountId)?.name ?? session.accountId,
    canSwitch: session.accountIds.length > 1,
    csrfToken: session.csrfToken,
  };
}

/** The signed-in session of the request, or the response to send instead (a GET goes to sign in; a POST is refused). */
export function signedIn(c: Context<AppEnv>, deps: DashboardDeps): SignedIn | Response {
  const session = deps.sessions.get(sessionIdOf(c), Date.now());
  if (!session) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return c.redirect('/', 303);
    return page(c, messagePage('Signed out', 'Your session has ended. Sign in again, then send the form again.'), 403);
  }
  const account = deps.accounts.get(session.accountId);
  if (account) c.set('account', account);
  return { session, viewer: viewerOf(deps, session) };
}

/** A signed-in POST: the session, its form and a valid CSRF token, or the refusal to send. */
export async function signedInForm(c: Context<AppEnv>, deps: DashboardDeps): Promise<(SignedIn & { form: URLSearchParams }) | Response> {
  const who = signedIn(c, deps);
  if (who instanceof Response) return who;
  const form = await readForm(c);
  if (form instanceof Response) return form;
  if (!sameToken(who.session.csrfToken, form.get('csrf'))) return csrfRefused(c, who.viewer);
  return { ...who, form };
}
