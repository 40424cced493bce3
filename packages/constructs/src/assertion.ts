import type { AssertionComparison, AssertionSource } from './values.js';

/** One assertion of an API check's request, as the spec's payload holds it. */
export interface Assertion {
  /** What is asserted on: `STATUS_CODE`, `JSON_BODY`, `HEADERS`, `TEXT_BODY` or `RESPONSE_TIME`. */
  source: AssertionSource;
  /** JSON path (`$.id`) for `JSON_BODY`, header name for `HEADERS`; empty otherwise. */
  property: string;
  /** How the value is compared with `target`. */
  comparison: AssertionComparison;
  /** The value compared against, always as a string. */
  target: string;
  /** Optional regular expression applied to the value before comparing (headers, bodies). */
  regex: string | null;
}

type Target = string | number | boolean;

/** Comparisons for numbers (status code, response time). */
export class NumericAssertionBuilder {
  constructor(private readonly source: AssertionSource) {}

  equals(target: number): Assertion {
    return this.#assertion('EQUALS', target);
  }
  notEquals(target: number): Assertion {
    return this.#assertion('NOT_EQUALS', target);
  }
  lessThan(target: number): Assertion {
    return this.#assertion('LESS_THAN', target);
  }
  greaterThan(target: number): Assertion {
    return this.#assertion('GREATER_THAN', target);
  }

  #assertion(comparison: AssertionComparison, target: number): Assertion {
    return { source: this.source, property: '', comparison, target: String(target), regex: null };
  }
}

/** Comparisons for bodies and headers. */
export class GeneralAssertionBuilder {
  constructor(
    private readonly source: AssertionSource,
    private readonly property: string = '',
    private readonly regex: string | null = null,
  ) {}

  equals(target: Target): Assertion {
    return this.#assertion('EQUALS', target);
  }
  notEquals(target: Target): Assertion {
    return this.#assertion('NOT_EQUALS', target);
  }
  hasKey(target: string): Assertion {
    return this.#assertion('HAS_KEY', target);
  }
  notHasKey(target: string): Assertion {
    return this.#assertion('NOT_HAS_KEY', target);
  }
  hasValue(target: Target): Assertion {
    return this.#assertion('HAS_VALUE', target);
  }
  notHasValue(target: Target): Assertion {
    return this.#assertion('NOT_HAS_VALUE', target);
  }
  isEmpty(): Assertion {
    return this.#assertion('IS_EMPTY');
  }
  notEmpty(): Assertion {
    return this.#assertion('NOT_EMPTY');
  }
  lessThan(target: Target): Assertion {
    return this.#assertion('LESS_THAN', target);
  }
  greaterThan(target: Target): Assertion {
    return this.#assertion('GREATER_THAN', target);
  }
  contains(target: string): Assertion {
    return this.#assertion('CONTAINS', target);
  }
  notContains(target: string): Assertion {
    return this.#assertion('NOT_CONTAINS', target);
  }
  isNull(): Assertion {
    return this.#assertion('IS_NULL');
  }
  isNotNull(): Assertion {
    return this.#assertion('NOT_NULL');
  }

  #assertion(comparison: AssertionComparison, target?: Target): Assertion {
    return { source: this.source, property: this.property, comparison, target: target === undefined ? '' : String(target), regex: this.regex };
  }
}

/**
 * Builds API check assertions: `AssertionBuilder.statusCode().equals(200)`,
 * `AssertionBuilder.jsonBody('$.id').isNotNull()`, `AssertionBuilder.responseTime().lessThan(500)`.
 */
export class AssertionBuilder {
  /** The response's HTTP status code. */
  static statusCode(): NumericAssertionBuilder {
    return new NumericAssertionBuilder('STATUS_CODE');
  }
  /** A value of the JSON body, selected by a JSON path such as `$.data.id` (the whole body if omitted). */
  static jsonBody(property?: string): GeneralAssertionBuilder {
    return new GeneralAssertionBuilder('JSON_BODY', property);
  }
  /** A response header by name, optionally narrowed by a regular expression. */
  static headers(property?: string, regex?: string): GeneralAssertionBuilder {
    return new GeneralAssertionBuilder('HEADERS', property, regex ?? null);
  }
  /** The raw response body as text. */
  static textBody(property?: string): GeneralAssertionBuilder {
    return new GeneralAssertionBuilder('TEXT_BODY', property);
  }
  /** The response time in milliseconds. */
  static responseTime(): NumericAssertionBuilder {
    return new NumericAssertionBuilder('RESPONSE_TIME');
  }
  /**
   * Checkly's misspelt alias of {@link AssertionBuilder.responseTime}, kept so its projects load.
   * @deprecated Use {@link AssertionBuilder.responseTime}.
   */
  static responseTme(): NumericAssertionBuilder {
    return AssertionBuilder.responseTime();
  }
}
