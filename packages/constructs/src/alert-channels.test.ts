import { AlertChannelCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { AlertChannel } from './alert-channel.js';
import { EmailAlertChannel } from './email-alert-channel.js';
import { OpsgenieAlertChannel } from './opsgenie-alert-channel.js';
import { PagerdutyAlertChannel } from './pagerduty-alert-channel.js';
import { PhoneCallAlertChannel } from './phone-call-alert-channel.js';
import { isExternalRef } from './ref.js';
import { SlackAlertChannel } from './slack-alert-channel.js';
import { SlackAppAlertChannel } from './slack-app-alert-channel.js';
import { SmsAlertChannel } from './sms-alert-channel.js';
import { WebhookAlertChannel } from './webhook-alert-channel.js';

const NOTIFICATION_DEFAULTS = { sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30, autoSubscribe: false };

describe('alert channel synth', () => {
  it.each([
    ['EmailAlertChannel', () => new EmailAlertChannel('c', { address: 'ops@example.com' }), { type: 'EMAIL', config: { address: 'ops@example.com' } }, []],
    [
      'SlackAlertChannel',
      () => new SlackAlertChannel('c', { url: 'https://hooks.slack.com/services/T/B/X', channel: '#ops' }),
      { type: 'SLACK', config: { url: 'https://hooks.slack.com/services/T/B/X', channel: '#ops' } },
      [],
    ],
    [
      'SlackAppAlertChannel',
      () => new SlackAppAlertChannel('c', { slackChannels: ['#alerts', '@alice'] }),
      { type: 'SLACK_APP', config: { slackChannels: ['#alerts', '@alice'] } },
      [],
    ],
    [
      'WebhookAlertChannel',
      () => new WebhookAlertChannel('c', { name: 'Hook', url: 'https://example.com/hook', template: '{"check":"{{CHECK_NAME}}"}', webhookSecret: 'whsec' }),
      {
        type: 'WEBHOOK',
        config: { name: 'Hook', url: 'https://example.com/hook', method: 'POST', headers: [], queryParameters: [], template: '{"check":"{{CHECK_NAME}}"}', webhookSecret: 'whsec' },
      },
      ['config.webhookSecret'],
    ],
    ['SmsAlertChannel', () => new SmsAlertChannel('c', { name: 'Ana', phoneNumber: '+31612345678' }), { type: 'SMS', config: { name: 'Ana', number: '+31612345678' } }, []],
    ['PhoneCallAlertChannel', () => new PhoneCallAlertChannel('c', { name: 'Ana', phoneNumber: '+31612345678' }), { type: 'CALL', config: { name: 'Ana', number: '+31612345678' } }, []],
    [
      'PagerdutyAlertChannel',
      () => new PagerdutyAlertChannel('c', { serviceKey: 'pd-key', account: 'acme', serviceName: 'API' }),
      { type: 'PAGERDUTY', config: { serviceKey: 'pd-key', account: 'acme', serviceName: 'API' } },
      ['config.serviceKey'],
    ],
    [
      'OpsgenieAlertChannel',
      () => new OpsgenieAlertChannel('c', { name: 'On call', apiKey: 'og-key', region: 'US', priority: 'P3' }),
      { type: 'OPSGENIE', config: { name: 'On call', apiKey: 'og-key', region: 'US', priority: 'P3' } },
      ['config.apiKey'],
    ],
  ])('%s sends its type and config, with documented defaults and secret keys listed', async (_name, create, body, secretPaths) => {
    const project = await load(() => {
      create();
    });
    const { payload, secrets } = specOf(project, 'alert-channel.c');
    expect(payload).toEqual({ ...NOTIFICATION_DEFAULTS, ...body });
    expect(AlertChannelCreate.parse(payload)).toEqual(payload);
    expect(secrets).toEqual(secretPaths);
  });

  it('keeps the notification switches given', async () => {
    const project = await load(() => {
      new EmailAlertChannel('c', { address: 'ops@example.com', sendRecovery: false, sendDegraded: true, sslExpiry: true, sslExpiryThreshold: 7, autoSubscribe: true });
    });
    expect(specOf(project, 'alert-channel.c').payload).toMatchObject({ sendRecovery: false, sendFailure: true, sendDegraded: true, sslExpiry: true, sslExpiryThreshold: 7, autoSubscribe: true });
  });

  it('refers to an unmanaged channel by id with fromId, on every channel class', () => {
    const ref = SlackAlertChannel.fromId(12);
    expect(isExternalRef(ref)).toBe(true);
    expect([ref.kind, ref.remoteId]).toEqual(['alert-channel', 12]);
    expect(AlertChannel.fromId(12)).toEqual(ref);
  });
});

describe('alert channel rules', () => {
  it('warns about a misspelt prop at the prop the user wrote, as the Checkly CLI ignores it', async () => {
    const project = await load(() => {
      new EmailAlertChannel('c', { address: 'ops@example.com', sendFailur: false } as never); // @at:misspelt
    });
    expect(project.validate()).toEqual([
      { severity: 'warning', address: 'alert-channel.c', path: 'sendFailur', message: '"sendFailur" is not a prop of EmailAlertChannel', hint: 'Did you mean "sendFailure"?', source: markerLocation(import.meta.url, 'misspelt') },
    ]);
  });

  it('reports a SlackAppAlertChannel given slackChannel for slackChannels: the prop misspelt and the required one missing', async () => {
    const project = await load(() => {
      new SlackAppAlertChannel('c', { slackChannel: ['#ops'] } as never); // @at:app-singular
    });
    const source = markerLocation(import.meta.url, 'app-singular');
    expect(project.validate()).toEqual([
      { severity: 'warning', address: 'alert-channel.c', path: 'slackChannel', message: '"slackChannel" is not a prop of SlackAppAlertChannel', hint: 'Did you mean "slackChannels"?', source },
      { severity: 'error', address: 'alert-channel.c', path: 'slackChannels', message: '"slackChannels" is required', source },
    ]);
  });

  // Each row creates its channel on the row's own line, so the row's marker is the expected location.
  it.each([
    ['an invalid e-mail address', 'email', () => new EmailAlertChannel('c', { address: 'not-an-address' }), 'address', '"address" must be a valid email', undefined], // @at:email
    ['a Slack URL that is not a URL', 'slack', () => new SlackAlertChannel('c', { url: 'hooks.slack.com' }), 'url', '"url" must be an absolute http:// or https:// URL, got "hooks.slack.com"', 'Did you mean "https://hooks.slack.com"? {{NAME}} placeholders are allowed, e.g. "{{BASE_URL}}/health".'], // @at:slack
    ['a Slack App channel with no Slack channel', 'app-none', () => new SlackAppAlertChannel('c', { slackChannels: [] }), 'slackChannels', '"slackChannels" must contain at least 1 items', undefined], // @at:app-none
    ['an empty Slack channel name, at its index', 'app-empty', () => new SlackAppAlertChannel('c', { slackChannels: ['#ops', ''] }), 'slackChannels[1]', '"slackChannels[1]" is not allowed to be empty', undefined], // @at:app-empty
    ['Slack channels given as one string', 'app-string', () => new SlackAppAlertChannel('c', { slackChannels: '#ops' as never }), 'slackChannels', '"slackChannels" must be an array', undefined], // @at:app-string
    ['a lower-case webhook method', 'webhook', () => new WebhookAlertChannel('c', { name: 'Hook', url: 'https://example.com', method: 'get' as never }), 'method', '"method" must be one of [GET, POST, PUT, HEAD, DELETE, PATCH]', undefined], // @at:webhook
    ['an empty SMS number, named as the prop', 'sms', () => new SmsAlertChannel('c', { name: 'Ana', phoneNumber: '' }), 'phoneNumber', '"phoneNumber" is not allowed to be empty', undefined], // @at:sms
    ['an empty phone-call name', 'call', () => new PhoneCallAlertChannel('c', { name: '', phoneNumber: '+1' }), 'name', '"name" is not allowed to be empty', undefined], // @at:call
    ['an empty PagerDuty key', 'pagerduty', () => new PagerdutyAlertChannel('c', { serviceKey: '' }), 'serviceKey', '"serviceKey" is not allowed to be empty', undefined], // @at:pagerduty
    ['an unknown Opsgenie region', 'opsgenie', () => new OpsgenieAlertChannel('c', { name: 'x', apiKey: 'k', region: 'ASIA' as never, priority: 'P1' }), 'region', '"region" must be one of [EU, US]', undefined], // @at:opsgenie
    ['an SSL expiry threshold above 30', 'ssl', () => new EmailAlertChannel('c', { address: 'ops@example.com', sslExpiryThreshold: 31 }), 'sslExpiryThreshold', '"sslExpiryThreshold" must be less than or equal to 30', 'sslExpiryThreshold is a number of days between 1 and 30.'], // @at:ssl
  ])('reports %s at the prop the user wrote', async (_title, marker, create, path, message, hint) => {
    const project = await load(() => {
      create();
    });
    expect(project.validate()).toEqual([
      { severity: 'error', address: 'alert-channel.c', path, message, ...(hint ? { hint } : {}), source: markerLocation(import.meta.url, marker) },
    ]);
  });
});
