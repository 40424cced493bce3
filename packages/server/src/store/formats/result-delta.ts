/**
 * A check result stored as what differs from a reference result of the same check (store/sqlite/result-rows.ts
 * keeps the references). Two passing runs of a check differ in a handful of leaves: timings, the
 * response time written into a log line, `startedAt`; everything else (URL, assertions, key names,
 * the shape) is the reference's. So a delta lists only the leaves that differ, each as a small binary
 * value, and costs some 20 bytes where the document's JSON is over a kilobyte.
 *
 * Leaves are compared in a form relative to their own result, so that what moves with time does not
 * count as a difference: an ISO time or an epoch-ms/epoch-s number becomes its offset from the
 * result's `created_at`; the result's own id, check id, location, response time and timing phases
 * (row columns) become placeholders. `startedAt` 46 ms before `created_at` in both is no difference.
 *
 * Layout: for each differing node, in pre-order of the reference's tree, a varint `gap << 3 | type`
 * (`gap`: nodes skipped since the previous one) and the value:
 *   0 JSON text (length, UTF-8): any value, a subtree whose shape differs included
 *   1 number ≥ 0 in hundredths (varint)       2 ISO time (zigzag ms from created_at)
 *   3 epoch ms (zigzag from created_at)        4 epoch s (zigzag from created_at's second)
 *   5 string edited from the reference's (code points kept at the start, at the end, then the middle
 *     as length and UTF-8)                    6 lowercase UUID (16 bytes)
 *   7 a placeholder, true, false or null (varint), or 7 and a float64 (a number with more digits)
 * The encoder decodes what it wrote and compares (result-row-codec.ts), so a form this file gets wrong
 * costs bytes, never a changed document.
 */

import { Reader, Writer } from './varint.js';

type Doc = Record<string, unknown>;

/** What a result's placeholders stand for, and the instant its relative leaves are relative to. */
export interface DeltaContext {
  id: string;
  checkId: string;
  createdMs: number;
  runLocation: unknown;
  /** The `response_time` column (null when the result has no number there). */
  responseTime: number | null;
  /** `apiCheckResult.response.timingPhases`, undefined when the result has none. */
  phases: unknown;
}

class Placeholder {
  constructor(readonly code: number) {}
}
const PLACEHOLDERS = [new Placeholder(0), new Placeholder(1), new Placeholder(2), new Placeholder(3), new Placeholder(8)] as const;
const [ID, CHECK, LOCATION, PHASES, RESPONSE_TIME] = PLACEHOLDERS;
const TRUE = 4;
const FALSE = 5;
const NULL = 6;
const FLOAT = 7;

/** Relative forms only within this distance of created_at: farther numbers are plain numbers. */
const RELATIVE_MS = 10 * 86_400_000;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function objectAt(value: unknown): Doc | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Placeholder) ? (value as Doc) : undefined;
}

function put(target: Doc, key: string, value: unknown): void {
  // A "__proto__" key (JSON.parse makes it an own property) must stay data, not become the prototype.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The result as compared: placeholders where row columns hold the value. */
export function normalized(doc: Doc, context: DeltaContext): Doc {
  const copy: Doc = {};
  for (const key of Object.keys(doc)) {
    const value = doc[key];
    if (key === 'id' && value === context.id) put(copy, key, ID);
    else if (key === 'checkId' && value === context.checkId) put(copy, key, CHECK);
    else if (key === 'sequenceId' && value === context.id) put(copy, key, ID);
    else if (key === 'runLocation' && value === context.runLocation) put(copy, key, LOCATION);
    else if (key === 'responseTime' && value === context.responseTime) put(copy, key, RESPONSE_TIME);
    else put(copy, key, value);
  }
  const check = objectAt(copy['apiCheckResult']);
  const response = objectAt(check?.['response']);
  if (check && response && response['timingPhases'] !== undefined) {
    copy['apiCheckResult'] = { ...check, response: { ...response, timingPhases: PHASES } };
  }
  return copy;
}

/** A leaf as compared between two results, relative to its own result's `created_at`. */
function formOf(value: unknown, createdMs: number): string {
  if (value instanceof Placeholder) return `P${value.code}`;
  if (typeof value === 'string') {
    if (ISO_MS.test(value)) {
      const ms = Date.parse(value);
      if (Number.isSafeInteger(ms) && Math.abs(ms - createdMs) <= RELATIVE_MS && new Date(ms).toISOString() === value) return `T${ms - createdMs}`;
    }
    return `S${value}`;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    if (Math.abs(value - createdMs) <= RELATIVE_MS) return `E${value - createdMs}`;
    const second = Math.floor(createdMs / 1000);
    if (Math.abs(value - second) <= RELATIVE_MS / 1000) return `U${value - second}`;
  }
  return `J${JSON.stringify(value)}`;
}

function sameShape(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length;
  const objectA = objectAt(a);
  const objectB = objectAt(b);
  if (!objectA || !objectB) return false;
  const keysA = Object.keys(objectA);
  const keysB = Object.keys(objectB);
  return keysA.length === keysB.length && keysA.every((key, index) => key === keysB[index]);
}

function nodeCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + nodeCount(item), 1);
  const object = objectAt(value);
  if (!object) return 1;
  let count = 1;
  for (const key of Object.keys(object)) count += nodeCount(object[key]);
  return count;
}

/** A placeholder or relative leaf as the value it stands for in the result of `context`. */
function denormalized(value: unknown, context: DeltaContext): unknown {
  if (value === ID) return context.id;
  if (value === CHECK) return context.checkId;
  if (value === LOCATION) return context.runLocation;
  if (value === PHASES) return context.phases;
  if (value === RESPONSE_TIME) return context.responseTime;
  if (Array.isArray(value)) return value.map((item) => denormalized(item, context));
  const object = objectAt(value);
  if (!object) return value;
  const copy: Doc = {};
  for (const key of Object.keys(object)) put(copy, key, denormalized(object[key], context));
  return copy;
}

/** Writes `value` (of the result of `context`) in its cheapest form; `previous` is the reference's leaf. */
function writeValue(out: Writer, gap: number, value: unknown, previous: unknown, context: DeltaContext): void {
  const tag = (type: number) => out.varint(gap * 8 + type);
  if (value instanceof Placeholder) return (tag(7), out.varint(value.code));
  if (value === true || value === false || value === null) return (tag(7), out.varint(value === true ? TRUE : value === false ? FALSE : NULL));
  const form = formOf(value, context.createdMs);
  const relative = form[0] === 'T' || form[0] === 'E' || form[0] === 'U' ? Number(form.slice(1)) : undefined;
  if (relative !== undefined) return (tag(form[0] === 'T' ? 2 : form[0] === 'E' ? 3 : 4), out.zigzag(relative));
  if (typeof value === 'number') {
    const hundredths = Math.round(value * 100);
    if (Number.isSafeInteger(hundredths) && hundredths >= 0 && hundredths / 100 === value && !Object.is(value, -0)) return (tag(1), out.varint(hundredths));
    if (Number.isFinite(value)) {
      const float = Buffer.alloc(8);
      float.writeDoubleLE(value);
      return (tag(7), out.varint(FLOAT), out.raw(float));
    }
  }
  if (typeof value === 'string') {
    if (UUID.test(value)) return (tag(6), out.raw(Buffer.from(value.replaceAll('-', ''), 'hex')));
    if (typeof previous === 'string') {
      const now = Array.from(value);
      const before = Array.from(previous);
      let start = 0;
      while (start < now.length && start < before.length && now[start] === before[start]) start++;
      let end = 0;
      while (end < now.length - start && end < before.length - start && now[now.length - 1 - end] === before[before.length - 1 - end]) end++;
      const middle = Buffer.from(now.slice(start, now.length - end).join(''), 'utf8');
      tag(5);
      out.varint(start);
      out.varint(end);
      out.varint(middle.length);
      return out.raw(middle);
    }
  }
  const json = Buffer.from(JSON.stringify(denormalized(value, context)) ?? 'null', 'utf8');
  tag(0);
  out.varint(json.length);
  out.raw(json);
}

function readValue(input: Reader, type: number, previous: unknown, context: DeltaContext): unknown {
  switch (type) {
    case 0:
      return JSON.parse(input.raw(input.varint()).toString('utf8'));
    case 1:
      return input.varint() / 100;
    case 2:
      return new Date(context.createdMs + input.zigzag()).toISOString();
    case 3:
      return context.createdMs + input.zigzag();
    case 4:
      return Math.floor(context.createdMs / 1000) + input.zigzag();
    case 5: {
      const before = Array.from(typeof previous === 'string' ? previous : '');
      const start = input.varint();
      const end = input.varint();
      const middle = input.raw(input.varint()).toString('utf8');
      return before.slice(0, start).join('') + middle + before.slice(before.length - end).join('');
    }
    case 6: {
      const hex = input.raw(16).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    case 7: {
      const code = input.varint();
      if (code === TRUE) return true;
      if (code === FALSE) return false;
      if (code === NULL) return null;
      if (code === FLOAT) return input.raw(8).readDoubleLE(0);
      const placeholder = PLACEHOLDERS.find((candidate) => candidate.code === code);
      if (!placeholder) throw new Error(`a stored check result delta has an unknown placeholder ${code}`);
      return denormalized(placeholder, context);
    }
    default:
      throw new Error(`a stored check result delta has an unknown value type ${type}`);
  }
}

/** A reference result as deltas are taken against: its normalized tree and its own `created_at`. */
export interface DeltaReference {
  tree: Doc;
  createdMs: number;
}

export function referenceOf(doc: Doc, context: DeltaContext): DeltaReference {
  return { tree: normalized(doc, context), createdMs: context.createdMs };
}

/** The delta of `doc` (the result of `context`) from `reference`. */
export function encodeDelta(doc: Doc, context: DeltaContext, reference: DeltaReference): Buffer {
  const out = new Writer();
  let index = 0;
  let written = -1;
  const walk = (value: unknown, previous: unknown): void => {
    const here = index++;
    if (sameShape(value, previous)) {
      if (Array.isArray(value)) value.forEach((item, position) => walk(item, (previous as unknown[])[position]));
      else for (const [key, item] of Object.entries(value as Doc)) walk(item, (previous as Doc)[key]);
      return;
    }
    index += nodeCount(previous) - 1;
    if (!Array.isArray(previous) && !objectAt(previous) && formOf(value, context.createdMs) === formOf(previous, reference.createdMs)) return;
    writeValue(out, here - written - 1, value, previous, context);
    written = here;
  };
  walk(normalized(doc, context), reference.tree);
  return Buffer.from(out.bytes);
}

/** The reference's leaf as the value it stands for in the result of `context`. */
function rebased(previous: unknown, reference: DeltaReference, context: DeltaContext): unknown {
  if (previous instanceof Placeholder) return denormalized(previous, context);
  const form = formOf(previous, reference.createdMs);
  const offset = Number(form.slice(1));
  if (form[0] === 'T') return new Date(context.createdMs + offset).toISOString();
  if (form[0] === 'E') return context.createdMs + offset;
  if (form[0] === 'U') return Math.floor(context.createdMs / 1000) + offset;
  return previous;
}

export function decodeDelta(delta: Buffer, context: DeltaContext, reference: DeltaReference): Doc {
  const input = new Reader(delta);
  let index = 0;
  let next = -1;
  let nextType = 0;
  const advance = () => {
    if (input.done) return void (next = Number.POSITIVE_INFINITY);
    const tag = input.varint();
    next += Math.floor(tag / 8) + 1;
    nextType = tag % 8;
  };
  advance();
  const build = (previous: unknown): unknown => {
    const here = index++;
    if (here === next) {
      index += nodeCount(previous) - 1;
      const value = readValue(input, nextType, previous, context);
      advance();
      return value;
    }
    if (Array.isArray(previous)) return previous.map((item) => build(item));
    const object = objectAt(previous);
    if (object) {
      const copy: Doc = {};
      for (const key of Object.keys(object)) put(copy, key, build(object[key]));
      return copy;
    }
    return rebased(previous, reference, context);
  };
  const doc = build(reference.tree);
  if (!input.done || next !== Number.POSITIVE_INFINITY) throw new Error('a stored check result delta does not fit its reference');
  return doc as Doc;
}
