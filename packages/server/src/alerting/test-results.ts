/**
 * For alerting's tests: a check's FINAL result at a whole minute after a fixed start, passing or
 * failing, as the scheduler hands it to alerting. The tests step through minutes, so a result's time
 * is what decides escalation and reminders.
 */
import type { FinalResultFacts } from './index.js';

/** Results `minute` minutes after `startMs`, each with an id of its own. */
export function finalResultsFrom(startMs: number) {
  return (failed: boolean, minute: number, extra: Partial<FinalResultFacts> = {}): FinalResultFacts => ({
    id: `result-${minute}`,
    hasFailures: failed,
    hasErrors: false,
    isDegraded: false,
    responseTime: 12,
    runLocation: 'eu-west-1',
    startedAt: new Date(startMs + minute * 60_000).toISOString(),
    stoppedAt: new Date(startMs + minute * 60_000).toISOString(),
    ...extra,
  });
}
