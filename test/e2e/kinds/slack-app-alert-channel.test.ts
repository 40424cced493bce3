/**
 * Checkly's SlackAppAlertChannel against a real `vigil server` through the real CLI: planned,
 * applied, planned again with no change; a change of its Slack channels planned as that one field;
 * a failing check subscribed to it posts one `chat.postMessage` to a loopback stand-in of Slack's
 * Web API (`--provider-url slack=URL`) with the account's bot token (`slackAppToken` of
 * `--accounts FILE`), which neither the notifications nor the service's log show; and `vigil
 * import` writes it back as a SlackAppAlertChannel whose next plan is empty.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, startVigilServer, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

const TOKEN = 'xoxb-4242-e2e-slack-app-bot-token';
let target: Server;
let slack: Server;
let targetUrl: string;
let slackUrl: string;
let workdir: string;
let service: ChildProcess | undefined;
const projects: string[] = [];
const posted: Array<{ url: string; headers: IncomingHttpHeaders; body: { channel?: string; text?: string } }> = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(500).end('down'));
  slack = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      posted.push({ url: request.url!, headers: request.headers, body: JSON.parse(body) as { channel?: string } });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"channel":"C01","ts":"1.1"}');
    });
  });
  targetUrl = await listen(target);
  slackUrl = await listen(slack);
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-slack-app-'));
});

afterAll(async () => {
  service?.kill('SIGKILL');
  for (const server of [target, slack]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const dir of [workdir, ...projects]) await rm(dir, { recursive: true, force: true });
});

const CONFIG = "import { defineConfig } from 'checkly'\n\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop', checks: { checkMatch: '**/*.check.ts' } })\n";

function checks(slackChannels: string[]): string {
  return `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder, SlackAppAlertChannel } from 'checkly/constructs'

const teamSlack = new SlackAppAlertChannel('team-slack', { slackChannels: ${JSON.stringify(slackChannels)} })

new ApiCheck('shop', {
  name: 'Shop API',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  alertChannels: [teamSlack],
  request: { url: '${targetUrl}/health', assertions: [AssertionBuilder.statusCode().equals(200)] },
})
`;
}

describe('SlackAppAlertChannel', () => {
  it('plans, applies and plans empty; posts one chat.postMessage for a failing check with the hidden token; imports back', async () => {
    const accounts = path.join(workdir, 'accounts.json');
    await writeFile(accounts, JSON.stringify([{ apiKey: 'vigil-local', accountId: 'local', slackAppToken: TOKEN }]));
    const started = await startVigilServer(['--data', path.join(workdir, 'data'), '--accounts', accounts, '--provider-url', `slack=${slackUrl}/api`]);
    service = started.child;
    const env = targetEnv(started.url);
    const root = await writeProject('vigil-slack-app-project-', { 'checkly.config.ts': CONFIG, 'alerts.check.ts': checks(['#alerts']) });
    projects.push(root);

    const plan = await vigil(['plan'], { cwd: root, env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('alert-channel.team-slack');
    expect((await vigil(['apply', '--auto-approve'], { cwd: root, env })).code).toBe(0);
    const empty = await vigil(['plan', '--detailed-exitcode'], { cwd: root, env });
    expect(empty.stdout).toContain('No changes');
    expect(empty.code).toBe(0);

    const channels = await getJson<Array<{ type: string; config: unknown }>>(started.url, '/v1/alert-channels');
    expect(channels.map((channel) => [channel.type, channel.config])).toEqual([['SLACK_APP', { slackChannels: ['#alerts'] }]]);

    // The check fails from its first run: one failure notification, posted once.
    const notifications = () => getJson<Array<Record<string, unknown>>>(started.url, '/v1/alert-notifications');
    const [sent] = await waitFor('the Slack App notification to be SENT', async () => {
      const listed = await notifications();
      return listed.some((item) => item.delivery === 'SENT') ? listed : undefined;
    });
    expect(sent).toMatchObject({ type: 'SLACK_APP', alertType: 'ALERT_FAILURE', delivery: 'SENT', alertConfig: { slackChannels: ['#alerts'] } });
    expect(posted).toHaveLength(1);
    expect(posted[0]!.url).toBe('/api/chat.postMessage');
    expect(posted[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(posted[0]!.body).toMatchObject({ channel: '#alerts', text: expect.stringContaining("Check 'Shop API' has failed") });
    expect(JSON.stringify(await notifications())).not.toContain(TOKEN);
    expect(started.stderr()).not.toContain(TOKEN);

    // Another Slack channel is a change of that one field, applied in place.
    await writeFile(path.join(root, 'alerts.check.ts'), checks(['#alerts', '#ops']));
    const changed = await vigil(['plan'], { cwd: root, env });
    expect(changed.stdout).toContain('~ alert-channel.team-slack');
    expect(changed.stdout).toContain('config.slackChannels');
    expect((await vigil(['apply', '--auto-approve'], { cwd: root, env })).code).toBe(0);
    expect((await vigil(['plan', '--detailed-exitcode'], { cwd: root, env })).code).toBe(0);

    const fresh = await writeProject('vigil-slack-app-import-', {
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    projects.push(fresh);
    const imported = await vigil(['import'], { cwd: fresh, env });
    expect(imported.code).toBe(0);
    const source = await readFile(path.join(fresh, 'imported', 'alert-channels.monitor.ts'), 'utf8');
    expect(source).toContain("export const alertsOps = new SlackAppAlertChannel('alerts-ops', { slackChannels: ['#alerts', '#ops'] });");
    const next = await vigil(['plan', '--detailed-exitcode'], { cwd: fresh, env });
    expect(next.stdout).toContain('No changes');
    expect(next.code).toBe(0);
    expect(started.stderr()).not.toContain(TOKEN);
  }, 180_000);
});
