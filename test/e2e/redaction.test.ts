/**
 * A service may echo what it was sent in an error message. Whatever it echoes, the CLI prints no
 * secret it knows (the API key, secret variables, basic-auth passwords, alert-channel keys, webhook
 * secrets) and no `Bearer` credential. The service here is a hostile stand-in on loopback that
 * answers every write with a 400 quoting the request's headers and body.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

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

describe('errors quoting the service', () => {
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
