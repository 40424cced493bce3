/**
 * The numeric facts of a stored result that analytics and the read side compute with, read from the
 * columns of its compact row (result-row-codec.ts) without decoding its document. Both engines keep
 * the same columns, so one reader of them serves both: what `CheckResults.facts` answers is the same
 * object whichever engine read the row.
 */
import { unpackPhases } from './result-codec.js';
import { idOfRow, locationOfRow, type Locations, type RowKey } from './result-row-codec.js';

export type ResultType = 'FINAL' | 'ATTEMPT';

export interface ResultFacts {
  id: string;
  checkId: string;
  /** `created_at` in epoch milliseconds: the instant windows and buckets use. */
  createdAt: number;
  resultType: ResultType;
  runLocation: string;
  hasFailures: boolean;
  attempts: number;
  responseTime: number | null;
  /** `apiCheckResult.response.status`, null when the run got no response. */
  statusCode: number | null;
  /** Timing phases in milliseconds by name (`wait`, `dns`, `tcp`, `firstByte`, `download`, `connection`, `data`). */
  timingPhases: Readonly<Record<string, number>>;
}

/**
 * The fact columns of one row, in this order: id, created_ms, final, has_failures, run_location,
 * attempts, response_time, status_code, phases, encoding (SQLite reads them so in raw mode: an array
 * per row, no object).
 */
export type FactTuple = [RowKey, number, number, number, string, number, number | null, number | null, Buffer | string | null, number];

/**
 * Facts of one row. The id and the timing phases are worked out on first use: a day of analytics
 * reads thousands of rows and usually needs neither (ids only break ties, phases only for phase
 * metrics).
 */
export class RowFacts implements ResultFacts {
  readonly checkId: string;
  readonly createdAt: number;
  readonly resultType: ResultType;
  readonly runLocation: string;
  readonly hasFailures: boolean;
  readonly attempts: number;
  readonly responseTime: number | null;
  readonly statusCode: number | null;
  readonly #idKey: RowKey;
  readonly #phases: Buffer | string | null;
  #id: string | undefined;
  #timingPhases: Record<string, number> | undefined;

  constructor(checkId: string, row: FactTuple, locations: Locations) {
    this.checkId = checkId;
    this.#idKey = row[0];
    this.createdAt = row[1];
    this.resultType = row[2] === 1 ? 'FINAL' : 'ATTEMPT';
    this.hasFailures = row[3] === 1;
    this.runLocation = locationOfRow(row[9], row[4], locations);
    this.attempts = row[5];
    this.responseTime = row[6];
    this.statusCode = row[7];
    this.#phases = row[8];
  }

  get id(): string {
    return (this.#id ??= idOfRow(this.checkId, this.#idKey, this.createdAt));
  }

  get timingPhases(): Readonly<Record<string, number>> {
    return (this.#timingPhases ??= finitePhases(this.#phases));
  }
}

/** The finite numbers of a phases column (either form); the parsed object itself when all of it is (the usual case). */
function finitePhases(column: Buffer | string | null): Record<string, number> {
  const phases = unpackPhases(column);
  if (phases === null || typeof phases !== 'object' || Array.isArray(phases)) return {};
  const parsed = phases as Record<string, unknown>;
  let clean = true;
  for (const name in parsed) {
    const value = parsed[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) clean = false;
  }
  if (clean) return parsed as Record<string, number>;
  const timingPhases: Record<string, number> = {};
  for (const [name, value] of Object.entries(parsed)) if (typeof value === 'number' && Number.isFinite(value)) timingPhases[name] = value;
  return timingPhases;
}
