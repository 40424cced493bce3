import type { AlertEvaluation, Alerting, FinalResultFacts } from '../alerting/index.js';
import type { TransactionPorts } from '../store/ports.js';

/**
 * The alert evaluations of one unit of work's results, each in its own savepoint of the unit: a
 * failing one undoes only its own writes (the results stay stored, as a run's do in the scheduler),
 * and the first failure is handed back to be thrown once the unit committed.
 */
export class UnitAlerts {
  readonly #alerting: Pick<Alerting, 'evaluateIn' | 'notify'> | undefined;
  readonly #evaluations: AlertEvaluation[] = [];
  #failure: { error: unknown } | undefined;

  constructor(alerting: Pick<Alerting, 'evaluateIn' | 'notify'> | undefined) {
    this.#alerting = alerting;
  }

  async evaluate(tx: TransactionPorts, accountId: string, checkId: string, facts: FinalResultFacts): Promise<void> {
    if (!this.#alerting) return;
    try {
      this.#evaluations.push(await this.#alerting.evaluateIn(tx, accountId, checkId, facts));
    } catch (error) {
      this.#failure ??= { error };
    }
  }

  /** Call once the unit committed: tells the outbox what was queued, and hands back the first failure. */
  committed(): { error: unknown } | undefined {
    for (const evaluation of this.#evaluations) this.#alerting?.notify(evaluation);
    return this.#failure;
  }
}
