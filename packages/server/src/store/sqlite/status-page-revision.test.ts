/** The status pages' revision public pages are kept under, as another process's writes on the same file move it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createIncident } from '../../readside/incidents.js';
import { Store } from '../index.js';
import { sqlitePorts } from './index.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

function twoProcesses(): [Store, Store] {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-pages-store-'));
  const file = path.join(dir, 'vigil.db');
  const first = new Store({ file });
  const second = new Store({ file });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => first.close(), () => second.close());
  return [first, second];
}

describe("the status pages' revision", () => {
  it('moves when another process on the file creates, updates or deletes an incident through the incidents port', async () => {
    const [viewer, writer] = twoProcesses();
    const revision = () => sqlitePorts(viewer).statusPages.revision();
    const ports = sqlitePorts(writer);
    const seen = [await revision()];
    const incident = createIncident({ name: 'Down', severity: 'MAJOR', serviceIds: [], initialUpdates: [] }, { newId: () => 'i-1', now: new Date(0) });
    await ports.transaction((tx) => tx.incidents.insert('acct', incident));
    seen.push(await revision());
    await ports.incidents.replace('acct', { ...incident, lastUpdateStatus: 'RESOLVED' });
    seen.push(await revision());
    await ports.incidents.remove('acct', 'i-1');
    seen.push(await revision());
    expect(new Set(seen).size).toBe(4);
  });
});
