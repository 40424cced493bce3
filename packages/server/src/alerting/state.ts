/**
 * A check's alert state, folded from its FINAL results (pure; alerting/index.ts persists it).
 *
 * - A failing run counts towards the escalation threshold: RUN_BASED alerts at the
 *   `failedRunThreshold`-th consecutive failure, TIME_BASED once the check has failed for
 *   `minutesFailingThreshold` minutes without a passing run in between. One ALERT_FAILURE per
 *   incident, then at most `reminders.amount` ALERT_FAILURE_REMAIN, `reminders.interval` minutes apart.
 * - The first passing run after an alerted failure is one ALERT_RECOVERY.
 * - A passing but degraded run alerts ALERT_DEGRADED once; the next run that is neither degraded nor
 *   failing alerts ALERT_DEGRADED_RECOVERY.
 * - `suppressed` (the check is muted or in a maintenance window) keeps the state moving but notifies
 *   nobody; a recovery is only notified when its failure was, so nobody gets a recovery out of the blue,
 *   and a check still failing when the silence ends alerts then.
 */
import { DEFAULT_ALERT_SETTINGS, type AlertSettings } from '@vigil/schema';

export type AlertType = 'ALERT_FAILURE' | 'ALERT_FAILURE_REMAIN' | 'ALERT_RECOVERY' | 'ALERT_DEGRADED' | 'ALERT_DEGRADED_RECOVERY';

/** `failing` once a failure alert is due (notified or not); `recovered` is the passing run after it. */
export type AlertStatus = 'passing' | 'degraded' | 'failing';

export interface AlertState {
  status: AlertStatus;
  consecutiveFailures: number;
  failingSinceMs: number | null;
  /** The failure alert of the current incident was notified (not suppressed). */
  failureNotified: boolean;
  remindersSent: number;
  lastNotifiedMs: number | null;
  degradedNotified: boolean;
}

export const INITIAL_ALERT_STATE: AlertState = {
  status: 'passing',
  consecutiveFailures: 0,
  failingSinceMs: null,
  failureNotified: false,
  remindersSent: 0,
  lastNotifiedMs: null,
  degradedNotified: false,
};

export interface RunFacts {
  failed: boolean;
  degraded: boolean;
  atMs: number;
  suppressed: boolean;
}

export interface Step {
  state: AlertState;
  /** Alerts to notify (already filtered by `suppressed`). */
  alerts: AlertType[];
}

const MINUTE_MS = 60_000;

export function nextAlertState(previous: AlertState, run: RunFacts, settings: AlertSettings = DEFAULT_ALERT_SETTINGS): Step {
  return run.failed ? onFailure(previous, run, settings) : onPass(previous, run);
}

function onFailure(previous: AlertState, run: RunFacts, settings: AlertSettings): Step {
  const state: AlertState = {
    ...previous,
    consecutiveFailures: previous.consecutiveFailures + 1,
    failingSinceMs: previous.failingSinceMs ?? run.atMs,
    degradedNotified: false,
  };
  if (previous.status !== 'failing') {
    if (!thresholdReached(state, run.atMs, settings)) return { state: { ...state, status: previous.status === 'degraded' ? 'degraded' : 'passing' }, alerts: [] };
    const notify = !run.suppressed;
    return {
      state: { ...state, status: 'failing', failureNotified: notify, remindersSent: 0, lastNotifiedMs: notify ? run.atMs : null },
      alerts: notify ? ['ALERT_FAILURE'] : [],
    };
  }
  // Failing since a suppressed alert (muted, maintenance): tell once the silence is over.
  if (!state.failureNotified) {
    if (run.suppressed) return { state, alerts: [] };
    return { state: { ...state, failureNotified: true, lastNotifiedMs: run.atMs }, alerts: ['ALERT_FAILURE'] };
  }
  const { amount, interval } = settings.reminders;
  const reminderDue = state.remindersSent < amount && state.lastNotifiedMs !== null && run.atMs - state.lastNotifiedMs >= interval * MINUTE_MS;
  if (!reminderDue || run.suppressed) return { state, alerts: [] };
  return { state: { ...state, remindersSent: state.remindersSent + 1, lastNotifiedMs: run.atMs }, alerts: ['ALERT_FAILURE_REMAIN'] };
}

function onPass(previous: AlertState, run: RunFacts): Step {
  const alerts: AlertType[] = [];
  if (previous.status === 'failing' && previous.failureNotified && !run.suppressed) alerts.push('ALERT_RECOVERY');
  let degradedNotified = previous.degradedNotified;
  if (run.degraded && !degradedNotified && !run.suppressed) {
    alerts.push('ALERT_DEGRADED');
    degradedNotified = true;
  } else if (!run.degraded && degradedNotified) {
    if (!run.suppressed) alerts.push('ALERT_DEGRADED_RECOVERY');
    degradedNotified = false;
  }
  return {
    state: { ...INITIAL_ALERT_STATE, status: run.degraded ? 'degraded' : 'passing', degradedNotified, lastNotifiedMs: alerts.length > 0 ? run.atMs : previous.lastNotifiedMs },
    alerts,
  };
}

function thresholdReached(state: AlertState, atMs: number, settings: AlertSettings): boolean {
  if (settings.escalationType === 'TIME_BASED') {
    return atMs - (state.failingSinceMs ?? atMs) >= settings.timeBasedEscalation.minutesFailingThreshold * MINUTE_MS;
  }
  return state.consecutiveFailures >= settings.runBasedEscalation.failedRunThreshold;
}
