import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../__fixtures__/targets.js';
import { createRunner } from '../runner.js';
import type { RunContext, RunResult, WireCheck } from '../types.js';
import { signatureAlgorithm } from './ssl-facts.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '__fixtures__');
const SHORT_LIVED = path.join(FIXTURES, '..', '..', '..', '..', 'test', 'fixtures', 'short-lived-cert');
const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner();
const servers: tls.Server[] = [];
const port = { loopback: 0, shortLived: 0, tls12: 0 };

async function serve(options: tls.TlsOptions): Promise<number> {
  const server = tls.createServer(options, (socket) => socket.end());
  server.on('tlsClientError', () => undefined);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const loopback = { cert: readFileSync(path.join(FIXTURES, 'loopback-cert.pem')), key: readFileSync(path.join(FIXTURES, 'loopback-key.pem')) };

beforeAll(async () => {
  port.loopback = await serve(loopback);
  port.shortLived = await serve({ cert: readFileSync(path.join(SHORT_LIVED, 'cert.pem')), key: readFileSync(path.join(SHORT_LIVED, 'key.pem')) });
  port.tls12 = await serve({ ...loopback, maxVersion: 'TLSv1.2' });
});

afterAll(async () => {
  await runner.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

function sslMonitor(sslConfig: Record<string, unknown>, extra: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'SSL', name: 'certificate', request: { sslConfig: { hostname: '127.0.0.1', port: port.loopback, skipChainValidation: true, ...sslConfig }, ...extra } };
}

async function run(check: WireCheck): Promise<RunResult> {
  return (await runner.run(check, context)).final;
}

describe('SSL executor against loopback TLS servers', () => {
  it('reads the certificate and the connection, and passes assertions on them', async () => {
    const result = await run(sslMonitor({}, {
      assertions: [
        { source: 'CERTIFICATE', property: 'daysUntilExpiry', comparison: 'GREATER_THAN', target: '365' },
        { source: 'CERTIFICATE', property: 'subjectCN', comparison: 'EQUALS', target: 'localhost' },
        { source: 'CERTIFICATE', property: 'sans', comparison: 'CONTAINS', target: '127.0.0.1' },
        { source: 'CERTIFICATE', property: 'selfSigned', comparison: 'EQUALS', target: 'true' },
        { source: 'CERTIFICATE', property: 'signatureAlgorithm', comparison: 'EQUALS', target: 'SHA256-RSA' },
        { source: 'CERTIFICATE', property: 'keySizeBits', comparison: 'EQUALS', target: '2048' },
        { source: 'CONNECTION', property: 'tlsVersion', comparison: 'GREATER_THAN', target: 'TLS1.2' },
        { source: 'CONNECTION', property: 'hostnameVerified', comparison: 'EQUALS', target: 'true' },
        { source: 'CONNECTION', property: 'chainTrusted', comparison: 'EQUALS', target: 'false' },
        { source: 'JSON_RESPONSE', property: '$.certificate.keyAlgorithm', comparison: 'EQUALS', target: 'RSA' },
        { source: 'TEXT_RESPONSE', property: '', comparison: 'CONTAINS', target: 'localhost' },
      ],
    }));
    expect(result.error).toBeNull();
    expect(result.hasFailures).toBe(false);
    const ssl = result.sslCheckResult as Record<string, unknown> & { assertions: Array<{ passed: boolean }>; response: { certificate: Record<string, unknown>; resolvedIp: string } };
    expect(ssl).toMatchObject({ tlsVersion: 'TLS1.3', chainTrusted: false, hostnameVerified: true, baselineVerdict: 'pass', failureCategory: null });
    expect(ssl.response.certificate).toMatchObject({ subjectCN: 'localhost', issuerCN: 'localhost', keyAlgorithm: 'RSA', selfSigned: true, isCA: true, sans: ['localhost', '127.0.0.1', '0:0:0:0:0:0:0:1'] });
    expect(ssl.response.resolvedIp).toBe('127.0.0.1');
    expect(ssl.assertions.every((assertion) => assertion.passed)).toBe(true);
  });

  it('fails a self-signed chain unless skipChainValidation, naming the setting', async () => {
    const result = await run(sslMonitor({ skipChainValidation: false }));
    expect(result.error).toBe('the certificate chain is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT); set sslConfig.skipChainValidation to check a self-signed or private-CA certificate');
  });

  it('fails a certificate that does not name the server name sent', async () => {
    const result = await run(sslMonitor({ serverName: 'shop.example.com' }));
    expect(result.error).toBe('the certificate does not match shop.example.com (it names localhost, 127.0.0.1, 0:0:0:0:0:0:0:1)');
  });

  it('fails a certificate expired or expiring within alertDaysBeforeExpiry', async () => {
    const result = await run(sslMonitor({ port: port.shortLived }));
    // The fixture expired on 2026-12-01: before that it is within any threshold, after it expired.
    expect(result.error).toMatch(/^the certificate (expired on 2026-12-01T08:52:56\.000Z|expires in -?\d+ days \(2026-12-01T08:52:56\.000Z\), within alertDaysBeforeExpiry \(20\))$/);
    expect(result.hasFailures).toBe(true);
  });

  it('judges the security baseline: a TLS 1.2 connection against a TLS 1.3 minimum fails, or degrades when told', async () => {
    expect((await run(sslMonitor({ port: port.tls12, securityBaseline: { minTLSVersion: { value: 'TLS1.3' } } }))).error)
      .toBe('security baseline minTLSVersion: the connection used TLS1.2, below minTLSVersion TLS1.3');
    const degraded = await run(sslMonitor({ port: port.tls12, securityBaseline: { minTLSVersion: { value: 'TLS1.3', severity: 'degrade' } } }));
    expect(degraded).toMatchObject({ hasFailures: false, isDegraded: true });
    expect(await run(sslMonitor({ port: port.tls12, securityBaseline: { enabled: false, minTLSVersion: { value: 'TLS1.3' } } }))).toMatchObject({ hasFailures: false, isDegraded: false });
  });

  it('reports a failed assertion and an unknown property with their reasons', async () => {
    const failed = await run(sslMonitor({}, { assertions: [{ source: 'CERTIFICATE', property: 'issuerCN', comparison: 'CONTAINS', target: "Let's Encrypt" }] }));
    expect(failed.error).toBe(`assertion failed: CERTIFICATE issuerCN CONTAINS "Let's Encrypt": actual "localhost"`);
    const unknown = await run(sslMonitor({}, { assertions: [{ source: 'CONNECTION', property: 'protocol', comparison: 'EQUALS', target: 'x' }] }));
    expect(unknown.error).toBe('assertion failed: CONNECTION has no property "protocol" (known: tlsVersion, cipherSuite, hostnameVerified, chainTrusted, ocspStapled, ocspStatus, resolvedIp)');
  });

  it('fails a refused connection as a network error, and shouldFail turns a broken certificate into a pass', async () => {
    const refused = await run(sslMonitor({ port: await closedPort() }));
    expect(refused.error).toMatch(/^TLS handshake with 127\.0\.0\.1:\d+ failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    expect(refused.sslCheckResult).toMatchObject({ failureCategory: 'NETWORK_ERROR', response: null });
    const expected = (await runner.run({ ...sslMonitor({ skipChainValidation: false }), shouldFail: true }, context)).final;
    expect(expected.hasFailures).toBe(false);
  });

  it('reads the signature algorithm from the certificate', () => {
    const der = new X509Certificate(loopback.cert).raw;
    expect(signatureAlgorithm(der)).toBe('SHA256-RSA');
    expect(signatureAlgorithm(Buffer.from([0x30, 0x85]))).toBeNull();
  });
});
