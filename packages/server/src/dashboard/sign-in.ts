/**
 * Signing in and out, and choosing the account.
 *
 *     GET  /                      the sign-in form (signed in: on to the checks)
 *     POST /dashboard/sign-in     an API key → a new session
 *     POST /dashboard/sign-out    ends the session
 *     GET|POST /dashboard/account choose among the key's accounts
 *
 * Sign-in attempts, good or bad, are limited per client address with the API's fixed-window
 * limiter, so the form is no faster a way to guess keys than the API. The sign-in form carries a
 * token tied to a cookie it set (there is no session yet to hold one), so another site cannot sign
 * a visitor in to an account of its choosing. Every sign-in opens a new session under a new id and
 * ends the one the browser had, so an id planted before sign-in is worth nothing after it.
 */
import type { Context, Hono } from 'hono';
import { clientAddress } from '../http/auth-failures.js';
import { RateLimiter, type RateLimitOptions } from '../http/rate-limit.js';
import type { AppEnv } from '../http/types.js';
import { html } from './html.js';
import { csrfField, messagePage, renderPage } from './layout.js';
import { randomToken, sameToken } from './sessions.js';
import {
  clearCookie,
  cookieOf,
  csrfRefused,
  isSecureRequest,
  page,
  readForm,
  sessionIdOf,
  SESSION_COOKIE,
  setSessionCookie,
  SIGN_IN_COOKIE,
  signedIn,
  signedInForm,
  type DashboardDeps,
} from './web.js';

/** Ten tries a minute: plenty for a person retyping a key, nothing for a guesser. */
export const DEFAULT_SIGN_IN_LIMIT: RateLimitOptions = { requests: 10, windowSeconds: 60 };

export function tooManySignInsMessage(seconds: number): string {
  return `Too many sign-in attempts from this address. Try again in ${seconds} s.`;
}

function signInPage(token: string, error?: string): string {
  return renderPage({
    title: 'Sign in',
    body: html`<h1>Sign in to Vigil</h1>
<div class="card narrow">
${error ? html`<p class="error" role="alert" id="sign-in-error">${error}</p>` : ''}
<form method="post" action="/dashboard/sign-in" class="stack">
<input type="hidden" name="csrf" value="${token}">
<div><label for="api-key">API key</label>
<input id="api-key" name="apiKey" type="password" autocomplete="current-password" required${error ? html` aria-describedby="sign-in-error" aria-invalid="true"` : ''}></div>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="meta">Use a key from the service's accounts file. The key stays in this form; the dashboard keeps only which accounts it opens.</p>
</div>`,
  });
}

export function registerSignIn(app: Hono<AppEnv>, deps: DashboardDeps, limit: RateLimitOptions = DEFAULT_SIGN_IN_LIMIT): void {
  const attempts = new RateLimiter(limit);
  const secure = (c: Context<AppEnv>) => isSecureRequest(c, deps.publicUrl());

  /** The sign-in form, with a fresh token in its cookie. */
  const showForm = (c: Context<AppEnv>, status = 200, error?: string) => {
    const token = randomToken();
    setSessionCookie(c, SIGN_IN_COOKIE, token, secure(c));
    return page(c, signInPage(token, error), status);
  };

  app.get('/', async (c, next) => {
    // On a status page's custom domain, `/` is that page (public-pages/routes.ts).
    if (await deps.isStatusPageHost(c)) return next();
    if (deps.sessions.get(sessionIdOf(c), Date.now())) return c.redirect('/dashboard/checks', 303);
    return showForm(c);
  });

  app.post('/dashboard/sign-in', async (c) => {
    const decision = attempts.take(clientAddress(c), 'default', Date.now());
    if (!decision.allowed) {
      const seconds = decision.resetSeconds;
      return page(c, messagePage('Too many sign-in attempts', tooManySignInsMessage(seconds)), 429, { 'retry-after': String(seconds) });
    }
    const form = await readForm(c);
    if (form instanceof Response) return form;
    if (!sameToken(cookieOf(c, SIGN_IN_COOKIE) ?? '', form.get('csrf'))) return csrfRefused(c);
    const accounts = deps.accounts.accountsOf(form.get('apiKey')?.trim() ?? '');
    if (!accounts) return showForm(c, 401, 'That API key is not known to this service.');
    deps.sessions.end(sessionIdOf(c));
    const { id } = deps.sessions.create(
      accounts.map((account) => account.id),
      Date.now(),
    );
    setSessionCookie(c, SESSION_COOKIE, id, secure(c));
    clearCookie(c, SIGN_IN_COOKIE, secure(c));
    return c.redirect(accounts.length > 1 ? '/dashboard/account' : '/dashboard/checks', 303);
  });

  app.post('/dashboard/sign-out', async (c) => {
    const who = await signedInForm(c, deps);
    if (who instanceof Response) return who;
    deps.sessions.end(sessionIdOf(c));
    clearCookie(c, SESSION_COOKIE, secure(c));
    return c.redirect('/', 303);
  });

  app.get('/dashboard/account', (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const options = who.session.accountIds.map((id) => {
      const name = deps.accounts.get(id)?.name ?? id;
      return html`<div class="row"><input type="radio" name="account" id="account-${id}" value="${id}"${id === who.session.accountId ? html` checked` : ''}>
<label for="account-${id}">${name} <span class="meta">(${id})</span></label></div>`;
    });
    return page(
      c,
      renderPage({
        title: 'Choose an account',
        viewer: who.viewer,
        section: 'account',
        body: html`<h1>Choose an account</h1>
<form method="post" action="/dashboard/account" class="card narrow stack">${csrfField(who.session.csrfToken)}
<fieldset><legend>This key opens these accounts</legend>${options}</fieldset>
<button type="submit" class="primary">Open account</button></form>`,
      }),
    );
  });

  app.post('/dashboard/account', async (c) => {
    const who = await signedInForm(c, deps);
    if (who instanceof Response) return who;
    const wanted = who.form.get('account') ?? '';
    if (!who.session.accountIds.includes(wanted)) {
      return page(c, messagePage('Account not available', 'This API key does not open that account. Choose one of the accounts listed.', who.viewer), 403);
    }
    who.session.accountId = wanted;
    return c.redirect('/dashboard/checks', 303);
  });
}
