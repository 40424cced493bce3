import { HeartbeatCheckCreate, type HeartbeatTimeUnit } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { Construct } from './construct.js';
import type { PathSegment } from './path.js';
import type { PropKeys } from './unknown-props.js';

/**
 * The props of a heartbeat monitor: those of a check without `doubleCheck`, plus when pings are
 * expected. Checkly's signature, so `new HeartbeatMonitor(id, { period: 1, periodUnit: 'hours', … })`
 * moves over unchanged.
 */
export interface HeartbeatMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  /** Time expected between two pings, in `periodUnit`s: 30 seconds to 365 days in all. Required. */
  period: number;
  /** Unit of `period`: `seconds`, `minutes`, `hours` or `days`. Required. */
  periodUnit: HeartbeatTimeUnit;
  /**
   * Extra time after the period before a missing ping fails the monitor, in `graceUnit`s: at most
   * 365 days. Required (0 for none).
   */
  grace: number;
  /** Unit of `grace`: `seconds`, `minutes`, `hours` or `days`. Required. */
  graceUnit: HeartbeatTimeUnit;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;

const HEARTBEAT_MONITOR_PROP_KEYS: PropKeys<HeartbeatMonitorProps> = {
  ...MONITOR_PROP_KEYS,
  period: true,
  periodUnit: true,
  grace: true,
  graceUnit: true,
};

/**
 * Props Checkly accepts on every check but that mean nothing to a heartbeat, which runs nothing:
 * they are not sent (so a config's defaults for scheduled checks never reach it), and setting one
 * on the monitor itself is a warning.
 */
const SCHEDULING_PROPS = ['frequency', 'frequencyOffset', 'locations', 'privateLocations', 'runtimeId', 'runParallel', 'retryStrategy'] as const;

/**
 * A heartbeat monitor: the service expects a ping (an HTTP GET or POST to the monitor's ping URL,
 * which `vigil apply` prints) at least every `period`; when none comes within `period` + `grace`,
 * the monitor fails and alerts like any check, and the next ping recovers it. For cron jobs,
 * backups and queues that should report in.
 *
 * ```ts
 * new HeartbeatMonitor('nightly-backup', {
 *   name: 'Nightly backup',
 *   period: 1, periodUnit: 'days',
 *   grace: 30, graceUnit: 'minutes',
 *   alertChannels: [oncall],
 * })
 * ```
 * The job then calls `curl -fsS <ping URL>` when it succeeds, or `<ping URL>/fail` when it fails.
 * `vigil test` skips heartbeat monitors: there is nothing to run.
 */
export class HeartbeatMonitor extends Construct {
  readonly props: HeartbeatMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props when pings are expected, and the monitor's alerting
   */
  constructor(logicalId: string, props: HeartbeatMonitorProps) {
    super('heartbeat-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return HeartbeatCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    // doubleCheck is known so it gets the "not supported" error below, not "not a prop".
    return { ...HEARTBEAT_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error('doubleCheck', '"doubleCheck" is not supported by HeartbeatMonitor', 'Remove it: a heartbeat runs nothing, so there is nothing to retry.');
    }
    for (const key of SCHEDULING_PROPS) {
      if (props[key] !== undefined) {
        context.warning(key, `"${key}" has no effect on a HeartbeatMonitor`, 'A heartbeat runs nothing: the monitored job pings it. Remove the prop.');
      }
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'OTHER');
    for (const key of [...SCHEDULING_PROPS, 'doubleCheck']) delete payload[key];
    payload.checkType = 'HEARTBEAT';
    payload.heartbeat = { period: props.period, periodUnit: props.periodUnit, grace: props.grace, graceUnit: props.graceUnit };
    return payload;
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    // `heartbeat.period` in the payload is the monitor's own `period` prop.
    if (payloadPath[0] === 'heartbeat' && typeof payloadPath[1] === 'string') return payloadPath[1];
    return checkPropPath(payloadPath);
  }
}

// Checkly's older names, kept so its projects load unchanged.
export { HeartbeatMonitor as HeartbeatCheck, type HeartbeatMonitorProps as HeartbeatCheckProps };
