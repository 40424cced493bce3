/**
 * The service's Prometheus metrics: one `ServiceMetrics` per app, fed by the scheduler (runs
 * started and stored, its queue), the outbox (deliveries) and the HTTP layer (requests), and read
 * by `GET /metrics` (routes/metrics.ts). docs/local-service.md lists every metric.
 *
 * Why prom-client: it is the Prometheus client for Node that Prometheus itself links to, has no
 * native code, and brings the process metrics (CPU, memory, event loop lag, GC) every Node exporter
 * has. It keeps the service-wide metrics (a few dozen series). The per-check series (tens of
 * thousands at 10,000 checks) and the per-account ones are written as text by checks.ts instead:
 * prom-client's label objects made a scrape of 10,000 checks take hundreds of milliseconds.
 *
 * Each app has registries of its own, never prom-client's global one: tests start many apps in one
 * process, and a second app must not throw on registering the same names or mix in the first's
 * counts. The process metrics are the exception, shared by every app of the process (processRegistry).
 */
import type { DeliveryEvent } from '../alerting/outbox.js';
import type { MetricsReads } from '../store/metrics-read-ports.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CheckMetrics, type CheckMetricsOptions, type MetricsPorts, type StoredRun } from './checks.js';
import { CONTENT_TYPE, escapeLabelValue, expositionChunks, linesOf, type Family, type Piece } from './exposition.js';

export { DEFAULT_MAX_CHECKS, outcomeOf, type CheckMetricsOptions, type MetricsPorts, type StoredRun } from './checks.js';
export { DEFAULT_RESPONSE_TIME_BUCKETS, parseResponseTimeBuckets } from './response-time-buckets.js';

/** Seconds from a slot's due moment to its run's start: milliseconds normally, seconds when the queue is full. */
const START_LAG_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds an API request took. */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Methods the API serves; anything else is counted as `other`, so a client cannot mint label values. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const OMITTED: Family = { name: 'vigil_metrics_checks_omitted', type: 'gauge', help: 'Checks left out of the last scrape because it reached the most checks one scrape exports' };
const OPEN_INCIDENTS: Family = { name: 'vigil_open_incidents', type: 'gauge', help: 'Incidents of the account not resolved yet' };

/** The run queue as the metrics see it (scheduler/queue.ts). */
export interface QueueGauges {
  readonly running: number;
  readonly waiting: number;
  /** Slots replaced while waiting by the next slot of the same check and location, since the queue started. */
  readonly superseded: number;
}

/** A scrape's audience: one tenant sees its own checks; the operator (the metrics token) sees everything. */
export type MetricsView = { kind: 'account'; accountId: string } | { kind: 'operator'; accountIds: readonly string[] };

let sharedProcessRegistry: Registry | undefined;

/**
 * Node's process metrics, collected once per process: they describe the process, not an app, and
 * each collection starts an event-loop monitor and a GC observer that are never stopped, which a
 * test process starting hundreds of apps must not pile up. Created at the first scrape.
 */
function processRegistry(): Registry {
  if (!sharedProcessRegistry) {
    sharedProcessRegistry = new Registry();
    collectDefaultMetrics({ register: sharedProcessRegistry });
  }
  return sharedProcessRegistry;
}

export class ServiceMetrics {
  readonly #reads: MetricsReads;
  readonly #checks: CheckMetrics;
  readonly #service = new Registry();
  readonly #startLag: Histogram;
  readonly #missed: Counter;
  readonly #notifications: Counter;
  readonly #requests: Counter;
  readonly #requestSeconds: Histogram;
  #queue: QueueGauges | undefined;
  #countedSuperseded = 0;

  /** `ports`: a replica's storage ports (the metrics read its documents and MetricsReads). */
  constructor(ports: MetricsPorts, options: CheckMetricsOptions = {}) {
    this.#reads = ports.metricsReads;
    this.#checks = new CheckMetrics(ports, options);
    const registers = [this.#service];
    this.#startLag = new Histogram({
      name: 'vigil_scheduler_start_lag_seconds',
      help: "Time from a slot's due moment to the start of its run",
      buckets: START_LAG_BUCKETS,
      registers,
    });
    const queue = () => this.#queue;
    new Gauge({ name: 'vigil_scheduler_runs_in_flight', help: 'Runs executing now', registers, collect() { this.set(queue()?.running ?? 0); } });
    new Gauge({ name: 'vigil_scheduler_runs_queued', help: 'Claimed slots waiting for a free run slot', registers, collect() { this.set(queue()?.waiting ?? 0); } });
    this.#missed = new Counter({
      name: 'vigil_scheduler_missed_slots_total',
      help: 'Slots that were claimed but never ran, by reason (superseded: the next slot of the same check and location came while it still waited; queue-full: pushed out of a full line of waiting runs)',
      labelNames: ['reason'],
      registers,
      collect: () => this.#countSuperseded(),
    });
    this.#missed.inc({ reason: 'superseded' }, 0);
    this.#missed.inc({ reason: 'queue-full' }, 0);
    this.#notifications = new Counter({
      name: 'vigil_notifications_total',
      help: 'Alert notifications settled, by channel type and outcome (sent, failed after its retries, undeliverable)',
      labelNames: ['channel_type', 'outcome'],
      registers,
    });
    this.#requests = new Counter({ name: 'vigil_http_requests_total', help: 'API requests answered, by method, route template and status', labelNames: ['method', 'route', 'status'], registers });
    this.#requestSeconds = new Histogram({ name: 'vigil_http_request_duration_seconds', help: 'Time to answer an API request, by method and route template', labelNames: ['method', 'route'], buckets: REQUEST_BUCKETS, registers });
  }

  /** The scheduler's queue, read at each scrape. */
  watchQueue(queue: QueueGauges): void {
    this.#queue = queue;
    this.#countedSuperseded = queue.superseded;
  }

  runStarted(dueMs: number, nowMs: number): void {
    this.#startLag.observe(Math.max(0, nowMs - dueMs) / 1000);
  }

  /** A claimed slot that will never run, told as it is given up (superseded slots are read from the queue instead). */
  slotMissed(reason: 'queue-full'): void {
    this.#missed.inc({ reason });
  }

  runStored(run: StoredRun): void {
    this.#checks.recordRun(run);
  }

  delivered(event: Pick<DeliveryEvent, 'channelType' | 'outcome'>): void {
    // A retry is an attempt, not a settled notification; its final outcome is counted when it settles.
    if (event.outcome === 'retrying') return;
    this.#notifications.inc({ channel_type: event.channelType, outcome: event.outcome });
  }

  requestEnded(method: string, route: string, status: number, seconds: number): void {
    const known = METHODS.has(method) ? method : 'other';
    this.#requests.inc({ method: known, route, status: String(status) });
    this.#requestSeconds.observe({ method: known, route }, seconds);
  }

  /**
   * The text exposition of the view as UTF-8, in pieces to send in order, some of them written
   * only when reached (exposition.ts), and its content type. `done` must be called once the
   * pieces are sent or never will be: until then their memory is not reused (checks.ts).
   */
  async scrape(view: MetricsView): Promise<{ contentType: string; chunks: Piece[]; done: () => void }> {
    const accountIds = view.kind === 'account' ? [view.accountId] : view.accountIds;
    const checks = await this.#checks.scrape({ accountIds });
    try {
      const open = await this.#reads.openIncidents(accountIds);
      const incidents = accountIds.map((accountId, index) => linesOf(`${OPEN_INCIDENTS.name}{account="${escapeLabelValue(accountId)}"} ${open[index]}\n`));
      const families = [...checks.families, { family: OMITTED, samples: [linesOf(`${OMITTED.name} ${checks.omitted}\n`)] }, { family: OPEN_INCIDENTS, samples: incidents }];
      // The service's families are the operator's only; prom-client's text ends with a newline, as ours does.
      const service = view.kind === 'operator' ? await Registry.merge([this.#service, processRegistry()]).metrics() : undefined;
      return { contentType: CONTENT_TYPE, chunks: expositionChunks(families, service), done: checks.done };
    } catch (error) {
      checks.done(); // nothing of this scrape will be sent
      throw error;
    }
  }

  #countSuperseded(): void {
    const queue = this.#queue;
    if (!queue) return;
    const added = queue.superseded - this.#countedSuperseded;
    if (added > 0) this.#missed.inc({ reason: 'superseded' }, added);
    this.#countedSuperseded = queue.superseded;
  }
}
