/**
 * A second process for the local backend's tests (locks are between processes, and a crash is a
 * SIGKILL). Run with `node --import tsx state-child.ts <mode> <statePath>`:
 * - `hold`: takes the lock, prints `locked`, releases it when stdin ends.
 * - `write-loop`: takes the lock and writes ever larger documents forever, printing each serial.
 */
import { emptyState } from '../document.js';
import { createLocalBackend } from '../local-backend.js';
import type { StateDocument } from '../types.js';

const [mode, statePath] = process.argv.slice(2);
if (statePath === undefined) throw new Error('usage: state-child.ts hold|write-loop <statePath>');
const backend = createLocalBackend({ path: statePath });

if (mode === 'hold') {
  const lock = await backend.lock({ timeoutMs: 10_000, command: 'vigil apply' });
  process.stdout.write('locked\n');
  process.stdin.resume();
  process.stdin.on('end', () => {
    void lock.release().then(() => process.exit(0));
  });
} else if (mode === 'write-loop') {
  const lock = await backend.lock({ timeoutMs: 10_000, command: 'vigil apply' });
  let document: StateDocument =
    (await backend.read()) ?? emptyState({ project: 'crash', target: { baseUrl: 'http://127.0.0.1:1', accountId: 'acc' } });
  for (let index = Object.keys(document.resources).length; ; index++) {
    const address = `api-check.check-${index}`;
    // Large payloads make each write take long enough for a kill to land in the middle of one.
    document = {
      ...document,
      resources: {
        ...document.resources,
        [address]: { kind: 'api-check', remoteId: index, applied: { name: `check ${index}`, body: 'x'.repeat(20_000) }, dependsOn: [] },
      },
    };
    await lock.write(document);
    process.stdout.write(`${lock.serial}\n`);
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
