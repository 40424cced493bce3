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
 * SLACK: an incoming-webhook `{ text }` message. SLACK_APP: a Web API `chat.postMessage` per Slack
 * channel with the account's Slack App bot token (alerting/slack-app.ts). EMAIL: through the SMTP
 * server of `smtpUrl` (nodemailer), UNDELIVERABLE without one. Every request and e-mail carries
 * `x-vigil-notification-id`, the same on every retry, for the receiver's de-duplication.
 * PAGERDUTY: an Events API v2 `trigger` (a recovery `resolve`s), deduplicated by the check id.
 * OPSGENIE: an alert (aliased by the check id; a recovery closes it) with the channel's priority.
 * Provider base URLs (PagerDuty, Opsgenie, Slack's Web API) are overridable
 * (`vigil server --provider-url NAME=URL`).
 * ALERT_SSL (a certificate expiring soon) goes through the same channels; PagerDuty and Opsgenie
 * get it as a warning of its own (dedup key / alias `CHECK_ID:ssl`), so it never resolves or
 * merges with the check's failure incident.
 * STATUS_PAGE_SUBSCRIBER is not a channel but rides the same outbox: an incident update e-mailed to
 * one VERIFIED subscriber of a status page (alerting/incidents.ts), or the verification e-mail of a
 * subscription made on the public page (`kind: 'verification'`, public-pages/subscribe-routes.ts),
 * through the same SMTP server. Both carry the subscription's unsubscribe link in the text and as
 * `List-Unsubscribe` with `List-Unsubscribe-Post` (RFC 8058), so a mail client's unsubscribe button
 * is one POST, when the page has a public address to link to.
 * Webhook, Slack and provider requests obey the service's network policy (`--deny-network`, like checks), so
 * a channel URL cannot make the service an SSRF proxy: a denied address is UNDELIVERABLE.
 */
import { createHmac } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { BoundedMap } from '../bounded-map.js';
import { NOTIFICATION_ID_HEADER, post, providerUrl, type AlertContext, type SendOptions, type SendOutcome } from './delivery.js';
import { sendSlackApp } from './slack-app.js';
import { renderWebhookTemplate, TemplateError, type TemplateValue } from './webhook-template.js';

export { NOTIFICATION_ID_HEADER, PROVIDER_BASE_URLS, type AlertContext, type SendOptions, type SendOutcome, type SubscriberMailLinks } from './delivery.js';

/** The outbox `channel_type` of an incident update e-mailed to a status page's subscriber. */
export const SUBSCRIBER_DELIVERY = 'STATUS_PAGE_SUBSCRIBER';

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
    case 'SLACK': {
      const body = JSON.stringify({ text: slackText(context), ...(config.channel ? { channel: config.channel } : {}) });
      return post({ url: String(config.url ?? ''), method: 'POST', headers: { 'content-type': 'application/json' }, body }, context, options);
    }
    case 'SLACK_APP':
      return sendSlackApp(config, alertMessage(context), context, options);
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
  return post({ url: url.href, method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body }, context, options);
}

const RECOVERIES = new Set(['ALERT_RECOVERY', 'ALERT_DEGRADED_RECOVERY']);

/** The provider-side identity of the alert: the check's failure incident, or its certificate warning. */
function providerAlias(context: AlertContext): string {
  return context.alertType === 'ALERT_SSL' ? `${context.checkId}:ssl` : context.checkId;
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
  return post({ url: providerUrl('pagerduty', '/v2/enqueue', options), method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, context, options);
}

function sendOpsgenie(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const provider = config.region === 'EU' ? 'opsgenie-eu' : 'opsgenie';
  const headers = { 'content-type': 'application/json', authorization: `GenieKey ${String(config.apiKey ?? '')}` };
  const alias = encodeURIComponent(providerAlias(context));
  if (RECOVERIES.has(context.alertType)) {
    const url = providerUrl(provider, `/v2/alerts/${alias}/close?identifierType=alias`, options);
    return post({ url, method: 'POST', headers, body: JSON.stringify({ note: alertTitle(context) }) }, context, options);
  }
  const body = { message: alertTitle(context).slice(0, 130), alias: providerAlias(context), priority: String(config.priority ?? 'P3'), description: slackText(context), tags: context.tags };
  return post({ url: providerUrl(provider, '/v2/alerts', options), method: 'POST', headers, body: JSON.stringify(body) }, context, options);
}

function sendEmail(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  return mail({ to: String(config.address ?? ''), subject: alertTitle(context), text: slackText(context), notificationId: context.notificationId }, options);
}

/** An incident update, or a verification request, for one subscriber; `config` is fixed when it was queued. */
function sendSubscriberEmail(config: Record<string, unknown>, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const links = options.mailLinks ?? {};
  const pageName = String(config.statusPageName ?? '');
  const unsubscribe = links.unsubscribeUrl ? `\n\nTo stop these e-mails: ${links.unsubscribeUrl}` : '';
  const headers: Record<string, string> = links.unsubscribeUrl
    ? { 'List-Unsubscribe': `<${links.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
    : {};
  if (config.kind === 'verification') {
    // A verification mail without its link would ask the reader for something they cannot do.
    if (!links.verifyUrl) return Promise.resolve({ kind: 'undeliverable', reason: `status page ${String(config.statusPageId ?? '')} no longer has a public address to confirm at` });
    const text = [
      `Someone, hopefully you, asked to receive e-mails about incidents on the status page ${pageName}.`,
      `To confirm, open this link and press the button: ${links.verifyUrl}`,
      'The link works for 24 hours. If you did not ask for this, ignore this e-mail: nothing is sent until the subscription is confirmed.',
    ].join('\n\n');
    return mail({ to: String(config.address ?? ''), subject: `[${pageName}] Confirm your subscription`, text: text + unsubscribe, notificationId: context.notificationId, headers }, options);
  }
  const status = String(config.status ?? '');
  const subject = `[${pageName}] ${status === 'RESOLVED' ? 'Resolved' : 'Incident'}: ${String(config.incidentName ?? '')}`;
  const text = [`${String(config.incidentName ?? '')} (${String(config.severity ?? '')})`, `Status: ${status}`, String(config.description ?? '')].filter((line) => line !== '').join('\n');
  return mail({ to: String(config.address ?? ''), subject, text: text + unsubscribe, notificationId: context.notificationId, headers }, options);
}

async function mail(message: { to: string; subject: string; text: string; notificationId: string; headers?: Record<string, string> }, options: SendOptions): Promise<SendOutcome> {
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
      headers: { ...message.headers, [NOTIFICATION_ID_HEADER]: message.notificationId },
    });
    return { kind: 'sent', result: String(info.response ?? '').slice(0, 500) };
  } finally {
    transport.close();
  }
}

/** The alert's title and what else is known of it (where, how slow, the error), for chat messages. */
function alertMessage(context: AlertContext): { title: string; details: string[] } {
  const details: string[] = [];
  if (context.runLocation) details.push(`location ${context.runLocation}`);
  if (context.responseTime !== null) details.push(`${context.responseTime} ms`);
  if (context.errorMessage) details.push(context.errorMessage);
  return { title: alertTitle(context), details };
}

function slackText(context: AlertContext): string {
  const { title, details } = alertMessage(context);
  return [title, ...details].join(' · ');
}

function keyValues(value: unknown): Array<{ key: string; value: string }> {
  if (!Array.isArray(value)) return [];
  return value.filter((entry) => typeof entry?.key === 'string').map((entry) => ({ key: String(entry.key), value: String(entry.value ?? '') }));
}
