/**
 * Sending one notification to one alert channel. A send either resolves (SENT, with a short note of
 * the receiver's answer), resolves `undeliverable` (nothing this service can do will deliver it:
 * retrying is pointless), resolves `failed` (the channel's own config is at fault: retrying would fail
 * the same way), or throws (a transient failure: the outbox retries with backoff).
 *
 * WEBHOOK: the channel's `method`, `headers` and `queryParameters`; the body is the channel's
 * `template` rendered with Handlebars (alerting/webhook-template.ts: values JSON-string-escaped, so
 * a template that is JSON stays JSON whatever a check's name contains; unknown variables become
 * empty), or the default JSON body of `defaultWebhookBody`. A template that cannot be rendered
 * resolves `failed` (never retried). The body is rendered once per notification: a retry sends the
 * same bytes, also where the template draws a `{{$UUID}}`. `webhookSecret` signs the exact body:
 * `x-checkly-signature` is the hex HMAC-SHA256 of the body under the secret, as the real service
 * sends it.
 * SLACK: an incoming-webhook `{ text }` message. EMAIL: through the SMTP server of `smtpUrl`
 * (nodemailer), UNDELIVERABLE without one. Every request and e-mail carries
 * `x-vigil-notification-id`, the same on every retry, for the receiver's de-duplication.
 * PAGERDUTY: an Events API v2 `trigger` (a recovery `resolve`s), deduplicated by the check id.
 * OPSGENIE: an alert (aliased by the check id; a recovery closes it) with the channel's priority.
 * Provider base URLs are overridable (`vigil server --provider-url NAME=URL`).
 * ALERT_SSL (a certificate expiring soon) goes through the same channels; PagerDuty and Opsgenie
 * get it as a warning of its own (dedup key / alias `CHECK_ID:ssl`), so it never resolves or
 * merges with the check's failure incident.
 * STATUS_PAGE_SUBSCRIBER is not a channel but rides the same outbox: an incident update e-mailed to
 * one VERIFIED subscriber of a status page (alerting/incidents.ts), through the same SMTP server.
 * Webhook, Slack and provider requests obey the service's network policy (`--deny-network`, like checks), so
 * a channel URL cannot make the service an SSRF proxy: a denied address is UNDELIVERABLE.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardLookup, type NetworkPolicy } from '@vigil/runner';
import { createTransport } from 'nodemailer';
import { BoundedMap } from '../bounded-map.js';
import { renderWebhookTemplate, TemplateError, type TemplateValue } from './webhook-template.js';

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
  /** Base URLs of providers by name (`pagerduty`, `opsgenie`), overriding the public ones (tests). */
  providerUrls?: Readonly<Record<string, string>> | undefined;
  /** The e-mail sender (default `vigil@localhost`). */
  mailFrom?: string | undefined;
  /** Ends an HTTP delivery early: a stopping service is not held by a slow receiver's timeout. */
  signal?: AbortSignal | undefined;
}

/** The outbox `channel_type` of an incident update e-mailed to a status page's subscriber. */
export const SUBSCRIBER_DELIVERY = 'STATUS_PAGE_SUBSCRIBER';

export const NOTIFICATION_ID_HEADER = 'x-vigil-notification-id';
export const SIGNATURE_HEADER = 'x-checkly-signature';

const ALERT_TITLES: Record<string, string> = {
  ALERT_FAILURE: 'has failed',
  ALERT_FAILURE_REMAIN: 'is still failing',
  ALERT_RECOVERY: 'has recovered',
  ALERT_DEGRADED: 'is degraded',
  ALERT_DEGRADED_RECOVERY: 'is no longer degraded',
};

export function alertTitle(context: AlertContext): string {
  if (context.alertType === 'ALERT_SSL') return `The SSL certificate of check '${context.checkName}' expires in ${context.sslDaysRemaining ?? '?'} days`;
  return `Check '${context.checkName}' ${ALERT_TITLES[context.alertType] ?? context.alertType}`;
}

/** The template variables of the real service that this service knows the value of. */
export function templateVariables(context: AlertContext): Record<string, TemplateValue> {
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  return {
    ALERT_TITLE: alertTitle(context),
    ALERT_TYPE: context.alertType,
    CHECK_NAME: context.checkName,
    CHECK_ID: context.checkId,
    CHECK_TYPE: context.checkType,
    CHECK_RESULT_ID: text(context.checkResultId),
    CHECK_ERROR_MESSAGE: text(context.errorMessage),
    RESPONSE_TIME: text(context.responseTime),
    RUN_LOCATION: text(context.runLocation),
    REGION: text(context.runLocation),
    STARTED_AT: text(context.startedAt),
    GROUP_NAME: text(context.groupName),
    TAGS: context.tags,
    API_CHECK_RESPONSE_STATUS_CODE: text(context.statusCode),
    API_CHECK_RESPONSE_STATUS_TEXT: text(context.statusText),
    NOTIFICATION_ID: context.notificationId,
    SSL_DAYS_REMAINING: text(context.sslDaysRemaining ?? null),
    SSL_CHECK_DOMAIN: text(context.sslCheckDomain ?? null),
  };
}

/** The webhook body of `template` for this alert; throws `TemplateError`. */
export function renderTemplate(template: string, context: AlertContext): string {
  return renderWebhookTemplate(template, templateVariables(context));
}

/** Rendered webhook bodies by notification id, so a retry in this process sends the same bytes. */
const renderedBodies = new BoundedMap<string, { template: string | undefined; body: string }>(1000);

/** The body of a WEBHOOK channel without a `template`. */
export function defaultWebhookBody(context: AlertContext): string {
  return JSON.stringify({
    notificationId: context.notificationId,
    alertType: context.alertType,
    alertTitle: alertTitle(context),
    checkId: context.checkId,
    checkName: context.checkName,
    checkType: context.checkType,
    checkResultId: context.checkResultId,
    responseTime: context.responseTime,
    runLocation: context.runLocation,
    startedAt: context.startedAt,
    errorMessage: context.errorMessage,
    groupName: context.groupName,
    tags: context.tags,
    ...(context.alertType === 'ALERT_SSL' ? { sslDaysRemaining: context.sslDaysRemaining ?? null, sslCheckDomain: context.sslCheckDomain ?? null } : {}),
  });
}

export async function sendToChannel(type: string, config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  switch (type) {
    case 'WEBHOOK':
      return sendWebhook(config, context, options);
    case 'SLACK':
      return post(String(config.url ?? ''), 'POST', { 'content-type': 'application/json' }, JSON.stringify({ text: slackText(context), ...(config.channel ? { channel: config.channel } : {}) }), context, options);
    case 'EMAIL':
      return sendEmail(config, context, options);
    case 'PAGERDUTY':
      return sendPagerduty(config, context, options);
    case 'OPSGENIE':
      return sendOpsgenie(config, context, options);
    case SUBSCRIBER_DELIVERY:
      return sendSubscriberEmail(config, context, options);
    default:
      return { kind: 'undeliverable', reason: `this service has no ${type} provider to deliver through: the notification is recorded, not sent` };
  }
}

async function sendWebhook(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const template = typeof config.template === 'string' && config.template.trim() !== '' ? config.template : undefined;
  const rendered = renderedBodies.get(context.notificationId);
  let body = rendered?.template === template ? rendered?.body : undefined;
  if (body === undefined) {
    try {
      body = template ? renderTemplate(template, context) : defaultWebhookBody(context);
    } catch (error) {
      if (error instanceof TemplateError) return { kind: 'failed', reason: error.message };
      throw error;
    }
    renderedBodies.set(context.notificationId, { template, body });
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const { key, value } of keyValues(config.headers)) headers[key.toLowerCase()] = value;
  if (typeof config.webhookSecret === 'string' && config.webhookSecret !== '') {
    headers[SIGNATURE_HEADER] = createHmac('sha256', config.webhookSecret).update(body).digest('hex');
  }
  let url: URL;
  try {
    url = new URL(String(config.url ?? ''));
  } catch {
    return { kind: 'undeliverable', reason: `the webhook URL "${String(config.url)}" is not a URL` };
  }
  for (const { key, value } of keyValues(config.queryParameters)) url.searchParams.append(key, value);
  const method = String(config.method ?? 'POST').toUpperCase();
  return post(url.href, method, headers, method === 'GET' || method === 'HEAD' ? undefined : body, context, options);
}

async function post(url: string, method: string, headers: Record<string, string>, body: string | undefined, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  if (!/^https?:\/\//.test(url)) return { kind: 'undeliverable', reason: `"${url}" is not an http(s) URL` };
  const target = new URL(url);
  // Literal addresses are never looked up, so the policy is asked directly.
  const refusal = options.policy?.refusal(target.hostname);
  if (refusal) return { kind: 'undeliverable', reason: refusal.message };
  let response: { status: number; text: string };
  try {
    response = await exchange(target, method, { ...headers, [NOTIFICATION_ID_HEADER]: context.notificationId, 'user-agent': 'vigil-alerting' }, body, options);
  } catch (error) {
    const refused = [error, (error as { cause?: unknown }).cause].find((candidate) => (candidate as { code?: string } | undefined)?.code === 'ERR_VIGIL_NETWORK_POLICY');
    if (refused) return { kind: 'undeliverable', reason: (refused as Error).message };
    throw error;
  }
  if (response.status >= 200 && response.status < 300) return { kind: 'sent', result: `${response.status} ${response.text}`.trim() };
  throw new Error(`the receiver answered HTTP ${response.status}${response.text ? `: ${response.text}` : ''}`);
}

/** One HTTP exchange, the whole of it within `timeoutMs`; keeps the first 500 characters of the answer. */
function exchange(target: URL, method: string, headers: Record<string, string>, body: string | undefined, options: SendOptions): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
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
          if (text.length < 500) text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: text.slice(0, 500) }));
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => request.destroy(new Error('the receiver did not answer in time')), options.timeoutMs);
    const abort = () => request.destroy(new Error('the service stopped before the receiver answered'));
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    request.on('close', () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    });
    request.on('error', (error: NodeJS.ErrnoException) => reject(error.code && !error.message.includes(error.code) ? new Error(`${error.message} (${error.code})`, { cause: error }) : error));
    request.end(body);
  });
}

export const PROVIDER_BASE_URLS: Readonly<Record<string, string>> = {
  pagerduty: 'https://events.pagerduty.com',
  opsgenie: 'https://api.opsgenie.com',
  'opsgenie-eu': 'https://api.eu.opsgenie.com',
};

const RECOVERIES = new Set(['ALERT_RECOVERY', 'ALERT_DEGRADED_RECOVERY']);

/** The provider-side identity of the alert: the check's failure incident, or its certificate warning. */
function providerAlias(context: AlertContext): string {
  return context.alertType === 'ALERT_SSL' ? `${context.checkId}:ssl` : context.checkId;
}

function providerUrl(name: string, path: string, options: SendOptions): string {
  return `${(options.providerUrls?.[name] ?? PROVIDER_BASE_URLS[name]!).replace(/\/+$/, '')}${path}`;
}

function sendPagerduty(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const body = {
    routing_key: String(config.serviceKey ?? ''),
    event_action: RECOVERIES.has(context.alertType) ? 'resolve' : 'trigger',
    dedup_key: providerAlias(context),
    payload: {
      summary: alertTitle(context),
      source: context.runLocation ?? 'vigil',
      severity: context.alertType.startsWith('ALERT_DEGRADED') || context.alertType === 'ALERT_SSL' ? 'warning' : 'critical',
      custom_details: { alertType: context.alertType, checkResultId: context.checkResultId, responseTime: context.responseTime, error: context.errorMessage },
    },
  };
  return post(providerUrl('pagerduty', '/v2/enqueue', options), 'POST', { 'content-type': 'application/json' }, JSON.stringify(body), context, options);
}

function sendOpsgenie(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const provider = config.region === 'EU' ? 'opsgenie-eu' : 'opsgenie';
  const headers = { 'content-type': 'application/json', authorization: `GenieKey ${String(config.apiKey ?? '')}` };
  const alias = encodeURIComponent(providerAlias(context));
  if (RECOVERIES.has(context.alertType)) {
    return post(providerUrl(provider, `/v2/alerts/${alias}/close?identifierType=alias`, options), 'POST', headers, JSON.stringify({ note: alertTitle(context) }), context, options);
  }
  const body = { message: alertTitle(context).slice(0, 130), alias: providerAlias(context), priority: String(config.priority ?? 'P3'), description: slackText(context), tags: context.tags };
  return post(providerUrl(provider, '/v2/alerts', options), 'POST', headers, JSON.stringify(body), context, options);
}

function sendEmail(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  return mail({ to: String(config.address ?? ''), subject: alertTitle(context), text: slackText(context), notificationId: context.notificationId }, options);
}

/** An incident update for one subscriber; `config` is fixed when the update was posted. */
function sendSubscriberEmail(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const status = String(config.status ?? '');
  const subject = `[${String(config.statusPageName ?? '')}] ${status === 'RESOLVED' ? 'Resolved' : 'Incident'}: ${String(config.incidentName ?? '')}`;
  const text = [`${String(config.incidentName ?? '')} (${String(config.severity ?? '')})`, `Status: ${status}`, String(config.description ?? '')].filter((line) => line !== '').join('\n');
  return mail({ to: String(config.address ?? ''), subject, text, notificationId: context.notificationId }, options);
}

async function mail(message: { to: string; subject: string; text: string; notificationId: string }, options: SendOptions): Promise<SendOutcome> {
  if (!options.smtpUrl) return { kind: 'undeliverable', reason: 'no SMTP server is configured for this service (vigil server --smtp URL), so e-mail cannot be sent' };
  const url = new URL(options.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 25,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    // A dead SMTP server holds one delivery slot for at most this long.
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: options.mailFrom ?? 'vigil@localhost',
      to: message.to,
      subject: message.subject,
      text: message.text,
      headers: { [NOTIFICATION_ID_HEADER]: message.notificationId },
    });
    return { kind: 'sent', result: String(info.response ?? '').slice(0, 500) };
  } finally {
    transport.close();
  }
}

function slackText(context: AlertContext): string {
  const parts = [alertTitle(context)];
  if (context.runLocation) parts.push(`location ${context.runLocation}`);
  if (context.responseTime !== null) parts.push(`${context.responseTime} ms`);
  if (context.errorMessage) parts.push(context.errorMessage);
  return parts.join(' · ');
}

function keyValues(value: unknown): Array<{ key: string; value: string }> {
  if (!Array.isArray(value)) return [];
  return value.filter((entry) => typeof entry?.key === 'string').map((entry) => ({ key: String(entry.key), value: String(entry.value ?? '') }));
}
