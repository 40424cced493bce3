import { describe, expect, it } from 'vitest';
import { AlertChannel, AlertChannelCreate, AlertChannelUpdate } from './alert-channels.js';
import { expectAccepted, expectRejected } from './test-support.js';

describe('AlertChannelCreate', () => {
  it('fills the notification defaults', () => {
    expect(expectAccepted(AlertChannelCreate, { type: 'EMAIL', config: { address: 'ops@example.com' } })).toEqual({
      type: 'EMAIL',
      config: { address: 'ops@example.com' },
      sendRecovery: true,
      sendFailure: true,
      sendDegraded: false,
      sslExpiry: false,
      sslExpiryThreshold: 30,
      autoSubscribe: false,
    });
  });

  it.each([
    ['EMAIL', { address: 'a@example.com' }],
    ['SLACK', { url: 'https://hooks.slack.com/x', channel: '#ops' }],
    ['SLACK_APP', { slackChannels: ['#alerts', '@oncall', 'C0123456789'] }],
    ['WEBHOOK', { name: 'hook', url: 'https://example.com/hook', method: 'PUT', headers: [{ key: 'a', value: 'b' }] }],
    ['SMS', { name: 'oncall', number: '+15550100' }],
    ['CALL', { name: 'oncall', number: '+15550100' }],
    ['PAGERDUTY', { serviceKey: 'k', serviceName: 'svc' }],
    ['OPSGENIE', { name: 'og', apiKey: 'k', region: 'EU', priority: 'P1' }],
  ])('accepts a %s channel with its config', (type, config) => {
    expectAccepted(AlertChannelCreate, { type, config });
  });

  it.each([
    ['sslExpiryThreshold 1', 1],
    ['sslExpiryThreshold 30', 30],
  ])('accepts %s', (_name, threshold) => {
    expectAccepted(AlertChannelCreate, { type: 'EMAIL', config: { address: 'a@example.com' }, sslExpiryThreshold: threshold });
  });

  it.each<[string, unknown, string[], string]>([
    ['sslExpiryThreshold 0', { type: 'EMAIL', config: { address: 'a@example.com' }, sslExpiryThreshold: 0 }, ['sslExpiryThreshold'], '"sslExpiryThreshold" must be greater than or equal to 1'],
    ['sslExpiryThreshold 31', { type: 'EMAIL', config: { address: 'a@example.com' }, sslExpiryThreshold: 31 }, ['sslExpiryThreshold'], '"sslExpiryThreshold" must be less than or equal to 30'],
    ['an unknown type', { type: 'PIGEON', config: {} }, ['type'], '"type" must be one of [EMAIL, SLACK, SLACK_APP, WEBHOOK, SMS, PAGERDUTY, OPSGENIE, CALL]'],
    ['a bad e-mail address', { type: 'EMAIL', config: { address: 'nope' } }, ['config.address'], '"config.address" must be a valid email'],
    ['a missing config', { type: 'SLACK' }, ['config'], '"config" is required'],
    ['a webhook without url', { type: 'WEBHOOK', config: { name: 'h' } }, ['config.url'], '"config.url" is required'],
    ['an unknown opsgenie region', { type: 'OPSGENIE', config: { name: 'o', apiKey: 'k', region: 'APAC', priority: 'P1' } }, ['config.region'], '"config.region" must be one of [EU, US]'],
    ['a Slack App channel without slackChannels', { type: 'SLACK_APP', config: {} }, ['config.slackChannels'], '"config.slackChannels" is required'],
    ['a Slack App channel with no Slack channel', { type: 'SLACK_APP', config: { slackChannels: [] } }, ['config.slackChannels'], '"config.slackChannels" must contain at least 1 items'],
    ['a Slack App channel given one string', { type: 'SLACK_APP', config: { slackChannels: '#ops' } }, ['config.slackChannels'], '"config.slackChannels" must be an array'],
    ['an empty Slack channel name', { type: 'SLACK_APP', config: { slackChannels: ['#ops', ''] } }, ['config.slackChannels.1'], '"config.slackChannels[1]" is not allowed to be empty'],
    ['a Slack App channel with an incoming-webhook config', { type: 'SLACK_APP', config: { url: 'https://hooks.slack.com/x' } }, ['config.slackChannels'], '"config.slackChannels" is required'],
    ['a missing opsgenie priority', { type: 'OPSGENIE', config: { name: 'o', apiKey: 'k', region: 'EU' } }, ['config.priority'], '"config.priority" is required'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(AlertChannelCreate, input, { keys, message });
  });
});

describe('AlertChannelUpdate', () => {
  it('needs the type and the config, as the real document does, and fills nothing', () => {
    const config = { name: 'on call', number: '+31612345678' };
    expect(expectAccepted(AlertChannelUpdate, { type: 'SMS', config, sendDegraded: true })).toEqual({ type: 'SMS', config, sendDegraded: true });
    expectRejected(AlertChannelUpdate, { type: 'SMS', sendDegraded: true }, { keys: ['config'], message: '"config" is required' });
  });

  it('validates a sent config against the type', () => {
    expectRejected(AlertChannelUpdate, { type: 'SMS', config: { name: 'x' } }, { keys: ['config.number'], message: '"config.number" is required' });
  });
});

describe('AlertChannel response', () => {
  it('narrows config by type', () => {
    const parsed = AlertChannel.parse({
      id: 1, type: 'SLACK', config: { url: 'https://hooks.slack.com/x' }, subscriptions: [],
      sendRecovery: true, sendFailure: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30,
      autoSubscribe: false, created_at: '2025-01-01T00:00:00.000Z', updated_at: null,
    });
    expect(parsed.type === 'SLACK' ? parsed.config.url : undefined).toBe('https://hooks.slack.com/x');
  });
});
