import { appendFileSync } from 'node:fs';

/** One line of `--request-log FILE`; the apply end-to-end tests read these to check call order. */
export interface RequestLogEntry {
  /** ISO time the request arrived. */
  readonly t: string;
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly status: number;
  /** The account the request acted for, or null when authentication failed. */
  readonly account: string | null;
  /** Present when `--faults` interfered: `error`, `too-many` or `drop` (handled, then connection cut). */
  readonly fault?: string;
}

/**
 * Appends synchronously: a test that has its response in hand can read the line at once, and lines
 * keep the order in which responses were produced.
 */
export function requestLogWriter(file: string): (entry: RequestLogEntry) => void {
  return (entry) => appendFileSync(file, `${JSON.stringify(entry)}\n`);
}
