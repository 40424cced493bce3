/**
 * What one stored check result may hold. A result carries what a target sent and what user code
 * logged, both unbounded in principle: without these limits one check against a 5 MiB page stored
 * megabytes per run, and every read of it (lists, error groups) paid for them again. The runner
 * keeps within most of these already (its body and assertion-value caps); the store applies them
 * itself because results reach it from other runners, seeds and older versions too.
 *
 * docs/local-service.md ("Limits of a stored result") lists them; a change here is a change there.
 */
import { MONITOR_RESULT_FIELDS } from '@vigil/schema';

export const STORED_RESULT_LIMITS = {
  /** `apiCheckResult.response.body` (the rest cut, `bodyTruncated: true`). */
  responseBodyBytes: 64 * 1024,
  /** Each assertion's `actual` (as text; objects as JSON). */
  actualBytes: 4 * 1024,
  /** `error`, `requestError` and an assertion's `error`: room for a message quoting a whole kept `actual`. */
  errorBytes: 8 * 1024,
  /** One job log line's `msg`. */
  jobLogLineBytes: 8 * 1024,
  /** All job log lines of a result together; lines past it are dropped and counted. */
  jobLogBytes: 64 * 1024,
  /** The whole result as JSON, whatever else it holds. */
  resultBytes: 256 * 1024,
} as const;

type Doc = Record<string, unknown>;

function objectAt(value: unknown): Doc | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : undefined;
}

/** Room for the marker a cut leaves, so text the runner already cut to the same limit is not cut again. */
const MARKER_ROOM = 64;

/** `text` over `bytes` bytes of UTF-8 cut to them (never inside a character), with a marker saying how long it was. */
export function cutText(text: string, bytes: number): string {
  // A UTF-16 unit is at most 3 bytes: short text needs no byte count.
  if (text.length * 3 <= bytes + MARKER_ROOM) return text;
  const total = Buffer.byteLength(text);
  if (total <= bytes + MARKER_ROOM) return text;
  return `${cutUtf8(text, bytes)}… [truncated: ${total} bytes in all]`;
}

function cutUtf8(text: string, bytes: number): string {
  // Every unit is at least a byte, so the first `bytes` units hold the cut.
  const buffer = Buffer.from(text.length > bytes ? text.slice(0, bytes) : text);
  let end = Math.min(bytes, buffer.length);
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString('utf8');
}

/** The result within STORED_RESULT_LIMITS: a copy with the over-long parts cut as documented. */
export function boundResult<T extends Doc>(result: T): T {
  const doc: Doc = { ...result };
  if (typeof doc['error'] === 'string') doc['error'] = cutText(doc['error'], STORED_RESULT_LIMITS.errorBytes);
  const api = objectAt(doc['apiCheckResult']);
  if (api !== undefined) {
    const check: Doc = { ...api, assertions: boundAssertions(api['assertions']) };
    if (typeof check['requestError'] === 'string') check['requestError'] = cutText(check['requestError'], STORED_RESULT_LIMITS.errorBytes);
    const response = objectAt(check['response']);
    if (response !== undefined && typeof response['body'] === 'string') {
      const body = cutUtf8(response['body'], STORED_RESULT_LIMITS.responseBodyBytes);
      if (body.length !== response['body'].length) check['response'] = { ...response, body, bodyTruncated: true };
    }
    const jobLog = objectAt(check['jobLog']);
    if (jobLog !== undefined) {
      // One budget for the phases together, spent in their order (setup, request, teardown).
      const budget = { left: STORED_RESULT_LIMITS.jobLogBytes, dropped: 0 };
      const phases: Doc = {};
      for (const [phase, lines] of Object.entries(jobLog)) phases[phase] = Array.isArray(lines) ? boundJobLog(lines, budget) : lines;
      const last = Object.keys(phases).at(-1);
      if (budget.dropped > 0 && last !== undefined && Array.isArray(phases[last])) phases[last] = [...phases[last], droppedLine(budget.dropped)];
      check['jobLog'] = phases;
    }
    doc['apiCheckResult'] = check;
  }
  for (const key of ['multiStepCheckResult', 'browserCheckResult']) {
    const holder = objectAt(doc[key]);
    if (holder === undefined || !Array.isArray(holder['jobLog'])) continue;
    const budget = { left: STORED_RESULT_LIMITS.jobLogBytes, dropped: 0 };
    const lines = boundJobLog(holder['jobLog'], budget);
    doc[key] = { ...holder, jobLog: budget.dropped > 0 ? [...lines, droppedLine(budget.dropped)] : lines };
  }
  for (const key of MONITOR_RESULT_FIELDS) {
    const holder = objectAt(doc[key]);
    if (holder !== undefined) doc[key] = { ...holder, assertions: boundAssertions(holder['assertions']) };
  }
  return (Buffer.byteLength(JSON.stringify(doc)) > STORED_RESULT_LIMITS.resultBytes ? shrink(doc) : doc) as T;
}

function boundAssertions(assertions: unknown): unknown {
  if (!Array.isArray(assertions)) return assertions;
  return assertions.map((assertion) => {
    const entry = objectAt(assertion);
    if (entry === undefined) return assertion;
    const out: Doc = { ...entry };
    const actual = entry['actual'];
    if (actual !== undefined && actual !== null && typeof actual !== 'number' && typeof actual !== 'boolean') {
      const text = typeof actual === 'string' ? actual : (JSON.stringify(actual) ?? '');
      const cut = cutText(text, STORED_RESULT_LIMITS.actualBytes);
      if (cut !== text) out['actual'] = cut;
    }
    if (typeof entry['error'] === 'string') out['error'] = cutText(entry['error'], STORED_RESULT_LIMITS.errorBytes);
    return out;
  });
}

function boundJobLog(lines: unknown[], budget: { left: number; dropped: number }): unknown[] {
  const kept: unknown[] = [];
  for (const line of lines) {
    const entry = objectAt(line);
    const msg = entry?.['msg'];
    const cut = typeof msg === 'string' ? cutText(msg, STORED_RESULT_LIMITS.jobLogLineBytes) : '';
    const size = Buffer.byteLength(cut);
    if (size > budget.left) {
      budget.left = 0;
      budget.dropped += 1;
      continue;
    }
    budget.left -= size;
    kept.push(entry !== undefined && cut !== msg && typeof msg === 'string' ? { ...entry, msg: cut } : line);
  }
  return kept;
}

function droppedLine(count: number): Doc {
  return { time: Date.now(), level: 'WARN', msg: `${count} more job log lines were not stored (at most ${STORED_RESULT_LIMITS.jobLogBytes} bytes of job log are kept per result)` };
}

/**
 * The last resort for a result still over `resultBytes` after the field limits (a huge multi-step
 * report, say): every string and array in it is cut shorter and shorter until it fits. The fields
 * the store indexes (ids, times, numbers, flags) are short and survive every round.
 */
function shrink(doc: Doc): Doc {
  for (const { text, items } of [
    { text: 2048, items: 200 },
    { text: 256, items: 50 },
    { text: 64, items: 10 },
  ]) {
    const shrunk = shrinkValue(doc, text, items) as Doc;
    if (Buffer.byteLength(JSON.stringify(shrunk)) <= STORED_RESULT_LIMITS.resultBytes) return shrunk;
  }
  // Only nesting deeper than any result the runner makes gets here: keep the envelope, drop the details.
  return { ...(shrinkValue(doc, 64, 10) as Doc), apiCheckResult: null, multiStepCheckResult: null, browserCheckResult: null, ...Object.fromEntries(MONITOR_RESULT_FIELDS.map((key) => [key, null])) };
}

function shrinkValue(value: unknown, text: number, items: number): unknown {
  if (typeof value === 'string') return cutText(value, text);
  if (Array.isArray(value)) return value.slice(0, items).map((item) => shrinkValue(item, text, items));
  if (value !== null && typeof value === 'object') {
    const out: Doc = {};
    for (const [key, item] of Object.entries(value)) out[key] = shrinkValue(item, text, items);
    return out;
  }
  return value;
}
