/**
 * Assertions of an SSL monitor (`SslAssertionBuilder`), with Checkly's signatures: a certificate
 * or connection fact named by property, the handshake time, and the facts as a JSON or text
 * document. Which property takes which comparison is `@vigil/schema`'s table, checked when the
 * monitor is validated.
 */
import type { SslAssertionSource, SslCertificateProperty, SslConnectionProperty } from '@vigil/schema';

/** One assertion of an SSL monitor's request, as the payload holds it. */
export interface SslAssertion {
  /** `CERTIFICATE`, `CONNECTION`, `RESPONSE_TIME`, `JSON_RESPONSE` or `TEXT_RESPONSE`. */
  source: SslAssertionSource;
  /** The fact (`daysUntilExpiry`, `tlsVersion`), a JSONPath for `JSON_RESPONSE`, a regex for `TEXT_RESPONSE`. */
  property: string;
  /** How the value is compared with `target`. */
  comparison: string;
  /** The value compared against, always as a string. */
  target: string;
  regex: string | null;
}

/** TLS versions as `tlsVersion` reports them. */
export const TlsVersion = { TLS1_0: 'TLS1.0', TLS1_1: 'TLS1.1', TLS1_2: 'TLS1.2', TLS1_3: 'TLS1.3' } as const;

function assertion(source: SslAssertionSource, comparison: string, property: string, target?: string | number | boolean): SslAssertion {
  return { source, property, comparison, target: target === undefined ? '' : String(target), regex: null };
}

/** Comparisons of one fact; which of them a fact takes is checked when the monitor is validated. */
export class SslPropertyAssertionBuilder {
  constructor(
    private readonly source: SslAssertionSource,
    private readonly property: string,
  ) {}

  equals(target: string | number | boolean): SslAssertion {
    return assertion(this.source, 'EQUALS', this.property, target);
  }
  notEquals(target: string | number | boolean): SslAssertion {
    return assertion(this.source, 'NOT_EQUALS', this.property, target);
  }
  greaterThan(target: string | number): SslAssertion {
    return assertion(this.source, 'GREATER_THAN', this.property, target);
  }
  lessThan(target: string | number): SslAssertion {
    return assertion(this.source, 'LESS_THAN', this.property, target);
  }
  contains(target: string): SslAssertion {
    return assertion(this.source, 'CONTAINS', this.property, target);
  }
  notContains(target: string): SslAssertion {
    return assertion(this.source, 'NOT_CONTAINS', this.property, target);
  }
  isEmpty(): SslAssertion {
    return assertion(this.source, 'IS_EMPTY', this.property);
  }
  notEmpty(): SslAssertion {
    return assertion(this.source, 'NOT_EMPTY', this.property);
  }
}

/**
 * Builds SSL monitor assertions:
 * `SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(30)`,
 * `SslAssertionBuilder.connection('tlsVersion').equals(TlsVersion.TLS1_3)`,
 * `SslAssertionBuilder.responseTime().lessThan(1000)`.
 */
export class SslAssertionBuilder {
  /** A certificate fact: `daysUntilExpiry`, `issuerCN`, `subjectCN`, `sans`, `selfSigned`, `signatureAlgorithm`, … */
  static certificate(property: SslCertificateProperty): SslPropertyAssertionBuilder {
    return new SslPropertyAssertionBuilder('CERTIFICATE', property);
  }
  /** A connection fact: `tlsVersion`, `cipherSuite`, `hostnameVerified`, `chainTrusted`, `resolvedIp`, … */
  static connection(property: SslConnectionProperty): SslPropertyAssertionBuilder {
    return new SslPropertyAssertionBuilder('CONNECTION', property);
  }
  /** The handshake time in milliseconds. */
  static responseTime(): SslPropertyAssertionBuilder {
    return new SslPropertyAssertionBuilder('RESPONSE_TIME', '');
  }
  /** The facts as JSON (`{ certificate, connection }`), optionally at a JSONPath (`$.certificate.issuerCN`). */
  static jsonResponse(property?: string): SslPropertyAssertionBuilder {
    return new SslPropertyAssertionBuilder('JSON_RESPONSE', property ?? '');
  }
  /** The facts as JSON text; `regex` (its first group) picks the compared part. */
  static textResponse(regex?: string): SslPropertyAssertionBuilder {
    return new SslPropertyAssertionBuilder('TEXT_RESPONSE', regex ?? '');
  }
}
