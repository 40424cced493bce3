/**
 * `--faults SPEC`: deliberate misbehaviour so the client's retries and the engine's crash recovery are
 * tested against the real server instead of a mock.
 *
 * SPEC is a comma-separated list of `name=value`:
 * - `latency=50ms` (or `1s`, or a bare number of ms): added delay before every request is handled.
 * - `error=0.1`: that fraction of requests is answered 503 BEFORE handling — nothing is written.
 * - `429=0.2`: that fraction is answered 429 with `Retry-After: 1` before handling — nothing written.
 * - `drop=0.05`: that fraction IS handled (a write is committed) and then the connection is destroyed
 *   before the response is sent: the client sees a network error for a request that succeeded, the
 *   case `Idempotency-Key` exists for.
 * - `seed=42`: seeds the random draws, so a run with the same requests in the same order injects the
 *   same faults (default seed 1).
 * Each request draws one number per configured fraction, in the order error, 429, drop.
 */

export interface FaultSpec {
  readonly latencyMs: number;
  readonly error: number;
  readonly tooMany: number;
  readonly drop: number;
  readonly seed: number;
}

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

const NO_FAULTS: FaultSpec = { latencyMs: 0, error: 0, tooMany: 0, drop: 0, seed: 1 };

function parseFraction(part: string, value: string): number {
  const fraction = Number(value);
  if (value.trim() === '' || !Number.isFinite(fraction) || fraction < 0 || fraction > 1) {
    throw new FaultSpecError(`invalid fault "${part}": expected a fraction between 0 and 1`);
  }
  return fraction;
}

function parseDuration(part: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value.trim());
  if (!match) throw new FaultSpecError(`invalid fault "${part}": expected a duration such as 50ms or 1s`);
  const amount = Number(match[1]);
  return match[2] === 's' ? amount * 1000 : amount;
}

/** Parses SPEC; throws FaultSpecError naming the offending part. An empty SPEC means no faults. */
export function parseFaults(spec: string | undefined): FaultSpec {
  if (spec === undefined || spec.trim() === '') return NO_FAULTS;
  const faults = { ...NO_FAULTS };
  for (const rawPart of spec.split(',')) {
    const part = rawPart.trim();
    const equals = part.indexOf('=');
    if (equals <= 0) throw new FaultSpecError(`invalid fault "${part}": expected name=value`);
    const name = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    switch (name) {
      case 'latency':
        faults.latencyMs = parseDuration(part, value);
        break;
      case 'error':
        faults.error = parseFraction(part, value);
        break;
      case '429':
        faults.tooMany = parseFraction(part, value);
        break;
      case 'drop':
        faults.drop = parseFraction(part, value);
        break;
      case 'seed': {
        const seed = Number(value);
        if (!Number.isInteger(seed)) throw new FaultSpecError(`invalid fault "${part}": expected an integer seed`);
        faults.seed = seed;
        break;
      }
      default:
        throw new FaultSpecError(`unknown fault "${name}" in "${part}" (known: latency, error, 429, drop, seed)`);
    }
  }
  return faults;
}

export type FaultDecision = 'error' | 'too-many' | 'drop' | 'none';

/** Draws the fault for each request from a seeded generator (mulberry32: small, fast, good enough). */
export class FaultInjector {
  readonly spec: FaultSpec;
  #state: number;

  constructor(spec: FaultSpec) {
    this.spec = spec;
    this.#state = spec.seed >>> 0;
  }

  get active(): boolean {
    return this.spec.latencyMs > 0 || this.spec.error > 0 || this.spec.tooMany > 0 || this.spec.drop > 0;
  }

  #next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** The fault for the next request; draws only for configured fractions so seeds stay comparable. */
  decide(): FaultDecision {
    if (this.spec.error > 0 && this.#next() < this.spec.error) return 'error';
    if (this.spec.tooMany > 0 && this.#next() < this.spec.tooMany) return 'too-many';
    if (this.spec.drop > 0 && this.#next() < this.spec.drop) return 'drop';
    return 'none';
  }
}
