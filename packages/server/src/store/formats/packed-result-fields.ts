/**
 * The `packed` column of PostgreSQL's `check_results` (its step 27): the columns of a compact row
 * (result-row-codec.ts) that no SQL statement filters or joins on, in one value. PostgreSQL gives
 * every column its own alignment (a double takes 8 bytes, a bytea's header one more, a NULL a bit in
 * a bitmap that grows the row header), so attempts, response time, status code, timing phases and
 * body as one bytea cost some 40 bytes where their columns took over 60. SQLite keeps them as columns
 * (its integers and reals already take one to three bytes each), and the migrate-data copy packs them.
 *
 * Layout: attempts, response time and status code as a number each, then the phases (a tag varint: 0
 * none, 1 packed by `packPhases`, 2 JSON text, each of the last two followed by its length and bytes),
 * then the body to the end. A number is a varint: 0 null, 1 a float64 follows (little-endian), else
 * 2 + twice the zigzag of a whole number, or 3 + twice the zigzag of its hundredths (the runner rounds
 * timings to hundredths of a ms, so one of the two is exact for all it writes: a status code takes two
 * bytes, a response time two or three; anything else takes the float64, so nothing is ever rounded).
 */
import { Reader, Writer } from './varint.js';

/** The fields a row keeps packed. */
export interface PackedFields {
  attempts: number;
  responseTime: number | null;
  statusCode: number | null;
  /** As the row codec gives them: packed, JSON text, or null when the result has none. */
  phases: Buffer | string | null;
  body: Buffer;
}

const NUMBER_NULL = 0;
const NUMBER_FLOAT = 1;
const NUMBER_WHOLE = 2;
/** Magnitudes kept as varints: twice their zigzag stays a safe integer. */
const VARINT_LIMIT = 2 ** 50;
const PHASES_NONE = 0;
const PHASES_PACKED = 1;
const PHASES_JSON = 2;

function writeNumber(out: Writer, value: number | null): void {
  if (value === null) return out.varint(NUMBER_NULL);
  const zigzag = (whole: number) => (whole < 0 ? -whole * 2 - 1 : whole * 2);
  const hundredths = Math.round(value * 100);
  // -0 takes the float64: as a whole number it would read back as +0.
  if (!Object.is(value, -0)) {
    if (Number.isSafeInteger(value) && Math.abs(value) < VARINT_LIMIT) return out.varint(NUMBER_WHOLE + 2 * zigzag(value));
    if (Number.isSafeInteger(hundredths) && Math.abs(hundredths) < VARINT_LIMIT && hundredths / 100 === value) return out.varint(NUMBER_WHOLE + 1 + 2 * zigzag(hundredths));
  }
  out.varint(NUMBER_FLOAT);
  const float = Buffer.alloc(8);
  float.writeDoubleLE(value);
  out.raw(float);
}

function readNumber(input: Reader): number | null {
  const tag = input.varint();
  if (tag === NUMBER_NULL) return null;
  if (tag === NUMBER_FLOAT) return input.raw(8).readDoubleLE(0);
  const rest = tag - NUMBER_WHOLE;
  const zigzag = Math.floor(rest / 2);
  const whole = zigzag % 2 === 1 ? -(zigzag + 1) / 2 : zigzag / 2;
  return rest % 2 === 0 ? whole : whole / 100;
}

export function packResultFields(fields: PackedFields): Buffer {
  const out = new Writer();
  writeNumber(out, fields.attempts);
  writeNumber(out, fields.responseTime);
  writeNumber(out, fields.statusCode);
  if (fields.phases === null) out.varint(PHASES_NONE);
  else {
    const bytes = typeof fields.phases === 'string' ? Buffer.from(fields.phases, 'utf8') : fields.phases;
    out.varint(typeof fields.phases === 'string' ? PHASES_JSON : PHASES_PACKED);
    out.varint(bytes.length);
    out.raw(bytes);
  }
  return Buffer.concat([Buffer.from(out.bytes), fields.body]);
}

/** The fields of a packed column; the body is a view on `packed`. */
export function unpackResultFields(packed: Buffer): PackedFields {
  const input = new Reader(packed);
  const attempts = readNumber(input);
  const responseTime = readNumber(input);
  const statusCode = readNumber(input);
  const phasesTag = input.varint();
  let phases: Buffer | string | null = null;
  if (phasesTag !== PHASES_NONE) {
    const bytes = input.raw(input.varint());
    phases = phasesTag === PHASES_JSON ? bytes.toString('utf8') : Buffer.from(bytes);
  }
  return { attempts: attempts ?? 0, responseTime, statusCode, phases, body: packed.subarray(input.offset) };
}
