/**
 * An agent's reports on their way to `POST /v1/agent/results`.
 *
 * - A service that says `reportsPerRequest` in its jobs answer takes several reports per request:
 *   the reports that finished while the previous request was in flight go together in the next
 *   one (up to that many, and about REPORT_BATCH_BYTES of JSON). An idle agent's report goes
 *   alone and at once, so batching adds no wait; a busy one sends one request (and the service
 *   makes one commit) for many runs. An older service gets one report per request, as before.
 * - Each report is answered on its own and handled as if posted alone: recorded; 409 (its lease
 *   went to a peer, or the run already has its result) dropped; another refusal logged and
 *   dropped; a 5xx, a 429 or a network failure retried after a wait that doubles, while its lease
 *   could still be current (two lease periods from the run's end).
 * - `deliver` resolves when the report is settled one way or another: until then the run counts
 *   as in flight, so the agent's polls keep renewing its lease.
 */
import { AgentResultsAnswer, type AgentReportOutcome, type RunReport } from '@vigil/schema';

/** A batch stops growing past this much report JSON (a single larger report still goes alone). */
const REPORT_BATCH_BYTES = 2 * 1024 * 1024;
/** Requests in flight at once: one, plus more only while a full batch waits behind it. */
const MAX_REQUESTS_IN_FLIGHT = 4;

export interface ReportCourierOptions {
  agentId: string;
  /** Posts a JSON body to `/v1/agent/results`. */
  post(body: string, signal: AbortSignal): Promise<Response>;
  /** The lease period the service said last: how long a report is worth retrying. */
  leaseMs(): number;
  maxBackoffMs: number;
  label: string;
  log(line: string): void;
}

interface PendingReport {
  readonly leaseId: string;
  readonly key: string;
  /** The report as JSON, written once. */
  readonly json: string;
  readonly giveUpAt: number;
  wait: number;
  readonly signal: AbortSignal;
  settle(): void;
}

export class ReportCourier {
  /** Reports per request the service takes; 0 until it says (an older service: one report, the single-report body). */
  reportsPerRequest = 0;
  readonly #options: ReportCourierOptions;
  readonly #queue: PendingReport[] = [];
  readonly #closed = new AbortController();
  #requestsInFlight = 0;

  constructor(options: ReportCourierOptions) {
    this.#options = options;
  }

  /** Sends `report` under `leaseId`; resolves once it is recorded, refused, given up, or `signal` aborts. */
  deliver(leaseId: string, report: RunReport, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted || this.#closed.signal.aborted) return resolve();
      const pending: PendingReport = {
        leaseId,
        key: report.key,
        json: JSON.stringify(report),
        // Past its lease a report can still count (nobody took the run), so it is tried for two periods.
        giveUpAt: Date.now() + 2 * this.#options.leaseMs(),
        wait: 250,
        signal,
        settle: () => {
          signal.removeEventListener('abort', onAbort);
          const queued = this.#queue.indexOf(pending);
          if (queued >= 0) this.#queue.splice(queued, 1);
          resolve();
        },
      };
      const onAbort = () => pending.settle();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(pending);
      this.#pump();
    });
  }

  /** Ends requests in flight and settles every report still waiting (the agent is stopping). */
  close(): void {
    this.#closed.abort();
    for (const pending of [...this.#queue]) pending.settle();
  }

  #pump(): void {
    const perRequest = Math.max(1, this.reportsPerRequest);
    while (this.#queue.length > 0 && this.#requestsInFlight < MAX_REQUESTS_IN_FLIGHT && (this.#requestsInFlight === 0 || this.#queue.length >= perRequest)) {
      const batch: PendingReport[] = [];
      let bytes = 0;
      while (batch.length < perRequest && this.#queue.length > 0 && (batch.length === 0 || bytes + this.#queue[0]!.json.length <= REPORT_BATCH_BYTES)) {
        const next = this.#queue.shift()!;
        bytes += next.json.length;
        batch.push(next);
      }
      this.#requestsInFlight++;
      void this.#send(batch).finally(() => {
        this.#requestsInFlight--;
        this.#pump();
      });
    }
  }

  async #send(batch: PendingReport[]): Promise<void> {
    const { agentId } = this.#options;
    const batched = this.reportsPerRequest > 0;
    const body = batched
      ? `{"agentId":${JSON.stringify(agentId)},"reports":[${batch.map((pending) => `{"leaseId":${JSON.stringify(pending.leaseId)},"report":${pending.json}}`).join(',')}]}`
      : `{"agentId":${JSON.stringify(agentId)},"leaseId":${JSON.stringify(batch[0]!.leaseId)},"report":${batch[0]!.json}}`;
    let outcomes: Array<Pick<AgentReportOutcome, 'status' | 'message'>>;
    try {
      const response = await this.#options.post(body, this.#closed.signal);
      if (response.ok && batched) {
        const answer = AgentResultsAnswer.safeParse(await response.json());
        if (!answer.success || answer.data.results.length !== batch.length) throw new Error('the server answered results this agent cannot read; is it another vigil version?');
        outcomes = answer.data.results;
      } else {
        const message = response.ok ? undefined : await messageOf(response);
        if (response.ok) await response.body?.cancel();
        outcomes = batch.map(() => ({ status: response.status, ...(message === undefined ? {} : { message }) }));
      }
    } catch (error) {
      if (this.#closed.signal.aborted) return batch.forEach((pending) => pending.settle());
      outcomes = batch.map(() => ({ status: 0, message: (error as Error).message }));
    }
    batch.forEach((pending, index) => this.#settle(pending, outcomes[index]!));
  }

  /** One report's answer: done, dropped with a line in the log, or queued again after its wait. */
  #settle(pending: PendingReport, outcome: Pick<AgentReportOutcome, 'status' | 'message'>): void {
    if (pending.signal.aborted) return pending.settle();
    const { label, log } = this.#options;
    const { status, message = '' } = outcome;
    if (status >= 200 && status < 300) return pending.settle();
    if (status === 409) {
      log(`${label}: result of ${pending.key} not recorded: ${message}`);
      return pending.settle();
    }
    if (status !== 0 && status < 500 && status !== 429) {
      log(`${label}: result of ${pending.key} refused (${status}): ${message}`);
      return pending.settle();
    }
    log(`${label}: reporting ${pending.key} failed: ${status === 0 ? message : `HTTP ${status}: ${message}`}`);
    if (Date.now() + pending.wait > pending.giveUpAt) {
      log(`${label}: gave up reporting ${pending.key}; its lease expires and another agent runs it`);
      return pending.settle();
    }
    const timer = setTimeout(() => {
      pending.signal.removeEventListener('abort', cancel);
      if (pending.signal.aborted || this.#closed.signal.aborted) return pending.settle();
      this.#queue.push(pending);
      this.#pump();
    }, pending.wait);
    const cancel = () => {
      clearTimeout(timer);
      pending.settle();
    };
    pending.signal.addEventListener('abort', cancel, { once: true });
    pending.wait = Math.min(pending.wait * 2, this.#options.maxBackoffMs);
  }
}

/** The service's error message of a refused request, or what came instead. */
export async function messageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not the service's error body: say what came.
  }
  return text.slice(0, 200) || response.statusText;
}
