/**
 * Checkly's webhook-based alert channels against a real vigil server: applied as WEBHOOK channels
 * with their webhookType, imported back as their own constructs (keys as process.env), and the
 * next plan of the imported project is empty.
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../../support/cli.js';

let root: string;
let fresh: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-webhook-channels-'));
  fresh = await mkdtemp(path.join(tmpdir(), 'vigil-webhook-channels-import-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
  await rm(fresh, { recursive: true, force: true });
});

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
}

const CHANNELS = `import { IncidentioAlertChannel, MSTeamsAlertChannel, TelegramAlertChannel, WebhookAlertChannel } from 'checkly/constructs'

new MSTeamsAlertChannel('teams', { name: 'Teams', url: 'https://acme.webhook.office.com/webhookb2/x' })
new TelegramAlertChannel('telegram', { name: 'Bot', chatId: '-1001', apiKey: '123:secret-token', messageThreadId: '9' })
new IncidentioAlertChannel('incidentio', { name: 'incident.io', url: 'https://api.incident.io/v2/alert_events/http/abc', apiKey: 'inc-secret', payload: '{"title":"{{ALERT_TITLE}}"}' })
new WebhookAlertChannel('signed-teams', { name: 'Signed', url: 'https://example.com/h', webhookType: 'WEBHOOK_MSTEAMS', webhookSecret: 'whsec' })
`;

describe("Checkly's webhook-based channels", () => {
  it('apply as WEBHOOK channels with their webhookType and import back as their constructs, the next plan empty', async () => {
    await write(root, {
      'checkly.config.ts': "import { defineConfig } from 'checkly'\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop', checks: { checkMatch: '**/*.check.ts' } })\n",
      'channels.check.ts': CHANNELS,
    });
    const apply = await vigil(['apply', '--auto-approve'], { cwd: root, env: targetEnv(server.url) });
    expect(apply.code).toBe(0);
    expect(apply.stdout).not.toContain('secret-token');
    expect(apply.stdout).not.toContain('inc-secret');
    const response = await fetch(`${server.url}/v1/alert-channels`, { headers: { authorization: 'Bearer vigil-local' } });
    const channels = (await response.json()) as Array<{ type: string; config: { name: string; webhookType?: string } }>;
    expect(channels.map((channel) => [channel.type, channel.config.name, channel.config.webhookType]).sort()).toEqual([
      ['WEBHOOK', 'Bot', 'WEBHOOK_TELEGRAM'],
      ['WEBHOOK', 'Signed', 'WEBHOOK_MSTEAMS'],
      ['WEBHOOK', 'Teams', 'WEBHOOK_MSTEAMS'],
      ['WEBHOOK', 'incident.io', 'WEBHOOK_INCIDENTIO'],
    ]);

    await write(fresh, {
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    const imported = await vigil(['import'], { cwd: fresh, env: targetEnv(server.url) });
    expect(imported.code).toBe(0);
    const source = await readFile(path.join(fresh, 'imported', 'alert-channels.monitor.ts'), 'utf8');
    expect(source).toContain("export const teams = new MSTeamsAlertChannel('teams', { name: 'Teams', url: 'https://acme.webhook.office.com/webhookb2/x' });");
    expect(source).toContain("export const bot = new TelegramAlertChannel('bot', { name: 'Bot', chatId: '-1001', apiKey: process.env.BOT_API_KEY!, messageThreadId: '9' });");
    expect(source).toContain(
      "export const incidentIo = new IncidentioAlertChannel('incident-io', {\n  name: 'incident.io',\n  url: 'https://api.incident.io/v2/alert_events/http/abc',\n" +
        "  apiKey: process.env.INCIDENT_IO_API_KEY!,\n  payload: '{\"title\":\"{{ALERT_TITLE}}\"}',\n});",
    );
    // A signing secret is more than the MS Teams construct sends: it stays a webhook with its type.
    expect(source).toContain(
      "export const signed = new WebhookAlertChannel('signed', {\n  name: 'Signed',\n  url: 'https://example.com/h',\n" +
        "  webhookSecret: process.env.SIGNED_WEBHOOK_SECRET!,\n  webhookType: 'WEBHOOK_MSTEAMS',\n});",
    );

    const secrets = { BOT_API_KEY: '123:secret-token', INCIDENT_IO_API_KEY: 'inc-secret', SIGNED_WEBHOOK_SECRET: 'whsec' };
    const plan = await vigil(['plan', '--detailed-exitcode'], { cwd: fresh, env: targetEnv(server.url, secrets) });
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  }, 180_000);
});
