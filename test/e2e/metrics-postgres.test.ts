/**
 * `GET /metrics` of two `vigil server --database` processes on one embedded PostgreSQL database: a
 * check created through one is scraped from both, its status (written by whichever replica ran it)
 * shown by each, and its rename through one shown by the other at its next scrape.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, waitFor } from '../support/cli.js';
import { useTestPostgres } from '../support/postgres.js';

const postgres = useTestPostgres();
const OPERATOR_TOKEN = 'e2e-operator-token';
let target: Server;
let targetUrl = '';
const running: ChildProcess[] = [];

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(200).end('ok'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

async function operatorScrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}

describe('vigil server --database GET /metrics', () => {
  it('shows on each replica the checks and statuses either one wrote', async () => {
    const databaseUrl = await postgres.freshDatabase();
    const env = { ...process.env, VIGIL_METRICS_TOKEN: OPERATOR_TOKEN };
    const first = await startVigilServer(['--database', databaseUrl], { env });
    running.push(first.child);
    const second = await startVigilServer(['--database', databaseUrl], { env });
    running.push(second.child);
    // Scraped once before the check exists, so the next scrapes follow what changed since.
    expect(await operatorScrape(second.url)).not.toMatch(/^vigil_check_up\{/m);

    const created = await fetch(`${first.url}/v1/checks/api`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Loopback home', frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], request: { url: `${targetUrl}/` } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const labels = `account="local",check_id="${id}"`;
    for (const replica of [first, second]) {
      await waitFor(`the check's first run in the operator's metrics of ${replica.url}`, async () => ((await operatorScrape(replica.url)).includes(`vigil_check_up{${labels}} 1`) ? true : undefined));
    }

    const renamed = await fetch(`${first.url}/v1/checks/api/${id}`, {
      method: 'PUT',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed home', frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], request: { url: `${targetUrl}/` } }),
    });
    expect(renamed.status).toBe(200);
    expect(await operatorScrape(second.url)).toContain(`vigil_check_info{${labels},check_name="Renamed home",check_type="API",group="",tags=""} 1`);
  }, 240_000);
});
