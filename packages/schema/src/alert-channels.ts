/**
 * Alert channels. `config` depends on `type`, so every schema here
 * is a discriminated union on `type`; an unknown type is reported at `type`, a bad config field at
 * its own path (`config.address`).
 */
import { z } from 'zod';
import { KeyValues } from './embedded.js';
import { allOptional, withDefaults } from './helpers.js';
import { SSL_EXPIRY_THRESHOLD_MAX, SSL_EXPIRY_THRESHOLD_MIN } from './limits.js';
import { ALERT_CHANNEL_TYPES, HttpMethod, OpsgeniePriority, OpsgenieRegion, type AlertChannelType } from './values.js';

export const EmailAlertChannelConfig = z.object({ address: z.email() });
export type EmailAlertChannelConfig = z.infer<typeof EmailAlertChannelConfig>;

export const SlackAlertChannelConfig = z.object({ url: z.url(), channel: z.string().optional() });
export type SlackAlertChannelConfig = z.infer<typeof SlackAlertChannelConfig>;

export const WebhookAlertChannelConfig = z.object({
  name: z.string().min(1),
  /**
   * Any non-empty text, as the real service takes it: projects keep placeholders such as
   * `INSERT_WEBHOOK_HERE` until someone has the URL. Deliveries to a value that is not an http(s)
   * URL are recorded as undeliverable with that reason, and the constructs warn about it.
   */
  url: z.string().min(1),
  method: HttpMethod.default('POST'),
  headers: KeyValues.default([]),
  queryParameters: KeyValues.default([]),
  template: z.string().optional(),
  webhookSecret: z.string().optional(),
  /**
   * Which integration a webhook stands for (`WEBHOOK_MSTEAMS`, `WEBHOOK_TELEGRAM`, `WEBHOOK_INCIDENTIO`, …),
   * as the Checkly CLI's webhook-based channels send it; delivery is the same plain webhook.
   */
  webhookType: z.string().min(1).optional(),
});
export type WebhookAlertChannelConfig = z.infer<typeof WebhookAlertChannelConfig>;

/** SMS and CALL share this config. */
export const PhoneAlertChannelConfig = z.object({ name: z.string().min(1), number: z.string().min(1) });
export type PhoneAlertChannelConfig = z.infer<typeof PhoneAlertChannelConfig>;

export const PagerdutyAlertChannelConfig = z.object({
  serviceKey: z.string().min(1),
  account: z.string().optional(),
  serviceName: z.string().optional(),
});
export type PagerdutyAlertChannelConfig = z.infer<typeof PagerdutyAlertChannelConfig>;

export const OpsgenieAlertChannelConfig = z.object({
  name: z.string().min(1),
  apiKey: z.string().min(1),
  region: OpsgenieRegion,
  priority: OpsgeniePriority,
});
export type OpsgenieAlertChannelConfig = z.infer<typeof OpsgenieAlertChannelConfig>;

/**
 * The Checkly Slack App: Slack `#channel` names (or channel ids) and `@handle`s to post to. The bot
 * token is not part of a channel: it belongs to the account's installation of the app, so the same
 * config works for every account that installed it.
 */
export const SlackAppAlertChannelConfig = z.object({ slackChannels: z.array(z.string().min(1)).min(1) });
export type SlackAppAlertChannelConfig = z.infer<typeof SlackAppAlertChannelConfig>;

/** `config` schema per channel type: the one table every per-type schema below is built from. */
export const ALERT_CHANNEL_CONFIGS = {
  EMAIL: EmailAlertChannelConfig,
  SLACK: SlackAlertChannelConfig,
  SLACK_APP: SlackAppAlertChannelConfig,
  WEBHOOK: WebhookAlertChannelConfig,
  SMS: PhoneAlertChannelConfig,
  PAGERDUTY: PagerdutyAlertChannelConfig,
  OPSGENIE: OpsgenieAlertChannelConfig,
  CALL: PhoneAlertChannelConfig,
} as const satisfies Record<AlertChannelType, z.ZodType>;

const alertChannelFields = {
  sendRecovery: z.boolean().optional(),
  sendFailure: z.boolean().optional(),
  sendDegraded: z.boolean().optional(),
  sslExpiry: z.boolean().optional(),
  sslExpiryThreshold: z.number().int().min(SSL_EXPIRY_THRESHOLD_MIN).max(SSL_EXPIRY_THRESHOLD_MAX).optional(),
  autoSubscribe: z.boolean().optional(),
};

const alertChannelCreateFields = withDefaults(alertChannelFields, {
  sendRecovery: true,
  sendFailure: true,
  sendDegraded: false,
  sslExpiry: false,
  sslExpiryThreshold: 30,
  autoSubscribe: false,
});

/** A check or group subscribed to a channel (response only). */
export const AlertChannelSubscriptionRecord = z.object({
  id: z.number().int(),
  checkId: z.string().nullable(),
  groupId: z.number().int().nullable(),
  activated: z.boolean(),
});
export type AlertChannelSubscriptionRecord = z.infer<typeof AlertChannelSubscriptionRecord>;

const alertChannelResponseFields = {
  ...alertChannelCreateFields,
  id: z.number().int(),
  subscriptions: z.array(AlertChannelSubscriptionRecord),
  created_at: z.string(),
  updated_at: z.string().nullable(),
};

/** One union member: the shared fields, `type` and that type's `config` (required). */
function member<F extends z.ZodRawShape, T extends AlertChannelType>(fields: F, type: T) {
  return z.object({ ...fields, type: z.literal(type), config: ALERT_CHANNEL_CONFIGS[type] });
}

type Members<F extends z.ZodRawShape, Types extends readonly AlertChannelType[]> = {
  readonly [I in keyof Types]: ReturnType<typeof member<F, Types[I] & AlertChannelType>>;
};

/** One member per channel type, in `ALERT_CHANNEL_TYPES` order (the order errors list the types in). */
function perType<F extends z.ZodRawShape>(fields: F): Members<F, typeof ALERT_CHANNEL_TYPES> {
  // `map` loses the tuple's element types; `Members` restores them, one per type as built here.
  return ALERT_CHANNEL_TYPES.map((type) => member(fields, type)) as unknown as Members<F, typeof ALERT_CHANNEL_TYPES>;
}

/** Body of `POST /v1/alert-channels` (extension). */
export const AlertChannelCreate = z.discriminatedUnion('type', perType(alertChannelCreateFields));
export type AlertChannelCreate = z.infer<typeof AlertChannelCreate>;
export type AlertChannelCreateInput = z.input<typeof AlertChannelCreate>;

/**
 * Body of `PUT /v1/alert-channels/{id}`: merge semantics for the switches, but `type` and `config`
 * are required, as the real document has them (`type` decides how `config` is validated; a PUT
 * cannot change a channel's type).
 */
export const AlertChannelUpdate = z.discriminatedUnion('type', perType(allOptional(alertChannelFields)));
export type AlertChannelUpdate = z.infer<typeof AlertChannelUpdate>;

/** An alert channel as the service returns it. */
export const AlertChannel = z.discriminatedUnion('type', perType(alertChannelResponseFields));
export type AlertChannel = z.infer<typeof AlertChannel>;
