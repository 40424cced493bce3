/**
 * Signs in to a running service's dashboard as a browser does, over plain HTTP: the sign-in form
 * (its CSRF token and the cookie it is tied to), then the POST, whose answer sets the session
 * cookie. Used by the dashboard bench and scripts/screenshots.ts.
 */

const SESSION_COOKIE = 'vigil_session';

/** `name=value` of each cookie a response sets. */
function cookiesOf(response: Response): Array<{ name: string; value: string }> {
  return response.headers.getSetCookie().map((cookie) => {
    const pair = cookie.split(';')[0]!;
    const equals = pair.indexOf('=');
    return { name: pair.slice(0, equals), value: pair.slice(equals + 1) };
  });
}

export interface DashboardSession {
  /** The `Cookie` header value a signed-in request sends. */
  readonly cookieHeader: string;
  readonly cookies: ReadonlyArray<{ name: string; value: string }>;
}

export async function signInToDashboard(baseUrl: string, apiKey: string): Promise<DashboardSession> {
  const form = await fetch(`${baseUrl}/`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (form.status !== 200 || !csrf) throw new Error(`the sign-in form answered ${form.status} without a CSRF token`);
  const signIn = await fetch(`${baseUrl}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: cookiesOf(form).map(({ name, value }) => `${name}=${value}`).join('; '),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ csrf, apiKey }),
  });
  await signIn.arrayBuffer();
  // The same answer clears the sign-in form's cookie; only the session's is kept.
  const cookies = cookiesOf(signIn).filter(({ name, value }) => name === SESSION_COOKIE && value !== '');
  if (signIn.status !== 303 || cookies.length === 0) throw new Error(`signing in answered ${signIn.status}, not a redirect with a session cookie`);
  return { cookies, cookieHeader: cookies.map(({ name, value }) => `${name}=${value}`).join('; ') };
}
