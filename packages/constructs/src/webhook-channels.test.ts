import { AlertChannelCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, problems, specOf } from './__fixtures__/load.js';
import { WebhookAlertChannel } from './webhook-alert-channel.js';
import { IncidentioAlertChannel, MSTeamsAlertChannel, TelegramAlertChannel } from './webhook-channels.js';

async function synth(define: () => void) {
  const spec = specOf(await load(define), 'alert-channel.c');
  return { payload: spec.payload, secrets: spec.secrets };
}

describe("Checkly's webhook-based alert channels", () => {
  it('sends an MSTeamsAlertChannel as a WEBHOOK_MSTEAMS webhook with the Checkly CLI’s card', async () => {
    const { payload, secrets } = await synth(() => new MSTeamsAlertChannel('c', { name: 'Teams', url: new URL('https://acme.webhook.office.com/x') }));
    expect(payload).toMatchObject({
      type: 'WEBHOOK',
      config: { name: 'Teams', webhookType: 'WEBHOOK_MSTEAMS', url: 'https://acme.webhook.office.com/x', method: 'POST', headers: [], queryParameters: [], template: MSTeamsAlertChannel.DEFAULT_PAYLOAD },
    });
    expect(MSTeamsAlertChannel.DEFAULT_PAYLOAD).toContain('"contentType":"application/vnd.microsoft.card.adaptive"');
    expect(secrets).toEqual([]);
  });

  it('sends a TelegramAlertChannel to the bot API with the chat in a form body, the token-bearing URL secret', async () => {
    const { payload, secrets } = await synth(() => new TelegramAlertChannel('c', { name: 'Bot', chatId: '-100', apiKey: '123:abc', messageThreadId: '7', payload: 'hi {{CHECK_NAME}}' }));
    expect(payload).toMatchObject({
      type: 'WEBHOOK',
      config: { name: 'Bot', webhookType: 'WEBHOOK_TELEGRAM', url: 'https://api.telegram.org/bot123:abc/sendMessage', method: 'POST', template: 'chat_id=-100&message_thread_id=7&parse_mode=HTML&text=hi {{CHECK_NAME}}' },
    });
    expect(secrets).toEqual(['config.url']);
  });

  it('uses the Checkly CLI’s Telegram message when no payload is given', async () => {
    const { payload } = await synth(() => new TelegramAlertChannel('c', { name: 'Bot', chatId: '42', apiKey: 'k' }));
    expect((payload.config as { template: string }).template).toBe(`chat_id=42&parse_mode=HTML&text=${TelegramAlertChannel.DEFAULT_PAYLOAD}`);
  });

  it('sends an IncidentioAlertChannel with its key as a bearer token, kept secret', async () => {
    const { payload, secrets } = await synth(() => new IncidentioAlertChannel('c', { name: 'incident.io', url: 'https://api.incident.io/v2/alert_events/http/x', apiKey: 'inc-key' }));
    expect(payload).toMatchObject({
      type: 'WEBHOOK',
      config: {
        webhookType: 'WEBHOOK_INCIDENTIO',
        headers: [{ key: 'authorization', value: 'Bearer inc-key', locked: false }],
        template: IncidentioAlertChannel.DEFAULT_PAYLOAD,
      },
    });
    expect(IncidentioAlertChannel.DEFAULT_PAYLOAD).toContain('"deduplication_key": "{{CHECK_ID}}"');
    expect(secrets).toEqual(['config.headers[0].value']);
  });

  it('lets a WebhookAlertChannel name its integration with webhookType', async () => {
    const { payload } = await synth(() => new WebhookAlertChannel('c', { name: 'Fire', url: 'https://example.com/h', webhookType: 'WEBHOOK_FIREHYDRANT' }));
    expect(AlertChannelCreate.parse(payload)).toMatchObject({ config: { webhookType: 'WEBHOOK_FIREHYDRANT' } });
  });

  it.each([
    ['an unknown prop, with the props it has', () => new MSTeamsAlertChannel('c', { name: 'T', url: 'https://example.com', channel: '#x' } as never), '"channel" is not a prop of MSTeamsAlertChannel'],
    ['a malformed webhookType', () => new WebhookAlertChannel('c', { name: 'W', url: 'https://example.com', webhookType: 'teams' }), '"webhookType" must be WEBHOOK_ followed by capital letters, digits or _, e.g. "WEBHOOK_MSTEAMS", got "teams"'],
  ])('reports %s', async (_, define, message) => {
    const found = problems(await load(define)).map((problem) => problem.message);
    expect(found[0]).toBe(message);
  });

  it.each([
    ['Incident.io', () => new IncidentioAlertChannel('c', { name: 'I', url: 'ftp://example.com', apiKey: 'k' }), 'ftp://example.com'],
    // Checkly's own example projects keep this placeholder; the service stores it as it stores any text.
    ['MS Teams', () => new MSTeamsAlertChannel('c', { name: 'T', url: 'INSERT_WEBHOOK_HERE' }), 'INSERT_WEBHOOK_HERE'],
    ['a plain webhook', () => new WebhookAlertChannel('c', { name: 'W', url: 'INSERT_WEBHOOK_HERE' }), 'INSERT_WEBHOOK_HERE'],
  ])('warns, without refusing, about a %s URL that is not http(s), since the service takes any text there', async (_, define, url) => {
    const project = await load(define);
    expect(problems(project)).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: `"url" is not an absolute http:// or https:// URL (got ${JSON.stringify(url)}): the service stores it, but every notification to it will fail`,
      }),
    ]);
    expect(AlertChannelCreate.safeParse(specOf(project, 'alert-channel.c').payload).success).toBe(true);
  });
});
