/**
 * Step 30: each check status keeps its state (`passing`, `failing`, `degraded`, the rule of
 * `stateOfStatus` in ../statuses.ts) in a column of its own, indexed per account, so "the checks
 * in state X" (`GET /v1/checks?status=`, the dashboard's state filter) is one indexed read instead of
 * parsing every status of the account. The rows already stored get their state here, by that rule.
 */
import type { SqliteStep } from './step.js';

export const CHECK_STATE_STEPS: readonly SqliteStep[] = [
  {
    step: 30,
    name: 'check statuses keep their state, indexed',
    up: (db) => {
      db.exec(`
        ALTER TABLE check_statuses ADD COLUMN state TEXT;
        UPDATE check_statuses SET state = CASE
          WHEN json_extract(doc, '$.hasFailures') OR json_extract(doc, '$.hasErrors') THEN 'failing'
          WHEN json_extract(doc, '$.isDegraded') THEN 'degraded'
          ELSE 'passing' END;
        CREATE INDEX check_statuses_account_state ON check_statuses (account_id, state, check_id);
      `);
    },
  },
];
