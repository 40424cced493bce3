/** Maps remote alert channels, maintenance windows and status-page services to construct props. */
import { adapterFor } from '../kinds/index.js';
import type { RemoteObject } from '../kinds/types.js';
import { ObjectBuilder, fromValue, literal } from './code.js';
import { baselineOf, differs, remoteView, withoutFalse, type MapContext, type MappedResource } from './context.js';

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
  WEBHOOK: {
    construct: 'WebhookAlertChannel',
    fields: [['name', 'name'], ['url', 'url'], ['method', 'method'], ['headers', 'headers'], ['queryParameters', 'queryParameters'], ['template', 'template'], ['webhookSecret', 'webhookSecret']],
    secrets: ['webhookSecret'],
    defaults: { method: 'POST', headers: [], queryParameters: [] },
  },
  SMS: { construct: 'SmsAlertChannel', fields: [['name', 'name'], ['number', 'phoneNumber']] },
  CALL: { construct: 'PhoneCallAlertChannel', fields: [['name', 'name'], ['number', 'phoneNumber']] },
  PAGERDUTY: { construct: 'PagerdutyAlertChannel', fields: [['serviceKey', 'serviceKey'], ['account', 'account'], ['serviceName', 'serviceName']], secrets: ['serviceKey'] },
  OPSGENIE: { construct: 'OpsgenieAlertChannel', fields: [['name', 'name'], ['apiKey', 'apiKey'], ['region', 'region'], ['priority', 'priority']], secrets: ['apiKey'] },
};

const CHANNEL_FLAGS = { sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false } as const;

export function mapAlertChannel(remote: RemoteObject, context: MapContext): MappedResource {
  const shape = CHANNELS[String(remote.type)];
  if (!shape) throw new Error(`the service returned an alert channel of unknown type ${JSON.stringify(remote.type)}; this vigil cannot import it`);
  const config = (remote.config ?? {}) as Record<string, unknown>;
  const props = new ObjectBuilder();
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

export function mapMaintenanceWindow(remote: RemoteObject): MappedResource {
  const adapter = adapterFor('maintenance-window');
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x', startsAt: view.startsAt, endsAt: view.endsAt, repeatUnit: view.repeatUnit });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  if (differs(view.tags, baseline.tags)) props.set('tags', fromValue(view.tags));
  for (const key of ['startsAt', 'endsAt', 'repeatUnit'] as const) props.set(key, fromValue(view[key]));
  for (const key of ['repeatInterval', 'repeatEndsAt'] as const) if (differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  return { construct: 'MaintenanceWindow', props: props.build(), extraKeys: [] };
}

export function mapStatusPageService(remote: RemoteObject): MappedResource {
  return { construct: 'StatusPageService', props: new ObjectBuilder().set('name', literal(String(remote.name))).build(), extraKeys: [] };
}
