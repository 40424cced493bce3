/**
 * Secrets on their way out, in whatever spelling they took.
 *
 * A service may echo what it was sent in an error message. Whatever it echoes, the CLI prints no
 * secret it knows (the API key, secret variables, basic-auth passwords, alert-channel keys, webhook
 * secrets) and no `Bearer` credential. The service there is a hostile stand-in on loopback that
 * answers every write with a 400 quoting the request's headers and body.
 *
 * A tenant's checks under a real `vigil server` leave no spelling of their secrets in what the
 * service and `vigil test` give back (the second describe).
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getJson, startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const SECRETS = {
  apiKey: 'echo-api-key-7890',
  basicAuth: 'basic-pass-1234',
  variable: 'env-secret-5678',
  webhook: 'webhook-secret-9012',
  opsgenie: 'opsgenie-key-3456',
  quoted: 'pa"ss\\word-0000',
};

let root: string;
let service: Server;
let url: string;

describe('errors quoting the service', () => {
  beforeEach(async () => {
    service = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        if (request.method === 'GET' && request.url !== '/v1/accounts') {
          response.end('[]');
          return;
        }
        response.statusCode = 400;
        const message = `rejected ${request.method} ${request.url}: headers ${JSON.stringify(request.headers)} body ${body}`;
        response.end(JSON.stringify({ statusCode: 400, error: 'Bad Request', message }));
      });
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;

    root = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-redaction-'));
    await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
    await mkdir(path.join(root, 'monitors'));
    await writeFile(
      path.join(root, 'monitors', 'all.monitor.ts'),
      [
        "import { ApiCheck, CheckGroupV2, OpsgenieAlertChannel, WebhookAlertChannel } from 'vigil/constructs';",
        `new ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/', basicAuth: { username: 'svc', password: ${JSON.stringify(SECRETS.basicAuth)} } } });`,
        'new CheckGroupV2(\'web\', {',
        "  name: 'Web',",
        `  environmentVariables: [{ key: 'TOKEN', value: process.env.TOKEN!, secret: true }, { key: 'QUOTED', value: ${JSON.stringify(SECRETS.quoted)}, secret: true }],`,
        '});',
        `new WebhookAlertChannel('hook', { name: 'Hook', url: 'https://hooks.example.com/x', webhookSecret: ${JSON.stringify(SECRETS.webhook)} });`,
        `new OpsgenieAlertChannel('genie', { name: 'Genie', apiKey: ${JSON.stringify(SECRETS.opsgenie)}, region: 'EU', priority: 'P2' });`,
        '',
      ].join('\n'),
    );
  });

  afterEach(async () => {
    await new Promise((resolve) => service.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  it('print no secret the CLI knows, in apply\'s failure summary', async () => {
    const result = await vigil(['apply', '--auto-approve'], {
      cwd: root,
      env: { VIGIL_API_URL: url, VIGIL_API_KEY: SECRETS.apiKey, VIGIL_ACCOUNT_ID: 'acct', VIGIL_RATE_LIMIT: 'off', TOKEN: SECRETS.variable },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Apply failed with 4 errors:');
    // The echo came through (the request is quoted), only without the secrets in it.
    expect(result.stderr).toContain('"authorization":"Bearer (redacted)"');
    expect(result.stderr).toContain('"password":"(redacted)"');
    for (const secret of Object.values(SECRETS)) {
      expect(result.stderr).not.toContain(secret);
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(JSON.stringify(secret).slice(1, -1));
    }
  }, 120_000);

  it('print no API key in the error that ends plan', async () => {
    const result = await vigil(['plan'], { cwd: root, env: { VIGIL_API_URL: url, VIGIL_API_KEY: SECRETS.apiKey, VIGIL_RATE_LIMIT: 'off', TOKEN: SECRETS.variable } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: \[GET\] "\/v1\/accounts": 400 Bad Request — rejected GET \/v1\/accounts: headers \{.*"authorization":"Bearer \(redacted\)".*\} body \n$/);
    expect(result.stderr).not.toContain(SECRETS.apiKey);
  }, 120_000);
});

/**
 * A tenant's check under a real `vigil server`: secret variables go into a URL's host (lower-cased
 * there), its query (percent- and form-encoded) and come back JSON-escaped in a loopback target's
 * echo; alert channels carry a `?token=`, query parameters and a Slack path secret; a heartbeat is
 * pinged with its token. No spelling of any of these appears where the run landed.
 */
describe('a hostile tenant\'s secrets through vigil server and vigil test', () => {
  const TENANT = {
    query: 'Qs"cret/Väl ue+9',
    host: 'HostSecret7Q',
    hookToken: 'hook-token-5e1d',
    param: 'param-secret-77ab',
    slack: 'slackSecret0c4f',
  };
  const spellings = (secret: string) => [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      new URL(`http://h/?${secret}`).search.slice(1),
      JSON.stringify(secret).slice(1, -1),
      // A JSON body inside a JSON document (a result's response body).
      JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1),
      secret.toLowerCase(),
      encodeURIComponent(secret).toLowerCase(),
    ]),
  ];
  const leaksIn = (where: string, text: string, secrets: readonly string[]) =>
    secrets.flatMap((secret) => spellings(secret).filter((form) => text.includes(form)).map((form) => `${where}: ${form}`));

  let workdir: string;
  let target: Server;
  let receiver: Server;
  let server: ChildProcess | undefined;
  const hookBodies: string[] = [];
  const slackBodies: string[] = [];

  beforeAll(async () => {
    target = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ url: request.url, echo: new URL(request.url ?? '/', 'http://x').searchParams.get('p') }));
    });
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        // Slack's stand-in refuses, quoting the URL it was called at: that lands in the record's lastError.
        if (request.url?.startsWith('/services/')) {
          slackBodies.push(body);
          response.writeHead(500).end(`no such hook ${request.url}`);
        } else {
          hookBodies.push(body);
          response.writeHead(204).end();
        }
      });
    });
    const targetUrl = await listen(target);
    const receiverUrl = await listen(receiver);
    workdir = await mkdtemp(path.join(tmpdir(), 'vigil-e2e-tenant-'));
    await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
    await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'tenant', logicalId: 'tenant' });\n");
    await writeFile(
      path.join(workdir, 'project', 'checks', 'tenant.monitor.ts'),
      `import { ApiCheck, AssertionBuilder, CheckGroup, Frequency, HeartbeatMonitor, RetryStrategyBuilder, SlackAlertChannel, WebhookAlertChannel } from 'vigil/constructs';
const hook = new WebhookAlertChannel('hook', { name: 'Hook', url: '${receiverUrl}/hook?token=${TENANT.hookToken}', queryParameters: [{ key: 'apikey', value: '${TENANT.param}' }] });
const slack = new SlackAlertChannel('slack', { url: '${receiverUrl}/services/T000/B000/${TENANT.slack}' });
const group = new CheckGroup('tenant', {
  name: 'Tenant',
  environmentVariables: [{ key: 'QUERY_SECRET', value: process.env.QUERY_SECRET!, secret: true }, { key: 'HOST_SECRET', value: process.env.HOST_SECRET!, secret: true }],
});
const common = {
  group,
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  alertChannels: [hook, slack],
};
new ApiCheck('echo', { ...common, name: 'Echo', request: {
  url: '${targetUrl}/echo?q={{QUERY_SECRET}}',
  queryParameters: [{ key: 'p', value: '{{QUERY_SECRET}}' }],
  assertions: [AssertionBuilder.jsonBody('$.url').equals('never')],
} });
new ApiCheck('host', { ...common, name: 'Host', request: { url: 'http://{{HOST_SECRET}}.invalid/', assertions: [AssertionBuilder.statusCode().equals(200)] } });
new HeartbeatMonitor('beat', { name: 'Beat', period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' });
`,
    );
  });

  afterAll(async () => {
    server?.kill('SIGKILL');
    for (const each of [target, receiver]) {
      each.closeAllConnections();
      await new Promise((resolve) => each.close(resolve));
    }
    await rm(workdir, { recursive: true, force: true });
  });

  it('leave no spelling of them in results, error groups, alert notifications, webhook payloads, the request log or vigil test output', async () => {
    const requestLog = path.join(workdir, 'requests.log');
    const started = await startVigilServer(['--data', path.join(workdir, 'data'), '--request-log', requestLog]);
    server = started.child;
    let serverOutput = '';
    server.stdout!.on('data', (chunk: string) => (serverOutput += chunk));
    server.stderr!.setEncoding('utf8').on('data', (chunk: string) => (serverOutput += chunk));
    const env = targetEnv(started.url, { QUERY_SECRET: TENANT.query, HOST_SECRET: TENANT.host });
    const cwd = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);

    const checks = await getJson<Array<{ id: string; name: string; heartbeat?: { pingUrl: string } }>>(started.url, '/v1/checks');
    const idOf = (name: string) => checks.find((check) => check.name === name)!.id;
    const pingUrl = checks.find((check) => check.name === 'Beat')!.heartbeat!.pingUrl;
    const pingToken = pingUrl.slice(pingUrl.lastIndexOf('/') + 1);
    expect((await fetch(pingUrl)).status).toBe(200);

    type Notification = { type: string; alertConfig: { url: string; queryParameters?: Array<{ value: string }> }; lastError: string | null };
    const notifications = () => getJson<Notification[]>(started.url, '/v1/alert-notifications');
    const results = async (name: string) => {
      const listed = await getJson<Array<{ id: string }>>(started.url, `/v1/check-results/${idOf(name)}`);
      return Promise.all(listed.map((result) => getJson<unknown>(started.url, `/v1/check-results/${idOf(name)}/${result.id}`)));
    };
    await waitFor('a result of each check', async () => ((await results('Echo')).length > 0 && (await results('Host')).length > 0 ? true : undefined));
    await waitFor('a Slack notification whose delivery failed', async () => ((await notifications()).some((item) => item.type === 'SLACK' && item.lastError !== null) ? true : undefined));
    const alerted = (name: string) => hookBodies.some((body) => (JSON.parse(body) as { checkName: string }).checkName === name);
    await waitFor('a webhook payload of each failing check', async () => (alerted('Echo') && alerted('Host') ? true : undefined));

    const echoResults = JSON.stringify(await results('Echo'));
    const hostResults = JSON.stringify(await results('Host'));
    const errorGroups = JSON.stringify(await getJson<unknown>(started.url, `/v1/error-groups/checks/${idOf('Host')}`));
    const listed = await notifications();
    const log = await readFile(requestLog, 'utf8');
    const tested = await vigil(['test'], { cwd, env });
    const testedJson = await vigil(['test', '--reporter', 'json'], { cwd, env });
    expect(tested.code).toBe(1);

    // The secrets did reach every place: redacted, not absent.
    expect(echoResults).toContain('/echo?q=*****&p=*****');
    expect(echoResults).toContain('\\"echo\\":\\"*****\\"');
    expect(hostResults).toContain('http://*****.invalid/');
    expect(errorGroups).toContain('*****.invalid');
    expect(hookBodies.join('\n')).toContain('actual \\"/echo?q=*****&p=*****\\"');
    expect(hookBodies.join('\n')).toContain('ENOTFOUND *****.invalid');
    const configs = listed.map((item) => item.alertConfig);
    expect(configs).toContainEqual(expect.objectContaining({ url: expect.stringMatching(/\/hook\?token=\*\*\*\*\*$/), queryParameters: [expect.objectContaining({ value: '*****' })] }));
    expect(configs).toContainEqual(expect.objectContaining({ url: expect.stringMatching(/\/services\/T000\/B000\/\*\*\*\*\*$/) }));
    expect(listed.find((item) => item.type === 'SLACK' && item.lastError !== null)!.lastError).toContain('no such hook /services/T000/B000/*****');
    expect(log).toContain('"path":"/ping/*****"');
    expect(tested.stdout).toContain('*****');

    const secrets = [...Object.values(TENANT), pingToken];
    const found = [
      ...leaksIn('results of Echo', echoResults, secrets),
      ...leaksIn('results of Host', hostResults, secrets),
      ...leaksIn('error groups', errorGroups, secrets),
      ...leaksIn('alert notifications', JSON.stringify(listed), secrets),
      ...leaksIn('webhook payloads', hookBodies.join('\n'), secrets),
      ...leaksIn('Slack payloads', slackBodies.join('\n'), secrets),
      ...leaksIn('request log', log, secrets),
      ...leaksIn('vigil server output', serverOutput, secrets),
      ...leaksIn('vigil test', tested.stdout + tested.stderr, secrets),
      ...leaksIn('vigil test --reporter json', testedJson.stdout + testedJson.stderr, secrets),
    ];
    expect(found).toEqual([]);
  }, 180_000);
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
