/**
 * The lines of one check's series in `GET /metrics`: its families, and the lines each of its facts
 * makes, written as bytes straight into the pieces of the check's block (check-blocks.ts) when the
 * check changed; otherwise its bytes are copied from the block's previous pieces.
 *
 * Why bytes and not strings: every line is a constant head (`name{`), the series' labels and a
 * number, and the heads and labels are kept encoded, so a line is two or three copies and a few
 * digits. Built as strings (a template per line, joined per check, measured, then encoded), the
 * 47,500 lines of 2,500 changed checks cost about three times the CPU and left as much garbage.
 */
import type { StatusFields } from '../store/metrics-read-ports.js';
import { escapeLabelValue, formatSampleValue, type Family } from './exposition.js';

export type RunOutcome = 'passed' | 'failed' | 'degraded' | 'error';
export const OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'degraded', 'error'];

const UP: Family = { name: 'vigil_check_up', type: 'gauge', help: '1 when the last FINAL run of the check passed (degraded counts as passed), 0 when it failed or errored' };
const DEGRADED: Family = { name: 'vigil_check_degraded', type: 'gauge', help: '1 when the last FINAL run of the check was degraded' };
const LAST_RUN: Family = { name: 'vigil_check_last_run_timestamp_seconds', type: 'gauge', help: 'When the last FINAL run of the check ended (Unix time)' };
const LAST_RESPONSE_TIME: Family = { name: 'vigil_check_last_response_time_seconds', type: 'gauge', help: 'Response time of the last FINAL run of the check this process stored' };
const SSL_DAYS: Family = { name: 'vigil_check_ssl_days_remaining', type: 'gauge', help: "Days until the certificate of the check's target expires, as of the run that last saw it" };
/**
 * What a check is called and how it is grouped change more often than its identity; as labels of
 * every series they would start new series (and break rate()) on each edit. They live on one
 * `vigil_check_info` series per check, joined in queries:
 * `vigil_check_up * on(account, check_id) group_left(check_name, group, tags) vigil_check_info`.
 */
const INFO: Family = { name: 'vigil_check_info', type: 'gauge', help: "Always 1: the check's name, type, group (its name) and tags (sorted, comma-separated), to join on account and check_id" };
const RUNS: Family = { name: 'vigil_check_runs_total', type: 'counter', help: 'FINAL runs of the check since the service started, by outcome' };
const RESPONSE_TIMES: Family = { name: 'vigil_check_response_time_seconds', type: 'histogram', help: 'Response time of the FINAL runs of the check since the service started' };

/** The per-check families in the order a scrape writes them; `CheckFamily` indexes it. */
export const CHECK_FAMILIES: readonly Family[] = [UP, DEGRADED, LAST_RUN, LAST_RESPONSE_TIME, SSL_DAYS, INFO, RUNS, RESPONSE_TIMES];
export const CheckFamily = { up: 0, degraded: 1, lastRun: 2, lastResponseTime: 3, sslDays: 4, info: 5, runs: 6, responseTimes: 7 } as const;

/** What a check's stored status says that its gauges show. */
export interface StatusFacts {
  readonly up: 0 | 1;
  readonly degraded: 0 | 1;
  /** Unix seconds, when the status has an end time. */
  readonly endedSeconds: number | null;
  readonly sslDays: number | null;
}

/** The runs of one check in one location since the process started. */
export interface RunSeries {
  /** `account`, `check_id` and `location`, escaped, as UTF-8. */
  readonly labels: Buffer;
  readonly outcomes: number[];
  /** Runs per bucket, not cumulative: `buckets[i]` counts the times in (bound i-1, bound i]. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** `account="…",check_id="…"`, escaped: the labels every series of a check starts with. */
export function checkLabels(accountId: string, checkId: string): string {
  return `account="${escapeLabelValue(accountId)}",check_id="${escapeLabelValue(checkId)}"`;
}

/** Whether two statuses show the same lines. */
export function sameStatusFacts(a: StatusFacts, b: StatusFacts): boolean {
  return a.up === b.up && a.degraded === b.degraded && a.endedSeconds === b.endedSeconds && a.sslDays === b.sslDays;
}

/** The facts of a stored status, as an object. */
export function statusFactsOf(status: StatusFields): StatusFacts {
  const ended = typeof status.updated_at === 'string' ? Date.parse(status.updated_at) : Number.NaN;
  return {
    up: status.hasFailures === true || status.hasErrors === true ? 0 : 1,
    degraded: status.isDegraded === true ? 1 : 0,
    endedSeconds: Number.isFinite(ended) ? ended / 1000 : null,
    sslDays: typeof status.sslDaysRemaining === 'number' ? status.sslDaysRemaining : null,
  };
}

/** A check's lines, written into a block's pieces by family (check-blocks.ts). */
export interface CheckLines {
  /** Exactly how many bytes `write` puts in the family's piece. */
  size(family: number): number;
  /** Writes the check's lines of the family into `piece` at `at`; returns where they end. */
  write(family: number, piece: Buffer, at: number): number;
}

const encoded = (text: string) => Buffer.from(text, 'latin1');
const HEAD = {
  up: encoded(`${UP.name}{`),
  degraded: encoded(`${DEGRADED.name}{`),
  lastRun: encoded(`${LAST_RUN.name}{`),
  lastResponseTime: encoded(`${LAST_RESPONSE_TIME.name}{`),
  sslDays: encoded(`${SSL_DAYS.name}{`),
  runs: encoded(`${RUNS.name}{`),
  infBucket: encoded(`${RESPONSE_TIMES.name}_bucket{le="+Inf",`),
  sum: encoded(`${RESPONSE_TIMES.name}_sum{`),
  count: encoded(`${RESPONSE_TIMES.name}_count{`),
};
const OUTCOME_TAILS = OUTCOMES.map((outcome) => encoded(`,outcome="${outcome}"} `));
/** The bytes of a series' run counter lines other than its labels, values and newlines. */
const RUNS_HEADS_BYTES = OUTCOME_TAILS.reduce((bytes, tail) => bytes + HEAD.runs.length + tail.length, 0);
/** `} ` closing the labels of a line without a label of its own after the series' ones, and the line's `\n`. */
const TAIL_BYTES = 3;

/**
 * A sample value as writeLine writes it: undefined for a count (a non-negative safe integer, whose
 * digits it writes itself), else its text. A value's text is made once per writer, as both the
 * piece's size and its writing need it.
 */
function valueText(value: number): string | undefined {
  return Number.isSafeInteger(value) && value >= 0 ? undefined : formatSampleValue(value);
}

/** How many digits a count has. */
function digitsOf(count: number): number {
  // Comparisons for the counts a scrape mostly has, instead of a division per digit.
  if (count < 10) return 1;
  if (count < 100) return 2;
  if (count < 1000) return 3;
  if (count < 10_000) return 4;
  let digits = 5;
  for (let rest = Math.floor(count / 100_000); rest >= 1; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** The bytes of a value as writeLine writes it (`text` from valueText). */
function valueBytes(value: number, text: string | undefined): number {
  // Every value's text is ASCII, so its length is its bytes.
  return text === undefined ? digitsOf(value) : text.length;
}

/** The heads of the histogram's bucket lines, `…_bucket{le="0.1",`, one per bound. */
export function bucketHeads(bounds: readonly number[]): Buffer[] {
  return bounds.map((bound) => encoded(`${RESPONSE_TIMES.name}_bucket{le="${formatSampleValue(bound)}",`));
}

/** The bytes of a check's info line. */
export function infoLine(check: { labels: string; name: string; type: string; tags: string }, groupName: string): Buffer {
  const names = `check_name="${escapeLabelValue(check.name)}",check_type="${escapeLabelValue(check.type)}"`;
  return Buffer.from(`${INFO.name}{${check.labels},${names},group="${escapeLabelValue(groupName)}",tags="${escapeLabelValue(check.tags)}"} 1\n`);
}

/**
 * The lines of one check: the gauges of its status, its info line, and per location its run
 * counters and histogram. `labels` are its `account` and `check_id` as UTF-8.
 */
export class CheckLineWriter implements CheckLines {
  readonly #labels: Buffer;
  readonly #status: StatusFacts;
  readonly #info: Buffer;
  readonly #lastResponseSeconds: number | null;
  readonly #series: readonly RunSeries[];
  readonly #bucketHeads: readonly Buffer[];
  /** The bytes of a series' histogram lines other than its labels, values and line ends. */
  readonly #histogramHeadsBytes: number;
  /** The texts of the values that are not counts (valueText), made once for `size` and `write`. */
  readonly #endedText: string | undefined;
  readonly #sslDaysText: string | undefined;
  readonly #lastResponseText: string | undefined;
  readonly #sumTexts: ReadonlyArray<string | undefined>;
  /** Per series, its outcomes' texts, or undefined when all are counts (as they are but in tests). */
  readonly #outcomeTexts: ReadonlyArray<ReadonlyArray<string | undefined> | undefined>;

  constructor(labels: Buffer, status: StatusFacts, info: Buffer, runs: { lastResponseSeconds: number | null; series: readonly RunSeries[] } | undefined, bucketHeads: readonly Buffer[]) {
    this.#labels = labels;
    this.#status = status;
    this.#info = info;
    this.#lastResponseSeconds = runs?.lastResponseSeconds ?? null;
    // A copy: a location added later must not show in some families of a scrape and not others.
    this.#series = runs ? runs.series.slice() : [];
    this.#bucketHeads = bucketHeads;
    let heads = HEAD.infBucket.length + HEAD.sum.length + HEAD.count.length;
    for (const head of bucketHeads) heads += head.length;
    this.#histogramHeadsBytes = heads;
    this.#endedText = status.endedSeconds === null ? undefined : valueText(status.endedSeconds);
    this.#sslDaysText = status.sslDays === null ? undefined : valueText(status.sslDays);
    this.#lastResponseText = this.#lastResponseSeconds === null ? undefined : valueText(this.#lastResponseSeconds);
    this.#sumTexts = this.#series.map((series) => valueText(series.sum));
    this.#outcomeTexts = this.#series.map((series) => (series.outcomes.every((count) => valueText(count) === undefined) ? undefined : series.outcomes.map(valueText)));
  }

  size(family: number): number {
    // No closures here: this runs for every changed check and family.
    const status = this.#status;
    const gauge = this.#labels.length + TAIL_BYTES;
    switch (family) {
      case CheckFamily.up:
        return HEAD.up.length + gauge + 1;
      case CheckFamily.degraded:
        return HEAD.degraded.length + gauge + 1;
      case CheckFamily.lastRun:
        return status.endedSeconds === null ? 0 : HEAD.lastRun.length + gauge + valueBytes(status.endedSeconds, this.#endedText);
      case CheckFamily.lastResponseTime:
        return this.#lastResponseSeconds === null ? 0 : HEAD.lastResponseTime.length + gauge + valueBytes(this.#lastResponseSeconds, this.#lastResponseText);
      case CheckFamily.sslDays:
        return status.sslDays === null ? 0 : HEAD.sslDays.length + gauge + valueBytes(status.sslDays, this.#sslDaysText);
      case CheckFamily.info:
        return this.#info.length;
      case CheckFamily.runs: {
        let bytes = 0;
        for (let at = 0; at < this.#series.length; at++) {
          const series = this.#series[at]!;
          const texts = this.#outcomeTexts[at];
          // Each line: its head and outcome tail (RUNS_HEADS_BYTES), the labels, the value and `\n`.
          bytes += RUNS_HEADS_BYTES + OUTCOMES.length * (series.labels.length + 1);
          for (let index = 0; index < OUTCOMES.length; index++) bytes += valueBytes(series.outcomes[index]!, texts?.[index]);
        }
        return bytes;
      }
      case CheckFamily.responseTimes: {
        let bytes = 0;
        for (let at = 0; at < this.#series.length; at++) {
          const series = this.#series[at]!;
          bytes += this.#histogramHeadsBytes + (this.#bucketHeads.length + 3) * (series.labels.length + TAIL_BYTES);
          let cumulative = 0;
          for (let index = 0; index < this.#bucketHeads.length; index++) {
            cumulative += series.buckets[index]!;
            bytes += digitsOf(cumulative);
          }
          bytes += 2 * digitsOf(series.count) + valueBytes(series.sum, this.#sumTexts[at]);
        }
        return bytes;
      }
      default:
        return 0;
    }
  }

  write(family: number, piece: Buffer, at: number): number {
    const status = this.#status;
    const labels = this.#labels;
    switch (family) {
      case CheckFamily.up:
        return writeLine(piece, at, HEAD.up, labels, undefined, status.up, undefined);
      case CheckFamily.degraded:
        return writeLine(piece, at, HEAD.degraded, labels, undefined, status.degraded, undefined);
      case CheckFamily.lastRun:
        return status.endedSeconds === null ? at : writeLine(piece, at, HEAD.lastRun, labels, undefined, status.endedSeconds, this.#endedText);
      case CheckFamily.lastResponseTime:
        return this.#lastResponseSeconds === null ? at : writeLine(piece, at, HEAD.lastResponseTime, labels, undefined, this.#lastResponseSeconds, this.#lastResponseText);
      case CheckFamily.sslDays:
        return status.sslDays === null ? at : writeLine(piece, at, HEAD.sslDays, labels, undefined, status.sslDays, this.#sslDaysText);
      case CheckFamily.info:
        piece.set(this.#info, at);
        return at + this.#info.length;
      case CheckFamily.runs:
        for (let series = 0; series < this.#series.length; series++) {
          const { labels: seriesLabels, outcomes } = this.#series[series]!;
          const texts = this.#outcomeTexts[series];
          for (let index = 0; index < OUTCOMES.length; index++) at = writeLine(piece, at, HEAD.runs, seriesLabels, OUTCOME_TAILS[index], outcomes[index]!, texts?.[index]);
        }
        return at;
      case CheckFamily.responseTimes:
        for (let index = 0; index < this.#series.length; index++) {
          const series = this.#series[index]!;
          let cumulative = 0;
          for (let bucket = 0; bucket < this.#bucketHeads.length; bucket++) {
            cumulative += series.buckets[bucket]!;
            at = writeLine(piece, at, this.#bucketHeads[bucket]!, series.labels, undefined, cumulative, undefined);
          }
          at = writeLine(piece, at, HEAD.infBucket, series.labels, undefined, series.count, undefined);
          at = writeLine(piece, at, HEAD.sum, series.labels, undefined, series.sum, this.#sumTexts[index]);
          at = writeLine(piece, at, HEAD.count, series.labels, undefined, series.count, undefined);
        }
        return at;
      default:
        return at;
    }
  }
}

/**
 * `head`, `labels`, `tail` (or `} `), the value and a newline at `at`; returns where the line ends.
 * `text` is the value's text from valueText: undefined for a count, whose digits are written here.
 */
function writeLine(piece: Buffer, at: number, head: Buffer, labels: Buffer, tail: Buffer | undefined, value: number, text: string | undefined): number {
  // set(), not copy(): Node's copy() makes a view of its source per call.
  piece.set(head, at);
  at += head.length;
  piece.set(labels, at);
  at += labels.length;
  if (tail) {
    piece.set(tail, at);
    at += tail.length;
  } else {
    piece[at++] = 0x7d; // }
    piece[at++] = 0x20;
  }
  if (text === undefined) {
    // Most values are counts: their digits, without a string per number.
    const digits = digitsOf(value);
    for (let index = at + digits - 1, rest = value; index >= at; index--, rest = Math.floor(rest / 10)) piece[index] = 0x30 + (rest % 10);
    at += digits;
  } else {
    // write() cuts a text that does not fit; a piece sized wrong must fail, not send a value cut short.
    if (piece.write(text, at, 'latin1') !== text.length) throw new RangeError(`the value ${text} does not fit in the piece at ${at}`);
    at += text.length;
  }
  piece[at++] = 0x0a;
  return at;
}
