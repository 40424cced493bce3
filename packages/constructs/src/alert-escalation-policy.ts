/** Reminder notifications after the first alert. */
export interface Reminders {
  /** How many reminders (0, 1, 2, 3, 4, 5, or 100000 for unlimited). Default 0. */
  amount?: number;
  /** Minutes between reminders (1, 2, 3, 4, 5, 10, 15, 30). Default 5. */
  interval?: number;
}

/** Alert only when this percentage of parallel runs fails. */
export interface ParallelRunFailureThreshold {
  /** Default false. */
  enabled?: boolean;
  /** 10, 20, ... 100. Default 10. */
  percentage?: number;
}

/** When and how failing checks alert: the spec's `alertSettings`. */
export interface AlertEscalation {
  /** `RUN_BASED` (after N failed runs) or `TIME_BASED` (after N minutes failing). */
  escalationType: 'RUN_BASED' | 'TIME_BASED';
  runBasedEscalation?: {
    /** Failed runs in a row before alerting (1..5). */
    failedRunThreshold: number;
  };
  timeBasedEscalation?: {
    /** Minutes failing before alerting (5, 10, 15, 30). */
    minutesFailingThreshold: number;
  };
  reminders?: Reminders;
  parallelRunFailureThreshold?: ParallelRunFailureThreshold;
}

const DEFAULT_RUN_BASED_ESCALATION = { failedRunThreshold: 1 };
const DEFAULT_TIME_BASED_ESCALATION = { minutesFailingThreshold: 5 };
const DEFAULT_REMINDERS = { amount: 0, interval: 5 };
const DEFAULT_PARALLEL_RUN_FAILURE_THRESHOLD = { enabled: false, percentage: 10 };

/** Builds alert escalation policies for checks, groups and the config's check defaults. */
export class AlertEscalationBuilder {
  /** Alert after `failedRunThreshold` failed runs in a row. */
  static runBasedEscalation(
    failedRunThreshold = 1,
    reminders?: Reminders,
    parallelRunFailureThreshold?: ParallelRunFailureThreshold,
  ): AlertEscalation {
    return {
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold },
      // The other type's threshold at its default, as Checkly's builder and the service hold it.
      timeBasedEscalation: { ...DEFAULT_TIME_BASED_ESCALATION },
      reminders: { ...DEFAULT_REMINDERS, ...reminders },
      parallelRunFailureThreshold: { ...DEFAULT_PARALLEL_RUN_FAILURE_THRESHOLD, ...parallelRunFailureThreshold },
    };
  }

  /** Alert after the check has failed for `minutesFailingThreshold` minutes. */
  static timeBasedEscalation(
    minutesFailingThreshold = 5,
    reminders?: Reminders,
    parallelRunFailureThreshold?: ParallelRunFailureThreshold,
  ): AlertEscalation {
    return {
      escalationType: 'TIME_BASED',
      runBasedEscalation: { ...DEFAULT_RUN_BASED_ESCALATION },
      timeBasedEscalation: { minutesFailingThreshold },
      reminders: { ...DEFAULT_REMINDERS, ...reminders },
      parallelRunFailureThreshold: { ...DEFAULT_PARALLEL_RUN_FAILURE_THRESHOLD, ...parallelRunFailureThreshold },
    };
  }
}
