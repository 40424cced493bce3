/**
 * `vigil import` of a WEBHOOK channel whose `webhookType` names an integration the constructs have
 * (the Checkly CLI's MSTeamsAlertChannel, TelegramAlertChannel, IncidentioAlertChannel): its
 * construct and the props it was built from, when the config is exactly what that construct sends.
 * Anything it could not have sent (another method, extra headers, a signing secret) stays a
 * `WebhookAlertChannel` with its `webhookType`, which reproduces any config.
 */
import { IncidentioAlertChannel, MSTeamsAlertChannel, TelegramAlertChannel } from '@vigil/constructs';
import { fromValue, literal, type ObjectBuilder } from '../import/code.js';
import type { MapContext } from './types.js';

type Config = Record<string, unknown>;

function isEmptyList(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.length === 0);
}

/** The parts every integration construct fixes: POST, no query parameters, no signing secret. */
function plainWebhook(config: Config): boolean {
  return (config.method ?? 'POST') === 'POST' && isEmptyList(config.queryParameters) && (config.webhookSecret === undefined || config.webhookSecret === '');
}

const TELEGRAM_URL = /^https:\/\/api\.telegram\.org\/bot([^/]+)\/sendMessage$/;
const TELEGRAM_TEMPLATE = /^chat_id=([^&]*)(?:&message_thread_id=([^&]*))?&parse_mode=HTML&text=([\s\S]*)$/;
const BEARER = /^Bearer (.+)$/;

/**
 * Sets the integration's props on `props` and returns its construct's name, or `undefined` (and
 * sets nothing) when the channel is a plain webhook or one its construct could not have sent.
 */
export function mapWebhookIntegration(config: Config, props: ObjectBuilder, context: MapContext): string | undefined {
  if (!plainWebhook(config) || typeof config.name !== 'string' || typeof config.url !== 'string') return undefined;
  const template = typeof config.template === 'string' ? config.template : undefined;
  switch (config.webhookType) {
    case 'WEBHOOK_MSTEAMS': {
      if (!isEmptyList(config.headers)) return undefined;
      props.set('name', literal(config.name)).set('url', literal(config.url));
      if (template !== undefined && template !== MSTeamsAlertChannel.DEFAULT_PAYLOAD) props.set('payload', literal(template));
      return 'MSTeamsAlertChannel';
    }
    case 'WEBHOOK_TELEGRAM': {
      const url = TELEGRAM_URL.exec(config.url);
      const body = template === undefined ? null : TELEGRAM_TEMPLATE.exec(template);
      if (!isEmptyList(config.headers) || url === null || body === null) return undefined;
      const [, chatId = '', thread, payload = ''] = body;
      props.set('name', literal(config.name)).set('chatId', literal(chatId));
      props.set('apiKey', context.secret({ path: 'config.url', hint: 'API_KEY', remoteValue: url[1], payloadValue: config.url }));
      if (thread !== undefined) props.set('messageThreadId', literal(thread));
      if (payload !== TelegramAlertChannel.DEFAULT_PAYLOAD) props.set('payload', literal(payload));
      return 'TelegramAlertChannel';
    }
    case 'WEBHOOK_INCIDENTIO': {
      const headers = Array.isArray(config.headers) ? (config.headers as Array<{ key?: unknown; value?: unknown; locked?: unknown }>) : [];
      const [header] = headers;
      const token = typeof header?.value === 'string' ? BEARER.exec(header.value) : null;
      if (headers.length !== 1 || header?.key !== 'authorization' || header.locked === true || token === null) return undefined;
      props.set('name', literal(config.name)).set('url', literal(config.url));
      props.set('apiKey', context.secret({ path: 'config.headers[0].value', hint: 'API_KEY', remoteValue: token[1], payloadValue: header.value as string }));
      if (template !== undefined && template !== IncidentioAlertChannel.DEFAULT_PAYLOAD) props.set('payload', fromValue(template));
      return 'IncidentioAlertChannel';
    }
    default:
      return undefined;
  }
}
