/**
 * Durability of acknowledged writes: `vigil server` runs as a subprocess on a data directory and is
 * SIGKILLed in the middle of a stream of concurrent creates (each with an Idempotency-Key). After a
 * restart on the same directory, every create that was answered 201 is there and reads back whole
 * (it parses with the endpoint's response schema), no create exists twice, replaying an answered
 * key returns the same resource, and `PRAGMA integrity_check` is ok. Repeated at several kill points.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, fillPath, type EndpointId } from '@vigil/schema';
import { VIGIL_BIN } from '../support/cli.js';
import { integrityCheck, send } from './harness.js';
import { SAMPLE_BODIES } from './samples.js';

const STRESS = process.env.VIGIL_STRESS === '1';
/** After how many acknowledged creates each round kills the server. */
const KILL_POINTS = STRESS ? [1, 17, 60, 150, 333, 600, 1000] : [5, 40, 120];
const WRITERS = 8;
const API_KEY = 'restart-key';

/** What the stream creates, round-robin; each kind with its read-back endpoint. */
const KINDS: Array<{ create: EndpointId; get: EndpointId; query?: string }> = [
  { create: 'checks.createApi', get: 'checks.get', query: '?autoAssignAlerts=false' },
  { create: 'statusPageServices.create', get: 'statusPageServices.get' },
  { create: 'maintenanceWindows.create', get: 'maintenanceWindows.get' },
  { create: 'alertChannels.create', get: 'alertChannels.get' },
  { create: 'checkGroups.create', get: 'checkGroups.get', query: '?autoAssignAlerts=false' },
  { create: 'checks.createMultiStep', get: 'checks.get', query: '?autoAssignAlerts=false' },
];

interface Write {
  readonly kind: (typeof KINDS)[number];
  readonly key: string;
  readonly body: Record<string, unknown>;
}

interface Acknowledged extends Write {
  readonly id: string | number;
}

const dirs: string[] = [];
const children = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function startCliServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [VIGIL_BIN, 'server', '--no-scheduler', '--port', '0', '--data', dataDir, '--api-key', API_KEY, '--account-id', 'durable'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited with ${code} before listening: ${out}`)));
  });
  return { child, url };
}

function writeNumber(n: number, round: number): Write {
  const kind = KINDS[n % KINDS.length]!;
  const name = `round-${round} write-${n}`;
  const body = kind.create === 'alertChannels.create'
    ? { ...SAMPLE_BODIES[kind.create], config: { address: `w${n}@example.com` } }
    : { ...SAMPLE_BODIES[kind.create], name };
  return { kind, key: randomUUID(), body };
}

function post(url: string, write: Write): Promise<{ status: number; json: any }> {
  const endpoint = ENDPOINTS[write.kind.create];
  return send(url, 'POST', `${endpoint.path}${write.kind.query ?? ''}`, {
    apiKey: API_KEY,
    body: JSON.stringify(write.body),
    headers: { 'content-type': 'application/json', 'idempotency-key': write.key },
  }).then((reply) => ({ status: reply.status, json: reply.json }));
}

/**
 * Writers post until `killAfter` creates are acknowledged, then the server is SIGKILLed while the
 * others are still in flight. Returns every acknowledged write and every one left unanswered.
 */
async function streamUntilKilled(url: string, child: ChildProcess, killAfter: number, round: number) {
  const acknowledged: Acknowledged[] = [];
  const unanswered: Write[] = [];
  let next = 0;
  let killed = false;
  const writer = async (): Promise<void> => {
    while (!killed) {
      const write = writeNumber(next++, round);
      try {
        const reply = await post(url, write);
        if (reply.status !== ENDPOINTS[write.kind.create].status) throw new Error(`create answered ${reply.status}: ${JSON.stringify(reply.json)}`);
        acknowledged.push({ ...write, id: reply.json.id });
        if (acknowledged.length >= killAfter && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      } catch (error) {
        if (!killed) throw error;
        unanswered.push(write);
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  return { acknowledged, unanswered };
}

async function readBack(url: string, write: Acknowledged): Promise<{ status: number; parsed: boolean; name: unknown }> {
  const endpoint = ENDPOINTS[write.kind.get];
  const reply = await send(url, 'GET', fillPath(endpoint.path, { id: write.id }), { apiKey: API_KEY });
  const parsed = 'response' in endpoint && endpoint.response.safeParse(reply.json).success;
  return { status: reply.status, parsed, name: (reply.json as { name?: unknown } | undefined)?.name };
}

describe.each(KILL_POINTS.map((killAfter, round) => ({ killAfter, round })))(
  'vigil server SIGKILLed after $killAfter acknowledged creates',
  ({ killAfter, round }) => {
    it('keeps every acknowledged create whole, duplicates none, and leaves an intact database', async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'vigil-restart-'));
      dirs.push(dataDir);
      const first = await startCliServer(dataDir);
      const { acknowledged, unanswered } = await streamUntilKilled(first.url, first.child, killAfter, round);
      expect(first.child.signalCode).toBe('SIGKILL');
      expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);

      const second = await startCliServer(dataDir);
      const missing: string[] = [];
      for (const write of acknowledged) {
        const back = await readBack(second.url, write);
        const expectedName = write.kind.create === 'alertChannels.create' ? undefined : write.body.name;
        if (back.status !== 200 || !back.parsed || (expectedName !== undefined && back.name !== expectedName)) {
          missing.push(`${write.kind.create} ${String(write.id)}: ${back.status} parsed=${back.parsed} name=${String(back.name)}`);
        }
      }
      expect(missing).toEqual([]);

      // Replaying keys: an answered one returns the same resource; an unanswered one creates at most once.
      for (const write of acknowledged.slice(0, 20)) {
        const replay = await post(second.url, write);
        expect(replay.status).toBe(ENDPOINTS[write.kind.create].status);
        expect(replay.json.id).toBe(write.id);
      }
      for (const write of unanswered) {
        const replay = await post(second.url, write);
        expect(replay.status).toBe(ENDPOINTS[write.kind.create].status);
        const again = await post(second.url, write);
        expect(again.json.id).toBe(replay.json.id);
      }

      // Every stored resource reads back whole, and none exists twice.
      const names: string[] = [];
      for (const list of ['/v1/checks', '/v1/maintenance-windows', '/v1/check-groups']) {
        for (let page = 1; ; page += 1) {
          const reply = await send(second.url, 'GET', `${list}?limit=100&page=${page}`, { apiKey: API_KEY });
          expect(reply.status).toBe(200);
          const items = reply.json as Array<{ name: string }>;
          names.push(...items.map((item) => item.name));
          if (items.length < 100) break;
        }
      }
      // Services are paged by cursor, as the real document has them.
      for (let nextId: string | null = ''; nextId !== null; ) {
        const reply = await send(second.url, 'GET', `/v1/status-pages/services?limit=100${nextId ? `&nextId=${nextId}` : ''}`, { apiKey: API_KEY });
        expect(reply.status).toBe(200);
        const page = reply.json as { entries: Array<{ name: string }>; nextId: string | null };
        names.push(...page.entries.map((item) => item.name));
        nextId = page.nextId;
      }
      const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
      expect(duplicates).toEqual([]);
      expect(names.length).toBe(acknowledged.length + unanswered.length - [...acknowledged, ...unanswered].filter((w) => w.kind.create === 'alertChannels.create').length);

      second.child.kill('SIGKILL');
      await new Promise<void>((resolve) => (second.child.exitCode !== null || second.child.signalCode !== null ? resolve() : second.child.once('exit', () => resolve())));
      expect(integrityCheck(dataDir)).toBe('ok');
    }, 120_000);
  },
);
