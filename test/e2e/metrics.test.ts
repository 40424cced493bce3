/**
 * `vigil server` serves Prometheus metrics: a check runs on its schedule against a loopback target,
 * and `GET /metrics` shows its last run to the account's key and, with the service's own metrics, to
 * the operator's token given through VIGIL_METRICS_TOKEN; its response-time histogram has the bounds
 * `--metrics-buckets` gave.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, waitFor } from '../support/cli.js';

const OPERATOR_TOKEN = 'e2e-operator-token';
let target: Server;
let targetUrl = '';
let service: { child: ChildProcess; url: string; stderr(): string } | undefined;

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(200).end('ok'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  service = await startVigilServer(['--data', ':memory:', '--metrics-buckets', '0.2,1.5'], { env: { ...process.env, VIGIL_METRICS_TOKEN: OPERATOR_TOKEN } });
});

afterAll(async () => {
  service?.child.kill('SIGKILL');
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

async function scrape(token: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${service!.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text() };
}

describe('vigil server GET /metrics', () => {
  it("shows a check's run against a loopback target to its account and to the operator", async () => {
    const created = await fetch(`${service!.url}/v1/checks/api`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Loopback home', frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], request: { url: `${targetUrl}/` } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const labels = `account="local",check_id="${id}"`;

    // The status is stored in the run's unit of work and the run counted once that unit committed, so
    // a scrape between the two shows the status alone: the wait is for both.
    const operator = await waitFor("the check's first run, its status and its count, in the operator's metrics", async () => {
      const { text } = await scrape(OPERATOR_TOKEN);
      return text.includes(`vigil_check_up{${labels}} 1`) && text.includes(`vigil_check_runs_total{${labels},location="eu-west-1",outcome="passed"} `) ? text : undefined;
    });
    expect(operator).toContain(`vigil_check_info{${labels},check_name="Loopback home",check_type="API",group="",tags=""} 1`);
    const bounds = [...operator.matchAll(new RegExp(`^vigil_check_response_time_seconds_bucket\\{le="([^"]+)",${labels},location="eu-west-1"\\} `, 'gm'))].map((match) => match[1]);
    expect(bounds).toEqual(['0.2', '1.5', '+Inf']);
    expect(operator).toMatch(/^vigil_scheduler_start_lag_seconds_count [1-9]/m);
    expect(operator).toMatch(/^process_resident_memory_bytes /m);
    // The operator's scrape is written to the socket in pieces, some written only when reached; it must arrive whole.
    // Asked for gzip as Prometheus asks, it is sent as plain text all the same (docs/local-service.md, "Compression").
    const whole = await fetch(`${service!.url}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'accept-encoding': 'gzip' } });
    const body = Buffer.from(await whole.arrayBuffer());
    expect(whole.headers.get('transfer-encoding')).toBe('chunked');
    expect(whole.headers.get('content-encoding')).toBeNull();
    expect(body.toString('utf8')).toMatch(/^# HELP vigil_check_up [^\n]+\n[\s\S]+\nprocess_resident_memory_bytes \d+\n[\s\S]*\n$/);
    expect(operator).not.toContain(targetUrl);

    const account = await scrape('vigil-local');
    expect(account.status).toBe(200);
    expect(account.text).toContain(`vigil_check_up{${labels}} 1`);
    expect(account.text).not.toMatch(/^vigil_scheduler_/m);
    expect((await scrape('wrong-token')).status).toBe(401);
  }, 120_000);
});
