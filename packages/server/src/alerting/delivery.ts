/**
 * What every channel's delivery shares: the alert it is about, how a send ends, the options it runs
 * with, and one HTTP request under the service's network policy. A leaf module, so the channel
 * modules (channels.ts, slack-app.ts) import it and never each other.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardLookup, type NetworkPolicy } from '@vigil/runner';

export interface AlertContext {
  notificationId: string;
  alertType: string;
  checkId: string;
  checkName: string;
  checkType: string;
  checkResultId: string | null;
  responseTime: number | null;
  runLocation: string | null;
  startedAt: string | null;
  errorMessage: string | null;
  groupName: string | null;
  tags: string[];
  statusCode: number | null;
  statusText: string | null;
  /** ALERT_SSL only: whole days until the certificate expires, and the host it was served for. */
  sslDaysRemaining?: number | null;
  sslCheckDomain?: string | null;
}

export type SendOutcome = { kind: 'sent'; result: string } | { kind: 'undeliverable'; reason: string } | { kind: 'failed'; reason: string };

export interface SendOptions {
  timeoutMs: number;
  /** `smtp://user:pass@host:port` or `smtps://…`; without it e-mail is UNDELIVERABLE. */
  smtpUrl?: string | undefined;
  /** Addresses webhooks and Slack may not reach (the runner's policy for checks). */
  policy?: NetworkPolicy | undefined;
  /** Base URLs of providers by name (`pagerduty`, `opsgenie`, `slack`), overriding the public ones (tests). */
  providerUrls?: Readonly<Record<string, string>> | undefined;
  /** The e-mail sender (default `vigil@localhost`). */
  mailFrom?: string | undefined;
  /** The bot token of the Slack App installed for the notification's account; without it SLACK_APP is UNDELIVERABLE. */
  slackAppToken?: string | undefined;
  /** Ends an HTTP delivery early: a stopping service is not held by a slow receiver's timeout. */
  signal?: AbortSignal | undefined;
  /** A status-page subscriber e-mail's signed links, made when it is sent (public-pages/subscriber-links.ts). */
  mailLinks?: SubscriberMailLinks | undefined;
}

/** The links a mail to a status page's subscriber carries; absent when the page has no public address. */
export interface SubscriberMailLinks {
  /** Confirms a PENDING subscription (the verification e-mail only). */
  readonly verifyUrl?: string;
  /** Removes the subscription with one POST (RFC 8058), or shows a button on a GET. */
  readonly unsubscribeUrl?: string;
}

export const NOTIFICATION_ID_HEADER = 'x-vigil-notification-id';

export const PROVIDER_BASE_URLS: Readonly<Record<string, string>> = {
  pagerduty: 'https://events.pagerduty.com',
  opsgenie: 'https://api.opsgenie.com',
  'opsgenie-eu': 'https://api.eu.opsgenie.com',
  slack: 'https://slack.com/api',
};

export function providerUrl(name: string, path: string, options: SendOptions): string {
  return `${(options.providerUrls?.[name] ?? PROVIDER_BASE_URLS[name]!).replace(/\/+$/, '')}${path}`;
}

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** Characters of the answer kept (default 500, a note for the record); more for an answer that must be parsed. */
  answerLimit?: number;
}

/** The receiver's answer, or why the request may not be made at all. */
export type Answer = { kind: 'answered'; status: number; text: string } | { kind: 'undeliverable'; reason: string };

/**
 * One request, with the notification id and the service's user agent, unless the network policy
 * refuses its address. Throws on a transient failure (no connection, no answer in time).
 */
export async function send(request: OutgoingRequest, context: AlertContext, options: SendOptions): Promise<Answer> {
  const { url } = request;
  if (!/^https?:\/\//.test(url)) return { kind: 'undeliverable', reason: `"${url}" is not an http(s) URL` };
  const target = new URL(url);
  // Literal addresses are never looked up, so the policy is asked directly.
  const refusal = options.policy?.refusal(target.hostname);
  if (refusal) return { kind: 'undeliverable', reason: refusal.message };
  try {
    const headers = { ...request.headers, [NOTIFICATION_ID_HEADER]: context.notificationId, 'user-agent': 'vigil-alerting' };
    return { kind: 'answered', ...(await exchange(target, { ...request, headers }, options)) };
  } catch (error) {
    const refused = [error, (error as { cause?: unknown }).cause].find((candidate) => (candidate as { code?: string } | undefined)?.code === 'ERR_VIGIL_NETWORK_POLICY');
    if (refused) return { kind: 'undeliverable', reason: (refused as Error).message };
    throw error;
  }
}

/** `send`, with any 2xx answer SENT and any other thrown, to be retried. */
export async function post(request: OutgoingRequest, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const answer = await send(request, context, options);
  if (answer.kind === 'undeliverable') return answer;
  if (answer.status >= 200 && answer.status < 300) return { kind: 'sent', result: `${answer.status} ${answer.text}`.trim() };
  throw new Error(`the receiver answered HTTP ${answer.status}${answer.text ? `: ${answer.text}` : ''}`);
}

/** One HTTP exchange, the whole of it within `timeoutMs`; keeps the start of the answer. */
function exchange(target: URL, request: OutgoingRequest, options: SendOptions): Promise<{ status: number; text: string }> {
  const { method, headers, body } = request;
  const limit = request.answerLimit ?? 500;
  return new Promise((resolve, reject) => {
    const outgoing = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      target,
      {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(options.policy ? { lookup: guardLookup(options.policy) } : {}),
      },
      (response: IncomingMessage) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < limit) text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: text.slice(0, limit) }));
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => outgoing.destroy(new Error('the receiver did not answer in time')), options.timeoutMs);
    const abort = () => outgoing.destroy(new Error('the service stopped before the receiver answered'));
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    outgoing.on('close', () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => reject(error.code && !error.message.includes(error.code) ? new Error(`${error.message} (${error.code})`, { cause: error }) : error));
    outgoing.end(body);
  });
}
