/**
 * Assertions of a TCP monitor (`TcpAssertionBuilder`), with Checkly's signatures: the data the
 * target answered with and the response time. Only the comparisons the service takes for TCP
 * assertions are offered.
 */
import type { TcpAssertionSource } from '@vigil/schema';
import type { AssertionComparison } from './values.js';

/** One assertion of a TCP monitor's request, as the payload holds it. */
export interface TcpAssertion {
  /** `RESPONSE_DATA` (what the target sent back, as text) or `RESPONSE_TIME` (milliseconds). */
  source: TcpAssertionSource;
  /** Unused by TCP assertions; kept empty. */
  property: string;
  /** How the value is compared with `target`. */
  comparison: AssertionComparison;
  /** The value compared against, always as a string. */
  target: string;
  /** Optional regular expression applied to the value before comparing. */
  regex: string | null;
}

function assertion(source: TcpAssertionSource, comparison: AssertionComparison, property: string, target?: string | number): TcpAssertion {
  return { source, property, comparison, target: target === undefined ? '' : String(target), regex: null };
}

/** Comparisons for the response time in milliseconds. */
export class TcpNumericAssertionBuilder {
  constructor(private readonly source: TcpAssertionSource) {}

  equals(target: number): TcpAssertion {
    return assertion(this.source, 'EQUALS', '', target);
  }
  notEquals(target: number): TcpAssertion {
    return assertion(this.source, 'NOT_EQUALS', '', target);
  }
  lessThan(target: number): TcpAssertion {
    return assertion(this.source, 'LESS_THAN', '', target);
  }
  greaterThan(target: number): TcpAssertion {
    return assertion(this.source, 'GREATER_THAN', '', target);
  }
}

/** Comparisons for the response data. */
export class TcpGeneralAssertionBuilder {
  constructor(
    private readonly source: TcpAssertionSource,
    private readonly property: string = '',
  ) {}

  equals(target: string | number): TcpAssertion {
    return assertion(this.source, 'EQUALS', this.property, target);
  }
  notEquals(target: string | number): TcpAssertion {
    return assertion(this.source, 'NOT_EQUALS', this.property, target);
  }
  isEmpty(): TcpAssertion {
    return assertion(this.source, 'IS_EMPTY', this.property);
  }
  notEmpty(): TcpAssertion {
    return assertion(this.source, 'NOT_EMPTY', this.property);
  }
  lessThan(target: string | number): TcpAssertion {
    return assertion(this.source, 'LESS_THAN', this.property, target);
  }
  greaterThan(target: string | number): TcpAssertion {
    return assertion(this.source, 'GREATER_THAN', this.property, target);
  }
  contains(target: string): TcpAssertion {
    return assertion(this.source, 'CONTAINS', this.property, target);
  }
  notContains(target: string): TcpAssertion {
    return assertion(this.source, 'NOT_CONTAINS', this.property, target);
  }
}

/**
 * Builds TCP monitor assertions: `TcpAssertionBuilder.responseData().contains('SMTP')`,
 * `TcpAssertionBuilder.responseTime().lessThan(1000)`.
 */
export class TcpAssertionBuilder {
  /** What the target sent back after the connection (and `data`, if any), as UTF-8 text. */
  static responseData(property?: string): TcpGeneralAssertionBuilder {
    return new TcpGeneralAssertionBuilder('RESPONSE_DATA', property);
  }
  /** The time from the start of the run to the end of the read, in milliseconds. */
  static responseTime(): TcpNumericAssertionBuilder {
    return new TcpNumericAssertionBuilder('RESPONSE_TIME');
  }
}
