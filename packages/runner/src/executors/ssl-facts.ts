/**
 * What an SSL monitor knows after a handshake: the leaf certificate's facts and the connection's,
 * under the property names its assertions use (`SSL_CERTIFICATE_PROPERTIES` and
 * `SSL_CONNECTION_PROPERTIES` in `@vigil/schema`), and the security-baseline rules judged on them.
 * Node's X509Certificate has no signature algorithm, so it is read from the certificate's DER.
 */
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { SSL_BASELINE_DEFAULTS, type SslSecurityBaseline } from '@vigil/schema';

export interface CertificateFacts {
  daysUntilExpiry: number;
  keySizeBits: number | null;
  subjectCN: string;
  issuerCN: string;
  serialNumber: string;
  fingerprintSha256: string;
  issuerFingerprintSha256: string | null;
  keyAlgorithm: string | null;
  signatureAlgorithm: string | null;
  sans: string[];
  selfSigned: boolean;
  isCA: boolean;
  validFrom: string;
  validTo: string;
}

export interface ConnectionFacts {
  tlsVersion: string | null;
  cipherSuite: string | null;
  hostnameVerified: boolean;
  chainTrusted: boolean;
  /** Why the chain is not trusted (Node's verification code), or null. */
  chainTrustReason: string | null;
  ocspStapled: boolean;
  /** Stapled responses are not decoded here: null. */
  ocspStatus: string | null;
  resolvedIp: string | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function certificateFacts(certificate: X509Certificate, issuerFingerprint: string | null, now: Date): CertificateFacts {
  const validTo = new Date(certificate.validTo);
  const key = certificate.publicKey;
  const details = key.asymmetricKeyDetails;
  const selfSigned = certificate.checkIssued(certificate) && safeVerify(certificate);
  return {
    daysUntilExpiry: Math.floor((validTo.getTime() - now.getTime()) / DAY_MS),
    keySizeBits: details?.modulusLength ?? curveBits(details?.namedCurve) ?? (key.asymmetricKeyType === 'ed25519' ? 256 : null),
    subjectCN: commonName(certificate.subject),
    issuerCN: commonName(certificate.issuer),
    serialNumber: certificate.serialNumber,
    fingerprintSha256: certificate.fingerprint256,
    issuerFingerprintSha256: selfSigned ? certificate.fingerprint256 : issuerFingerprint,
    keyAlgorithm: KEY_ALGORITHMS[key.asymmetricKeyType ?? ''] ?? key.asymmetricKeyType ?? null,
    signatureAlgorithm: signatureAlgorithm(certificate.raw),
    sans: (certificate.subjectAltName ?? '').split(', ').filter(Boolean).map((entry) => entry.replace(/^(DNS|IP Address):/, '')),
    selfSigned,
    isCA: certificate.ca,
    validFrom: new Date(certificate.validFrom).toISOString(),
    validTo: validTo.toISOString(),
  };
}

/** `checkServerIdentity` is switched off for the handshake, so `authorized` speaks of the chain alone. */
export function connectionFacts(socket: TLSSocket, certificate: X509Certificate, name: string, ocspStapled: boolean): ConnectionFacts {
  const protocol = socket.getProtocol();
  return {
    tlsVersion: protocol === null ? null : protocol.replace(/^TLSv/, 'TLS'),
    cipherSuite: socket.getCipher()?.standardName ?? null,
    hostnameVerified: net.isIP(name) !== 0 ? certificate.checkIP(name) !== undefined : certificate.checkHost(name) !== undefined,
    chainTrusted: socket.authorized,
    chainTrustReason: socket.authorized ? null : String(socket.authorizationError ?? 'not trusted'),
    ocspStapled,
    ocspStatus: null,
    resolvedIp: socket.remoteAddress ?? null,
  };
}

const KEY_ALGORITHMS: Record<string, string> = { rsa: 'RSA', 'rsa-pss': 'RSA', ec: 'ECDSA', dsa: 'DSA', ed25519: 'Ed25519' };

function curveBits(curve: string | undefined): number | undefined {
  const bits = curve === undefined ? undefined : /(\d{3})/.exec(curve)?.[1];
  return bits === undefined ? undefined : Number(bits);
}

function safeVerify(certificate: X509Certificate): boolean {
  try {
    return certificate.verify(certificate.publicKey);
  } catch {
    return false;
  }
}

/** `CN=localhost\nO=Example` → `localhost`; the whole name when it has no CN. */
function commonName(name: string): string {
  return /(?:^|\n)CN=([^\n]*)/.exec(name)?.[1] ?? name;
}

/** Signature algorithm OIDs as Go names them (`x509.SignatureAlgorithm.String()`), which Checkly's targets use. */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  '1.2.840.113549.1.1.2': 'MD2-RSA',
  '1.2.840.113549.1.1.4': 'MD5-RSA',
  '1.2.840.113549.1.1.5': 'SHA1-RSA',
  '1.2.840.113549.1.1.11': 'SHA256-RSA',
  '1.2.840.113549.1.1.12': 'SHA384-RSA',
  '1.2.840.113549.1.1.13': 'SHA512-RSA',
  '1.2.840.113549.1.1.10': 'SHA256-RSAPSS',
  '1.2.840.10040.4.3': 'DSA-SHA1',
  '2.16.840.1.101.3.4.3.2': 'DSA-SHA256',
  '1.2.840.10045.4.1': 'ECDSA-SHA1',
  '1.2.840.10045.4.3.2': 'ECDSA-SHA256',
  '1.2.840.10045.4.3.3': 'ECDSA-SHA384',
  '1.2.840.10045.4.3.4': 'ECDSA-SHA512',
  '1.3.101.112': 'Ed25519',
};

/**
 * Certificate ::= SEQUENCE { tbsCertificate SEQUENCE, signatureAlgorithm SEQUENCE { OID, … }, … }:
 * skips the first inner SEQUENCE and reads the OID of the second. Null for anything unexpected.
 */
export function signatureAlgorithm(der: Buffer): string | null {
  const outer = header(der, 0);
  if (outer === null || der[0] !== 0x30) return null;
  const tbs = header(der, outer.contentStart);
  if (tbs === null) return null;
  const algorithm = header(der, tbs.contentStart + tbs.length);
  if (algorithm === null || der[algorithm.start] !== 0x30) return null;
  const oid = header(der, algorithm.contentStart);
  if (oid === null || der[oid.start] !== 0x06) return null;
  const dotted = decodeOid(der.subarray(oid.contentStart, oid.contentStart + oid.length));
  return SIGNATURE_ALGORITHMS[dotted] ?? dotted;
}

function header(der: Buffer, start: number): { start: number; contentStart: number; length: number } | null {
  if (start + 2 > der.length) return null;
  const first = der[start + 1]!;
  if (first < 0x80) return { start, contentStart: start + 2, length: first };
  const bytes = first & 0x7f;
  if (bytes === 0 || bytes > 4 || start + 2 + bytes > der.length) return null;
  let length = 0;
  for (let index = 0; index < bytes; index += 1) length = length * 256 + der[start + 2 + index]!;
  return { start, contentStart: start + 2 + bytes, length };
}

function decodeOid(bytes: Buffer): string {
  if (bytes.length === 0) return '';
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

export interface BaselineFinding {
  rule: string;
  severity: 'fail' | 'degrade';
  message: string;
}

const TLS_ORDER: Record<string, number> = { 'TLS1.0': 10, 'TLS1.1': 11, 'TLS1.2': 12, 'TLS1.3': 13 };

/** A TLS version as a number that orders (`TLS1.2` → 12), for baseline rules and `tlsVersion` assertions. */
export function tlsVersionRank(version: string | null): number | undefined {
  return version === null ? undefined : TLS_ORDER[version];
}

const WEAK_SIGNATURE = /^(MD2|MD5|SHA1)-|-SHA1$/;
const WEAK_CIPHER = /RC4|3DES|_DES_|NULL|EXPORT|_anon_|MD5/;

/**
 * The baseline rules broken (only those not ignored). `knownBadCA`, `ocspMustStapleRespected` and
 * `sctPresent` need data vigil does not have (a list of distrusted CAs, decoded OCSP and SCTs), so
 * they are never reported.
 */
export function baselineFindings(baseline: SslSecurityBaseline | undefined, certificate: CertificateFacts, connection: ConnectionFacts): BaselineFinding[] {
  if (baseline?.enabled === false) return [];
  const rule = <K extends keyof typeof SSL_BASELINE_DEFAULTS>(name: K) => ({ ...SSL_BASELINE_DEFAULTS[name], ...(baseline?.[name] ?? {}) }) as { value?: string | number; severity: 'fail' | 'degrade' | 'ignore' };
  const findings: BaselineFinding[] = [];
  const add = (name: string, severity: 'fail' | 'degrade' | 'ignore', message: string) => {
    if (severity !== 'ignore') findings.push({ rule: name, severity, message });
  };
  const version = tlsVersionRank(connection.tlsVersion);
  for (const name of ['minTLSVersion', 'recommendedTLSVersion'] as const) {
    const { value, severity } = rule(name);
    const wanted = tlsVersionRank(String(value));
    if (version !== undefined && wanted !== undefined && version < wanted) add(name, severity, `the connection used ${connection.tlsVersion}, below ${name} ${String(value)}`);
  }
  // Key sizes compare for RSA and DSA keys; an elliptic-curve key's bits are a different scale.
  if (certificate.keySizeBits !== null && (certificate.keyAlgorithm === 'RSA' || certificate.keyAlgorithm === 'DSA')) {
    for (const name of ['minKeySizeBits', 'recommendedKeySizeBits'] as const) {
      const { value, severity } = rule(name);
      if (typeof value === 'number' && certificate.keySizeBits < value) add(name, severity, `the certificate's ${certificate.keyAlgorithm} key has ${certificate.keySizeBits} bits, below ${name} ${value}`);
    }
  }
  if (certificate.signatureAlgorithm !== null && WEAK_SIGNATURE.test(certificate.signatureAlgorithm)) {
    add('weakSignatureAlgorithm', rule('weakSignatureAlgorithm').severity, `the certificate is signed with ${certificate.signatureAlgorithm}, a weak signature algorithm`);
  }
  if (connection.cipherSuite !== null && WEAK_CIPHER.test(connection.cipherSuite)) {
    add('weakCipherSuite', rule('weakCipherSuite').severity, `the connection used ${connection.cipherSuite}, a weak cipher suite`);
  }
  return findings;
}

/** The leaf certificate of a finished handshake and its issuer's fingerprint (when the server sent it). */
export function peerCertificate(socket: TLSSocket): { certificate: X509Certificate; issuerFingerprint: string | null } | null {
  const certificate = socket.getPeerX509Certificate();
  if (certificate === undefined) return null;
  const detailed = socket.getPeerCertificate(true);
  const issuer = detailed.issuerCertificate;
  const issuerFingerprint = issuer !== undefined && issuer !== detailed ? issuer.fingerprint256 : null;
  return { certificate, issuerFingerprint };
}
