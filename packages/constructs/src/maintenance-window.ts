import { MaintenanceWindowCreate, maintenanceWindowOrderProblem, type RepeatUnit } from '@vigil/schema';
import type { BuildContext } from './build-context.js';
import type { z } from 'zod';
import { Construct, type ConstructProps } from './construct.js';
import type { PropKeys } from './unknown-props.js';

/** A date as a `Date` or an ISO 8601 string. */
export type DateInput = Date | string;

export interface MaintenanceWindowProps extends ConstructProps {
  /** Name of the maintenance window. */
  name: string;
  /**
   * Names of the checks and check groups the window applies to (their tags). During the window
   * their alerts are suppressed (and, with `pauseAllChecks`, their runs).
   */
  tags?: string[];
  /** When the window starts. */
  startsAt: DateInput;
  /** When the window ends; must be after `startsAt`. */
  endsAt: DateInput;
  /** Unit of repetition: `DAY`, `WEEK` or `MONTH`. */
  repeatUnit: RepeatUnit;
  /** Repeat every this many `repeatUnit`s, counted from the first occurrence (>= 1). */
  repeatInterval?: number | null;
  /** The last date on which an occurrence may start (a calendar date in `timezone`). */
  repeatEndsAt?: DateInput | null;
  /**
   * Named IANA time zone the repetition follows, e.g. `"Europe/Amsterdam"`: each occurrence starts
   * at the same local time, across daylight-saving changes. Default: UTC.
   */
  timezone?: string | null;
  /**
   * The checks the window applies to (its `tags`; every check of the account when it has none) do
   * not run during it. Default: false (they run, their alerts are suppressed).
   */
  pauseAllChecks?: boolean;
  /** No alert notifications for any check of the account during the window, whatever its tags. Default: false. */
  silenceAllAlerts?: boolean;
}

const ENDS_AT_HINT = 'A maintenance window ends after it starts; use repeatUnit and repeatInterval for recurring windows.';

/** Serialises a date prop; an invalid `Date` becomes a string the schema rejects. */
function toDateString(value: DateInput | null | undefined): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  return value;
}

const MAINTENANCE_WINDOW_PROP_KEYS: PropKeys<MaintenanceWindowProps> = {
  protect: true,
  name: true,
  tags: true,
  startsAt: true,
  endsAt: true,
  repeatUnit: true,
  repeatInterval: true,
  repeatEndsAt: true,
  timezone: true,
  pauseAllChecks: true,
  silenceAllAlerts: true,
};

/** A period during which the alerts of the tagged checks and groups are suppressed (or their runs paused). */
export class MaintenanceWindow extends Construct {
  readonly props: MaintenanceWindowProps;

  /**
   * @param logicalId unique (per kind) name of the window in this project
   * @param props when the window is, how it repeats and what it applies to
   */
  constructor(logicalId: string, props: MaintenanceWindowProps) {
    super('maintenance-window', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return MaintenanceWindowCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return MAINTENANCE_WINDOW_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { name, tags, startsAt, endsAt, repeatUnit, repeatInterval, repeatEndsAt, timezone, pauseAllChecks, silenceAllAlerts } = this.props;
    const payload = {
      name,
      tags,
      startsAt: toDateString(startsAt),
      endsAt: toDateString(endsAt),
      repeatUnit,
      repeatInterval,
      repeatEndsAt: toDateString(repeatEndsAt),
      timezone,
      pauseAllChecks,
      silenceAllAlerts,
    };
    // Checked here too: the schema's own order check is skipped when any other field is invalid.
    const { startsAt: start, endsAt: end } = payload;
    if (typeof start === 'string' && typeof end === 'string' && Number.isFinite(Date.parse(start)) && Number.isFinite(Date.parse(end))) {
      const problem = maintenanceWindowOrderProblem(start, end);
      if (problem !== undefined) context.error('endsAt', problem, ENDS_AT_HINT);
    }
    return payload;
  }
}
