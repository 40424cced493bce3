/**
 * How often a check runs. The sub-minute values become frequency 0 with an offset of 10, 20 or 30
 * seconds, as the API requires.
 */
export class Frequency {
  static readonly EVERY_10S = new Frequency(0, 10);
  static readonly EVERY_20S = new Frequency(0, 20);
  static readonly EVERY_30S = new Frequency(0, 30);
  static readonly EVERY_1M = new Frequency(1);
  static readonly EVERY_2M = new Frequency(2);
  static readonly EVERY_5M = new Frequency(5);
  static readonly EVERY_10M = new Frequency(10);
  static readonly EVERY_15M = new Frequency(15);
  static readonly EVERY_30M = new Frequency(30);
  static readonly EVERY_1H = new Frequency(60);
  static readonly EVERY_2H = new Frequency(120);
  static readonly EVERY_3H = new Frequency(180);
  static readonly EVERY_6H = new Frequency(360);
  static readonly EVERY_12H = new Frequency(720);
  static readonly EVERY_24H = new Frequency(1440);

  /** Minutes between runs; 0 means sub-minute. */
  readonly frequency: number;
  /** Seconds between runs when `frequency` is 0. */
  readonly frequencyOffset?: number;

  private constructor(frequency: number, frequencyOffset?: number) {
    this.frequency = frequency;
    if (frequencyOffset !== undefined) this.frequencyOffset = frequencyOffset;
    Object.freeze(this);
  }
}

/** A frequency in minutes, or a `Frequency` value (which may carry a sub-minute offset). */
export type FrequencyValue = number | Frequency;

/**
 * Splits a frequency prop into the payload's `frequency` and `frequencyOffset`. Structural on
 * purpose: a `Frequency` from another copy of this package must work too.
 */
export function resolveFrequency(value: FrequencyValue | undefined): { frequency?: unknown; frequencyOffset?: number } {
  if (value === undefined) return {};
  if (typeof value === 'object' && value !== null && 'frequency' in value) {
    return value.frequencyOffset === undefined
      ? { frequency: value.frequency }
      : { frequency: value.frequency, frequencyOffset: value.frequencyOffset };
  }
  return { frequency: value };
}
