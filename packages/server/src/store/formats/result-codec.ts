/**
 * How a check result is kept on disk: ENCODING_V1 (≤ 500 bytes per passing result), the rows it
 * wrote, and the parts of ENCODING_V2 (result-row-codec.ts) that are about one result's columns. The facts that
 * filters and analytics read are columns of `check_results` (created by step 14 of store/sqlite/migrations/), so those
 * reads never touch the document; the rest of the document is stored as raw DEFLATE against a fixed
 * dictionary of typical result JSON, which turns the repeated key names and shapes into a few bytes.
 *
 * Lossless, with one documented exception (`reducePassing`): values that are also columns (`id`,
 * `checkId`, `created_at` when it is the column's ISO form, `timingPhases`) are replaced by a `0`
 * placeholder in place, so a decoded document has its keys in the order they were recorded.
 *
 * The dictionary is part of the on-disk format: never edit DICTIONARY_V1. A new dictionary is a new
 * ENCODING value next to it, and rows keep the encoding they were written with.
 *
 * It sits in store/formats/, not in the read side that writes most rows, because the migration steps
 * that carry stored results over (store/sqlite/migrations/) encode and decode with it too, and the
 * store imports nothing above it.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Reader, Writer } from './varint.js';

/** `check_results.encoding`: 1 = DEFLATE with DICTIONARY_V1. */
export const ENCODING_V1 = 1;
/**
 * The compact row of result-row-codec.ts: a derived id as its discriminator, the location as a key of
 * `check_results_locations`, timing phases packed (`packPhases`), and a body that is either a delta
 * from the reference `ref` (result-delta.ts) or, with no `ref`, what ENCODING_V1 writes. Its value is
 * 0 because SQLite stores the integers 0 and 1 in no bytes, and this is the form of most rows.
 */
export const ENCODING_V2 = 0;

const TIMESTAMP = '2026-01-01T00:00:00.000Z';
const DICTIONARY_V1 = Buffer.from(
  [
    '"requestError":"connect ECONNREFUSED 127.0.0.1","error":"Request failed with status code 500","bodyTruncated":true,',
    '{"source":"RESPONSE_TIME","comparison":"LESS_THAN","property":"","target":"1000","regex":null,"actual":',
    '{"source":"JSON_BODY","comparison":"EQUALS","property":"$.status","target":"ok","regex":null,"actual":"',
    '"tcpCheckResult":{"host":"127.0.0.1","port":','"dnsCheckResult":{"query":"','"multiStepCheckResult":{"playwrightTestResults":',
    '"headers":{"content-type":"application/json; charset=utf-8","content-length":"","date":"Mon, 01 Jan 2026 00:00:00 GMT","connection":"keep-alive","keep-alive":"timeout=5","transfer-encoding":"chunked"},',
    '"timingPhases":{"wait":0,"dns":0,"tcp":0,"firstByte":0,"download":0,"total":0},"connection":0,"data":0}',
    JSON.stringify({
      id: 0,
      name: '',
      checkId: 0,
      hasFailures: false,
      hasErrors: false,
      isDegraded: false,
      overMaxResponseTime: false,
      runLocation: 'eu-west-1',
      startedAt: TIMESTAMP,
      stoppedAt: TIMESTAMP,
      created_at: 0,
      responseTime: 0,
      apiCheckResult: {
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null, actual: 200, passed: true, error: null }],
        request: { method: 'GET', url: 'http://127.0.0.1:', data: '', headers: {}, params: {} },
        response: {
          status: 200,
          statusText: 'OK',
          body: '{"status":"ok"}',
          bodyTruncated: false,
          headers: { 'content-type': 'application/json', date: 'Mon, 01 Jan 2026 00:00:00 GMT', connection: 'keep-alive', 'keep-alive': 'timeout=5', 'transfer-encoding': 'chunked' },
          timings: { socket: 0, lookup: 0, connect: 0, response: 0, end: 0 },
          timingPhases: 0,
        },
        requestError: null,
        jobLog: { setup: [], request: [{ time: 1795510332797, level: 'INFO', msg: 'GET http://127.0.0.1:' }, { time: 1795510332878, level: 'INFO', msg: '200 OK in 0 ms' }], teardown: [] },
        jobAssets: null,
      },
      browserCheckResult: null,
      multiStepCheckResult: null,
      checkRunId: 1795510330,
      attempts: 0,
      resultType: 'FINAL',
      sequenceId: '00000000-0000-0000-0000-000000000000',
      error: null,
    }),
  ].join(''),
);

/** The columns a stored result is read back with (besides its body). */
export interface ResultColumns {
  id: string;
  checkId: string;
  createdMs: number;
  /** JSON of `apiCheckResult.response.timingPhases`, or null when the body keeps its own. */
  phases: string | null;
}

/** The whole document under DICTIONARY_V1, as the references of store/sqlite/result-rows.ts are kept. */
export function deflateDocument(doc: Doc): Buffer {
  const deflated = deflateRawSync(JSON.stringify(doc), { dictionary: DICTIONARY_V1, level: 9 });
  // zlib's output is a view on its 16 KB output chunk; a reference kept in memory (store/sqlite/result-rows.ts)
  // would hold the whole chunk for its few hundred bytes, so a copy of its own size is returned.
  const own = Buffer.allocUnsafeSlow(deflated.length);
  deflated.copy(own);
  return own;
}

export function inflateDocument(body: Buffer): Doc {
  return JSON.parse(inflateRawSync(body, { dictionary: DICTIONARY_V1 }).toString('utf8')) as Doc;
}

/**
 * The timing phase sets the runner writes (API, TCP, DNS and gRPC results), in its key order. Phases
 * with one of these key lists and values in hundredths of a ms are packed as the set's index and a
 * varint per value: 11 bytes instead of some 70 of JSON.
 */
const PHASE_SETS: readonly (readonly string[])[] = [
  ['wait', 'dns', 'tcp', 'firstByte', 'download', 'total'],
  ['wait', 'dns', 'tcp', 'firstByte', 'download'],
  ['dns', 'connection', 'data', 'total'],
  ['dns', 'connection', 'data'],
  ['total'],
];

/** The phases column of an ENCODING_V2 row: packed (a BLOB), else JSON (TEXT), or null when there are none. */
export function packPhases(phases: unknown): Buffer | string | null {
  if (phases === undefined) return null;
  const json = JSON.stringify(phases);
  const values = objectAt(phases);
  const keys = values ? Object.keys(values) : [];
  const set = PHASE_SETS.findIndex((names) => names.length === keys.length && names.every((name, index) => name === keys[index]));
  if (!values || set < 0) return json;
  const out = new Writer();
  out.varint(set);
  for (const key of keys) {
    const value = values[key];
    const hundredths = typeof value === 'number' ? Math.round(value * 100) : Number.NaN;
    if (!Number.isSafeInteger(hundredths) || hundredths / 100 !== value) return json;
    out.zigzag(hundredths);
  }
  return Buffer.from(out.bytes);
}

/** The phases of a phases column (either form), as the object they were. */
export function unpackPhases(column: Buffer | string | null): unknown {
  if (column === null) return undefined;
  if (typeof column === 'string') return JSON.parse(column);
  const input = new Reader(column);
  const names = PHASE_SETS[input.varint()];
  if (!names) throw new Error('a stored check result has timing phases of an unknown set');
  const phases: Record<string, number> = {};
  for (const name of names) phases[name] = input.zigzag() / 100;
  return phases;
}


type Doc = Record<string, unknown>;

function objectAt(value: unknown): Doc | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : undefined;
}

/** The response object of an API (or TCP) result, where timing phases live. */
export function responseOf(doc: Doc): Doc | undefined {
  return objectAt(objectAt(doc['apiCheckResult'])?.['response']);
}

/** The timing phases of a result as their column holds them (null when the result has none). */
export function phasesColumnOf(doc: Doc): string | null {
  const phases = responseOf(doc)?.['timingPhases'];
  return phases === undefined ? null : JSON.stringify(phases);
}

/**
 * A passing run (no failure, no error, not degraded) keeps what its numbers and assertions say, not
 * what the target sent: its response `body` is stored as "" and its response `headers` as {}. The
 * body and headers of a failing or degraded run are what someone looks at to find out why; those of
 * a passing one are large (up to the runner's body cap) and are never read again. The shape stays
 * the one the API documents (the API: `body` string, `headers` object).
 */
export function reducePassing(doc: Doc): Doc {
  if (doc['hasFailures'] !== false || doc['hasErrors'] === true || doc['isDegraded'] === true) return doc;
  const check = objectAt(doc['apiCheckResult']);
  const response = objectAt(check?.['response']);
  if (!check || !response) return doc;
  return { ...doc, apiCheckResult: { ...check, response: { ...response, body: '', headers: {} } } };
}

export function encodeResult(doc: Doc, columns: ResultColumns): Buffer {
  const stripped: Doc = { ...doc, id: 0, checkId: 0 };
  if (typeof doc['created_at'] === 'string' && new Date(columns.createdMs).toISOString() === doc['created_at']) stripped['created_at'] = 0;
  const check = objectAt(doc['apiCheckResult']);
  const response = objectAt(check?.['response']);
  if (check && response && columns.phases !== null) {
    stripped['apiCheckResult'] = { ...check, response: { ...response, timingPhases: 0 } };
  }
  return deflateRawSync(JSON.stringify(stripped), { dictionary: DICTIONARY_V1, level: 9 });
}

/** An ENCODING_V1 body (the rows of store/sqlite/result-rows.ts decode ENCODING_V2 ones, whose full bodies come here too). */
export function decodeResult(body: Buffer, encoding: number, columns: ResultColumns): Doc {
  if (encoding !== ENCODING_V1) throw new Error(`check result ${columns.id} has an unknown storage encoding ${encoding}`);
  const doc = JSON.parse(inflateRawSync(body, { dictionary: DICTIONARY_V1 }).toString('utf8')) as Doc;
  doc['id'] = columns.id;
  doc['checkId'] = columns.checkId;
  if (doc['created_at'] === 0) doc['created_at'] = new Date(columns.createdMs).toISOString();
  const response = responseOf(doc);
  if (response && response['timingPhases'] === 0 && columns.phases !== null) response['timingPhases'] = JSON.parse(columns.phases);
  return doc;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A result id as its column holds it: 16 bytes for a lowercase UUID (every id the runner makes), else the text. */
export function idKey(id: string): Buffer | string {
  return UUID.test(id) ? Buffer.from(id.replaceAll('-', ''), 'hex') : id;
}

export function idFromKey(key: Buffer | string): string {
  if (typeof key === 'string') return key;
  const hex = key.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
