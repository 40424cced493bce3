/**
 * Assertions of a DNS monitor (`DnsAssertionBuilder`), with Checkly's signatures: the response
 * code, the response time, the answer as text and the answer as JSON.
 */
import type { DnsAssertionSource } from '@vigil/schema';
import type { AssertionComparison } from './values.js';

/** One assertion of a DNS monitor's request, as the payload holds it. */
export interface DnsAssertion {
  /** `RESPONSE_CODE`, `RESPONSE_TIME`, `TEXT_ANSWER` or `JSON_ANSWER`. */
  source: DnsAssertionSource;
  /** JSONPath for `JSON_ANSWER` (`$.Answer[0].data`); for `TEXT_ANSWER`, a regex whose first group is compared. */
  property: string;
  /** How the value is compared with `target`. */
  comparison: AssertionComparison;
  /** The value compared against, always as a string. */
  target: string;
  /** Optional regular expression applied to the value before comparing. */
  regex: string | null;
}

type Target = string | number | boolean;

function assertion(source: DnsAssertionSource, comparison: AssertionComparison, property: string, target?: Target): DnsAssertion {
  return { source, property, comparison, target: target === undefined ? '' : String(target), regex: null };
}

/** Comparisons for the response time in milliseconds. */
export class DnsNumericAssertionBuilder {
  constructor(private readonly source: DnsAssertionSource) {}

  equals(target: number): DnsAssertion {
    return assertion(this.source, 'EQUALS', '', target);
  }
  notEquals(target: number): DnsAssertion {
    return assertion(this.source, 'NOT_EQUALS', '', target);
  }
  lessThan(target: number): DnsAssertion {
    return assertion(this.source, 'LESS_THAN', '', target);
  }
  greaterThan(target: number): DnsAssertion {
    return assertion(this.source, 'GREATER_THAN', '', target);
  }
}

/** Comparisons for the response code and the answers. */
export class DnsGeneralAssertionBuilder {
  constructor(
    private readonly source: DnsAssertionSource,
    private readonly property: string = '',
  ) {}

  equals(target: Target): DnsAssertion {
    return assertion(this.source, 'EQUALS', this.property, target);
  }
  notEquals(target: Target): DnsAssertion {
    return assertion(this.source, 'NOT_EQUALS', this.property, target);
  }
  hasKey(target: string): DnsAssertion {
    return assertion(this.source, 'HAS_KEY', this.property, target);
  }
  notHasKey(target: string): DnsAssertion {
    return assertion(this.source, 'NOT_HAS_KEY', this.property, target);
  }
  hasValue(target: Target): DnsAssertion {
    return assertion(this.source, 'HAS_VALUE', this.property, target);
  }
  notHasValue(target: Target): DnsAssertion {
    return assertion(this.source, 'NOT_HAS_VALUE', this.property, target);
  }
  isEmpty(): DnsAssertion {
    return assertion(this.source, 'IS_EMPTY', this.property);
  }
  notEmpty(): DnsAssertion {
    return assertion(this.source, 'NOT_EMPTY', this.property);
  }
  lessThan(target: Target): DnsAssertion {
    return assertion(this.source, 'LESS_THAN', this.property, target);
  }
  greaterThan(target: Target): DnsAssertion {
    return assertion(this.source, 'GREATER_THAN', this.property, target);
  }
  contains(target: string): DnsAssertion {
    return assertion(this.source, 'CONTAINS', this.property, target);
  }
  notContains(target: string): DnsAssertion {
    return assertion(this.source, 'NOT_CONTAINS', this.property, target);
  }
  isNull(): DnsAssertion {
    return assertion(this.source, 'IS_NULL', this.property);
  }
  isNotNull(): DnsAssertion {
    return assertion(this.source, 'NOT_NULL', this.property);
  }
}

/**
 * Builds DNS monitor assertions: `DnsAssertionBuilder.responseCode().equals('NOERROR')`,
 * `DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('192.0.2.10')`,
 * `DnsAssertionBuilder.textAnswer().contains('v=spf1')`, `DnsAssertionBuilder.responseTime().lessThan(200)`.
 * Without a response-code assertion a run passes only on `NOERROR`.
 */
export class DnsAssertionBuilder {
  /** The response code: `NOERROR`, `NXDOMAIN`, `SERVFAIL`, `REFUSED`, `FORMERR`, … */
  static responseCode(): DnsGeneralAssertionBuilder {
    return new DnsGeneralAssertionBuilder('RESPONSE_CODE');
  }
  /** The time from sending the query to the full answer, in milliseconds. */
  static responseTime(): DnsNumericAssertionBuilder {
    return new DnsNumericAssertionBuilder('RESPONSE_TIME');
  }
  /**
   * The response as text, as `dig` prints it (header, question and answer sections; each record
   * one line: `example.com.  300  IN  A  192.0.2.10`). With `regex` (at least one capture group), the first group's value is compared instead.
   */
  static textAnswer(regex?: string): DnsGeneralAssertionBuilder {
    return new DnsGeneralAssertionBuilder('TEXT_ANSWER', regex);
  }
  /** The answer as JSON (`{ Status, Question, Answer: [{ name, type, TTL, data }], TC, RD, RA, AD, CD }`), or the value at a JSONPath. */
  static jsonAnswer(property?: string): DnsGeneralAssertionBuilder {
    return new DnsGeneralAssertionBuilder('JSON_ANSWER', property);
  }
}
