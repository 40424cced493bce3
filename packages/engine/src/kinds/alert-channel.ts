import { AlertChannelCreate } from '@vigil/schema';
import type { z } from 'zod';
import { ObjectBuilder, fromValue } from '../import/code.js';
import { mapWebhookIntegration } from './webhook-integrations.js';
import { differs, withoutFalse } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, Payload, RemoteObject } from './types.js';

const schemaByType = new Map<unknown, z.ZodObject>(
  AlertChannelCreate.options.map((option) => [option.shape.type.value, option as unknown as z.ZodObject]),
);

export const alertChannelAdapter = defineAdapter({
  kind: 'alert-channel',
  // One schema per channel type; an unknown type falls back to the first so normalisation still runs.
  schemaFor: (payload: Payload) => schemaByType.get(payload.type) ?? (AlertChannelCreate.options[0] as unknown as z.ZodObject),
  endpoints: { list: 'alertChannels.list', create: 'alertChannels.create', update: 'alertChannels.update', remove: 'alertChannels.delete' },
  // The service cannot change a channel's type in place (PUT keeps it): a new type is a new channel.
  replaceOn: ['type'],
  importing: {
    order: 10,
    placement: { file: 'shared', stem: 'alert-channels' },
    slugFallback: 'alert-channel',
    variableSuffix: '',
    fromIdClass: 'AlertChannel',
    displayName: channelDisplayName,
    map: mapAlertChannel,
  },
});

/** A channel without a name is called by the address it notifies (a Slack App channel: its Slack channels). */
function channelDisplayName(remote: RemoteObject): string {
  const config = (remote.config ?? {}) as Record<string, unknown>;
  if (Array.isArray(config.slackChannels) && config.slackChannels.length > 0) return config.slackChannels.join(', ');
  for (const key of ['name', 'address', 'channel', 'serviceName', 'account']) {
    const value = config[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return `${String(remote.type ?? 'alert').toLowerCase()} channel`;
}

interface ChannelShape {
  readonly construct: string;
  /** Config key → prop name, in the order the props are written. */
  readonly fields: ReadonlyArray<readonly [string, string]>;
  readonly secrets?: readonly string[];
  /** Config keys written only when they differ from these defaults. */
  readonly defaults?: Readonly<Record<string, unknown>>;
}

const CHANNELS: Readonly<Record<string, ChannelShape>> = {
  EMAIL: { construct: 'EmailAlertChannel', fields: [['address', 'address']] },
  SLACK: { construct: 'SlackAlertChannel', fields: [['url', 'url'], ['channel', 'channel']] },
  SLACK_APP: { construct: 'SlackAppAlertChannel', fields: [['slackChannels', 'slackChannels']] },
  WEBHOOK: {
    construct: 'WebhookAlertChannel',
    fields: [['name', 'name'], ['url', 'url'], ['method', 'method'], ['headers', 'headers'], ['queryParameters', 'queryParameters'], ['template', 'template'], ['webhookSecret', 'webhookSecret'], ['webhookType', 'webhookType']],
    secrets: ['webhookSecret'],
    defaults: { method: 'POST', headers: [], queryParameters: [] },
  },
  SMS: { construct: 'SmsAlertChannel', fields: [['name', 'name'], ['number', 'phoneNumber']] },
  CALL: { construct: 'PhoneCallAlertChannel', fields: [['name', 'name'], ['number', 'phoneNumber']] },
  PAGERDUTY: { construct: 'PagerdutyAlertChannel', fields: [['serviceKey', 'serviceKey'], ['account', 'account'], ['serviceName', 'serviceName']], secrets: ['serviceKey'] },
  OPSGENIE: { construct: 'OpsgenieAlertChannel', fields: [['name', 'name'], ['apiKey', 'apiKey'], ['region', 'region'], ['priority', 'priority']], secrets: ['apiKey'] },
};

const CHANNEL_FLAGS = { sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false } as const;

function mapAlertChannel(remote: RemoteObject, { context }: MapInput): MappedResource {
  const shape = CHANNELS[String(remote.type)];
  if (!shape) throw new Error(`the service returned an alert channel of unknown type ${JSON.stringify(remote.type)}; this vigil cannot import it`);
  const config = (remote.config ?? {}) as Record<string, unknown>;
  const props = new ObjectBuilder();
  // A webhook standing for an integration (MS Teams, Telegram, incident.io) is written as its construct.
  const integration = remote.type === 'WEBHOOK' ? mapWebhookIntegration(config, props, context) : undefined;
  if (integration !== undefined) {
    for (const [key, fallback] of Object.entries(CHANNEL_FLAGS)) {
      if (remote[key] !== undefined && differs(remote[key], fallback)) props.set(key, fromValue(remote[key]));
    }
    return { construct: integration, props: props.build(), extraKeys: [] };
  }
  for (const [key, prop] of shape.fields) {
    const value = config[key];
    if (shape.secrets?.includes(key)) {
      if (value !== undefined) props.set(prop, context.secret({ path: `config.${key}`, hint: prop, remoteValue: value }));
      continue;
    }
    if (value === undefined || (shape.defaults && key in shape.defaults && !differs(value, shape.defaults[key]))) continue;
    props.set(prop, fromValue(Array.isArray(value) ? value.map((item) => withoutFalse(item, ['locked'])) : value));
  }
  for (const [key, fallback] of Object.entries(CHANNEL_FLAGS)) {
    if (remote[key] !== undefined && differs(remote[key], fallback)) props.set(key, fromValue(remote[key]));
  }
  return { construct: shape.construct, props: props.build(), extraKeys: [] };
}
