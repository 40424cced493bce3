import { appendFileSync } from 'node:fs';

/** One line of `--request-log FILE`; the apply end-to-end tests read these to check call order. */
export interface RequestLogEntry {
  /** ISO time the request arrived. */
  readonly t: string;
  readonly method: string;
  /** Path without the query string; a heartbeat ping's token masked (`/ping/*****`). */
  readonly path: string;
  readonly status: number;
  /** The account the request acted for, or null when authentication failed. */
  readonly account: string | null;
  /**
   * Milliseconds from the request's arrival to its response being ready, two decimals: the service's
   * own time for the request, without the network's. A streamed body (a `/metrics` scrape) is
   * ready when its first piece is; its sending is not included.
   */
  readonly ms: number;
  /** Present when `--faults` interfered: `error`, `too-many` or `drop` (handled, then connection cut). */
  readonly fault?: string;
}

/**
 * The token of `/ping/{token}` is the ping's only credential, and a request log is read by more
 * people, for longer, than the service's database: it is masked whatever the route made of it.
 */
const PING_TOKEN = /^(\/+ping\/+)[^/]+/i;

export function loggedPath(path: string): string {
  return path.replace(PING_TOKEN, '$1*****');
}

/**
 * Appends synchronously: a test that has its response in hand can read the line at once, and lines
 * keep the order in which responses were produced.
 */
export function requestLogWriter(file: string): (entry: RequestLogEntry) => void {
  return (entry) => appendFileSync(file, `${JSON.stringify({ ...entry, path: loggedPath(entry.path) })}\n`);
}
