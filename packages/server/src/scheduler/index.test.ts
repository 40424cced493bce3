import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Runner } from '@vigil/runner';
import { afterEach, describe, expect, it } from 'vitest';
import { openRepositories } from '../repositories.js';
import { Store } from '../store/index.js';
import type { HeartbeatPings } from '../store/ports.js';
import { startScheduling } from './index.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** No check is scheduled here, so nothing runs. */
const idleRunner: Runner = {
  run: async () => Promise.reject(new Error('no check should run in this test')),
  close: async () => undefined,
};

describe('startScheduling', () => {
  it('logs a failed heartbeat tick as the heartbeat watch failing, whatever part of the tick failed (here the pings)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-scheduling-log-'));
    const store = new Store(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close());
    const repositories = openRepositories(store);
    const unavailable = async (): Promise<never> => Promise.reject(new Error('pings unavailable'));
    const failingPings: HeartbeatPings = { record: unavailable, startOnce: unavailable, claim: unavailable, processed: unavailable, ofCheck: unavailable, progress: unavailable, monitorOfToken: unavailable, monitors: unavailable, prune: unavailable };
    const lines: string[] = [];
    let heartbeatLineLogged: () => void = () => undefined;
    const heartbeatLine = new Promise<void>((resolve) => (heartbeatLineLogged = resolve));
    const scheduling = startScheduling(
      { ...repositories, ports: { ...repositories.ports, heartbeatPings: failingPings } },
      {
        runner: idleRunner,
        tickMs: 10,
        log: (line) => {
          lines.push(line);
          if (line.includes('heartbeat')) heartbeatLineLogged();
        },
      },
    );
    cleanups.push(() => scheduling.stop(0));
    await heartbeatLine;
    const logged = lines.find((line) => line.includes('heartbeat'));
    expect(logged?.startsWith('vigil server: the heartbeat watch failed inside the service: Error: pings unavailable')).toBe(true);
  });
});
