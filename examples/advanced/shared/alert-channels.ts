import { EmailAlertChannel, PagerdutyAlertChannel, SlackAlertChannel, WebhookAlertChannel } from '@vigil-mon/cli/constructs';
import { envOr } from './env';

/** Wakes someone up: production failures only, no degraded noise. */
export const pagerduty = new PagerdutyAlertChannel('pagerduty-production', {
  serviceKey: envOr('PAGERDUTY_SERVICE_KEY', 'demo-pagerduty-service-key'),
  serviceName: 'Acme production',
  sendDegraded: false,
  // A pager that alerts every on-call rotation is not one to delete by accident.
  protect: true,
});

export const opsSlack = new SlackAlertChannel('slack-ops', {
  url: envOr('SLACK_WEBHOOK_URL', 'https://hooks.slack.example/services/T000/B000/demo'),
  channel: '#ops-alerts',
  sendDegraded: true,
});

export const platformEmail = new EmailAlertChannel('email-platform', {
  address: 'platform-team@acme.example',
  sslExpiry: true,
  sslExpiryThreshold: 14,
});

/** Feeds the incident tracker; the shared secret signs each delivery. */
export const incidentWebhook = new WebhookAlertChannel('incident-webhook', {
  name: 'Incident tracker',
  url: 'https://incidents.acme.example/hooks/vigil',
  method: 'POST',
  headers: [{ key: 'X-Source', value: 'vigil' }],
  webhookSecret: envOr('INCIDENT_WEBHOOK_SECRET', 'demo-webhook-secret'),
});
