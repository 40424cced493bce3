/**
 * The per-check series of one replica, on every engine (store/contract/engines.ts): what another
 * replica on the same database writes (checks, groups, statuses) shows at this one's next scrape.
 */
import { describe, expect, it } from 'vitest';
import type { FinalResultFacts, StoragePorts } from '../store/ports.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import { CheckMetrics } from './checks.js';
import { expositionBody } from './exposition.js';

const engines = enginesUnderTest();
const ACCOUNT = 'acme';
const T0 = Date.UTC(2030, 0, 1);

function final(checkId: string, at: number, failing = false): FinalResultFacts {
  return {
    name: 'ignored: labels come from the check', checkId, hasFailures: failing, hasErrors: false, isDegraded: false, responseTime: 40,
    runLocation: 'eu-west-1', checkRunId: Math.floor(at / 1000), stoppedAt: new Date(at).toISOString(),
  };
}

async function createCheck(ports: StoragePorts, fields: Record<string, unknown>): Promise<string> {
  return String((await ports.documents.insert('checks', ACCOUNT, (id) => ({ id, name: 'Check', checkType: 'API', activated: true, ...fields }))).id);
}

async function scrapedLines(metrics: CheckMetrics, family: string): Promise<string[]> {
  const text = Buffer.from(expositionBody((await metrics.scrape({ accountIds: [ACCOUNT] })).families)).toString('utf8');
  return text.split('\n').filter((line) => line.startsWith(`${family}{`));
}

describe.each(engines)('GET /metrics per-check series on $name replicas', (engine) => {
  it("shows at the next scrape the checks, group names and statuses another replica wrote, and drops a check it deleted", async () => {
    const [a, b] = await twoReplicas(engine);
    const group = await b.documents.insert('check_groups', ACCOUNT, (id) => ({ id, name: 'Shop' }));
    const first = await createCheck(b, { name: 'First', groupId: group.id });
    const second = await createCheck(b, { name: 'Second' });
    await b.checkStatuses.record(ACCOUNT, final(first, T0));
    await b.checkStatuses.record(ACCOUNT, final(second, T0));
    const metrics = new CheckMetrics(a);
    const up = (checkId: string, value: 0 | 1) => `vigil_check_up{account="acme",check_id="${checkId}"} ${value}`;
    expect(await scrapedLines(metrics, 'vigil_check_up')).toEqual([up(first, 1), up(second, 1)]);

    await b.checkStatuses.record(ACCOUNT, final(first, T0 + 60_000, true));
    const third = await createCheck(b, { name: 'Third' });
    await b.checkStatuses.record(ACCOUNT, final(third, T0 + 60_000));
    await b.documents.replace('check_groups', ACCOUNT, { ...group, name: 'Shop EU' });
    await b.documents.remove('checks', ACCOUNT, second);
    expect(await scrapedLines(metrics, 'vigil_check_up')).toEqual([up(first, 0), up(third, 1)]);
    expect(await scrapedLines(metrics, 'vigil_check_last_run_timestamp_seconds')).toEqual([
      `vigil_check_last_run_timestamp_seconds{account="acme",check_id="${first}"} ${(T0 + 60_000) / 1000}`,
      `vigil_check_last_run_timestamp_seconds{account="acme",check_id="${third}"} ${(T0 + 60_000) / 1000}`,
    ]);
    expect(await scrapedLines(metrics, 'vigil_check_info')).toEqual([
      `vigil_check_info{account="acme",check_id="${first}",check_name="First",check_type="API",group="Shop EU",tags=""} 1`,
      `vigil_check_info{account="acme",check_id="${third}",check_name="Third",check_type="API",group="",tags=""} 1`,
    ]);
  });
});
