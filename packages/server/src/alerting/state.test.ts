import { AlertSettings } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { INITIAL_ALERT_STATE, nextAlertState, type AlertState, type AlertType } from './state.js';

/** One run per letter: P passes, F fails, D passes degraded; lower case = suppressed (muted or maintenance). */
function alertsOf(runs: string, settings: AlertSettings = AlertSettings.parse({}), minutesApart = 1): { alerts: string[]; state: AlertState } {
  let state = INITIAL_ALERT_STATE;
  const alerts: string[] = [];
  [...runs].forEach((letter, index) => {
    const step = nextAlertState(state, { failed: letter.toUpperCase() === 'F', degraded: letter.toUpperCase() === 'D', suppressed: letter !== letter.toUpperCase(), atMs: index * minutesApart * 60_000 }, settings);
    state = step.state;
    alerts.push(...step.alerts.map((alert: AlertType) => `${index}:${alert}`));
  });
  return { alerts, state };
}

const runBased = (failedRunThreshold: number) => AlertSettings.parse({ escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold } });
const timeBased = (minutesFailingThreshold: number) => AlertSettings.parse({ escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold } });
const withReminders = (amount: number, interval: number) => AlertSettings.parse({ reminders: { amount, interval } });

describe('nextAlertState: one failure alert per incident, one recovery', () => {
  it.each([
    ['passing runs alert nothing', 'PPP', undefined, []],
    ['the first failure alerts by default (threshold 1), later failures do not', 'PFFFF', undefined, ['1:ALERT_FAILURE']],
    ['a passing run after an alert recovers once', 'FFPP', undefined, ['0:ALERT_FAILURE', '2:ALERT_RECOVERY']],
    ['each incident alerts again', 'FPFP', undefined, ['0:ALERT_FAILURE', '1:ALERT_RECOVERY', '2:ALERT_FAILURE', '3:ALERT_RECOVERY']],
    ['RUN_BASED 3: two failures then a pass alert nothing', 'FFPFF', runBased(3), []],
    ['RUN_BASED 3: the third consecutive failure alerts', 'FFFFP', runBased(3), ['2:ALERT_FAILURE', '4:ALERT_RECOVERY']],
    ['TIME_BASED 5 min (runs a minute apart): alerts after five minutes of failing', 'FFFFFFFP', timeBased(5), ['5:ALERT_FAILURE', '7:ALERT_RECOVERY']],
    ['TIME_BASED 5 min: a pass restarts the clock', 'FFFFPFFFF', timeBased(5), []],
    ['reminders: two, five minutes apart, then silence', 'FFFFFFFFFFFFFFFF', withReminders(2, 5), ['0:ALERT_FAILURE', '5:ALERT_FAILURE_REMAIN', '10:ALERT_FAILURE_REMAIN']],
    ['degraded alerts once and recovers once', 'PDDDP', undefined, ['1:ALERT_DEGRADED', '4:ALERT_DEGRADED_RECOVERY']],
    ['a failure after degraded is a failure; its recovery ends both', 'DFP', undefined, ['0:ALERT_DEGRADED', '1:ALERT_FAILURE', '2:ALERT_RECOVERY']],
    ['suppressed: a muted failure and its recovery notify nobody', 'PffpP', undefined, []],
    ['suppressed: still failing when the silence ends alerts then, once', 'ffFFP', undefined, ['2:ALERT_FAILURE', '4:ALERT_RECOVERY']],
    ['suppressed: a recovery during the silence is not notified', 'FFpP', undefined, ['0:ALERT_FAILURE']],
  ] as const)('%s', (_name, runs, settings, expected) => {
    expect(alertsOf(runs, settings).alerts).toEqual(expected);
  });

  it('keeps the state while suppressed: a muted check is failing, with its failures counted', () => {
    expect(alertsOf('Pfff').state).toMatchObject({ status: 'failing', consecutiveFailures: 3, failureNotified: false });
  });
});
