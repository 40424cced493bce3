/**
 * Assertions of a URL monitor (`UrlAssertionBuilder`), with Checkly's signature: a URL monitor
 * asserts on the status code only (use an `ApiCheck` for headers, bodies and response times).
 */
import type { AssertionComparison } from './values.js';

/** One assertion of a URL monitor's request, as the payload holds it. */
export interface UrlAssertion {
  /** Always `STATUS_CODE`. */
  source: 'STATUS_CODE';
  /** Unused; kept empty. */
  property: string;
  /** `EQUALS`, `NOT_EQUALS`, `LESS_THAN` or `GREATER_THAN`. */
  comparison: AssertionComparison;
  /** The status code compared against, as a string. */
  target: string;
  /** Unused; kept null. */
  regex: string | null;
}

/** Comparisons for the status code. */
export class UrlStatusCodeAssertionBuilder {
  equals(target: number): UrlAssertion {
    return this.#assertion('EQUALS', target);
  }
  notEquals(target: number): UrlAssertion {
    return this.#assertion('NOT_EQUALS', target);
  }
  lessThan(target: number): UrlAssertion {
    return this.#assertion('LESS_THAN', target);
  }
  greaterThan(target: number): UrlAssertion {
    return this.#assertion('GREATER_THAN', target);
  }

  #assertion(comparison: AssertionComparison, target: number): UrlAssertion {
    return { source: 'STATUS_CODE', property: '', comparison, target: String(target), regex: null };
  }
}

/**
 * Builds URL monitor assertions: `UrlAssertionBuilder.statusCode().equals(200)`,
 * `UrlAssertionBuilder.statusCode().lessThan(400)`. Without any, a status ≥ 400 fails the run.
 */
export class UrlAssertionBuilder {
  /** The response's HTTP status code (of the last hop when redirects are followed). */
  static statusCode(): UrlStatusCodeAssertionBuilder {
    return new UrlStatusCodeAssertionBuilder();
  }
}
