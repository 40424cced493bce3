import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { SslAssertionBuilder, TlsVersion } from './ssl-assertion.js';
import { SslMonitor, type SslMonitorProps } from './ssl-monitor.js';
import type { Diagnostic } from './types.js';

const base: SslMonitorProps = { name: 'Shop certificate', request: { hostname: 'shop.example.com', sslConfig: {} } };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const warning = (path: string, message: string, hint?: string): Expected => ({ severity: 'warning', path, message, ...(hint ? { hint } : {}) });
const request = (extra: Record<string, unknown>) => ({ request: { ...base.request, ...extra } as SslMonitorProps['request'] });
const config = (extra: Record<string, unknown>) => request({ sslConfig: extra });
const ASSERTION_HINT = "Build assertions with SslAssertionBuilder, e.g. SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(14).";

const rules: Array<[string, Partial<SslMonitorProps>, Expected[]]> = [
  [
    'accepts every builder and TLS setting',
    {
      request: {
        hostname: 'shop.example.com', port: 8443, ipFamily: 'IPv6',
        sslConfig: { serverName: 'www.shop.example.com', skipChainValidation: true, handshakeTimeout: 5000, alertDaysBeforeExpiry: 30, securityBaseline: { minTLSVersion: { value: 'TLS1.3', severity: 'degrade' } } },
        assertions: [
          SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(30),
          SslAssertionBuilder.certificate('sans').contains('shop.example.com'),
          SslAssertionBuilder.connection('tlsVersion').equals(TlsVersion.TLS1_3),
          SslAssertionBuilder.responseTime().lessThan(1000),
          SslAssertionBuilder.jsonResponse('$.certificate.issuerCN').equals('R3'),
          SslAssertionBuilder.textResponse().contains('shop'),
        ],
      },
    },
    [],
  ],
  ['rejects a missing hostname', request({ hostname: undefined }), [error('request.hostname', '"request.hostname" is required')]],
  ['rejects a missing sslConfig', request({ sslConfig: undefined }), [error('request.sslConfig', '"request.sslConfig" is required')]],
  ['rejects a port out of range', request({ port: 70000 }), [error('request.port', '"request.port" must be less than or equal to 65535')]],
  [
    'rejects a hostname with a scheme',
    request({ hostname: 'https://shop.example.com' }),
    [error('request.hostname', '"request.hostname" must be a host name or IP address without scheme or path, got "https://shop.example.com"', 'Put the host alone in hostname, e.g. "db.example.com", and the port in "request.port".')],
  ],
  ['rejects a handshake timeout below 1000', config({ handshakeTimeout: 500 }), [error('request.sslConfig.handshakeTimeout', '"request.sslConfig.handshakeTimeout" must be greater than or equal to 1000')]],
  ['rejects alertDaysBeforeExpiry above 365', config({ alertDaysBeforeExpiry: 400 }), [error('request.sslConfig.alertDaysBeforeExpiry', '"request.sslConfig.alertDaysBeforeExpiry" must be less than or equal to 365')]],
  [
    'rejects an explicit client certificate mode without a certificate, as Checkly does',
    config({ clientCertificateMode: 'explicit' }),
    [error('request.sslConfig.sslClientCertificateId', 'A value for "sslClientCertificateId" is required when "clientCertificateMode" is "explicit".', "Set request.sslConfig.sslClientCertificateId to the stored certificate's id, or leave out clientCertificateMode.")],
  ],
  [
    'rejects a certificate property the runner does not report',
    request({ assertions: [{ source: 'CERTIFICATE', property: 'issuer', comparison: 'EQUALS', target: 'R3', regex: null }] }),
    [error('request.assertions[0].property', '"request.assertions[0].property" "issuer" is not a CERTIFICATE property', 'Known: daysUntilExpiry, keySizeBits, subjectCN, issuerCN, serialNumber, fingerprintSha256, issuerFingerprintSha256, keyAlgorithm, signatureAlgorithm, sans, selfSigned, isCA.')],
  ],
  [
    'rejects a comparison a fact does not take',
    request({ assertions: [SslAssertionBuilder.certificate('selfSigned').greaterThan(1)] }),
    [error('request.assertions[0].comparison', '"request.assertions[0].comparison" GREATER_THAN does not apply to CERTIFICATE selfSigned', 'selfSigned takes EQUALS.')],
  ],
  [
    'rejects an assertion source of another check type',
    request({ assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null } as never] }),
    [error('request.assertions[0].source', '"request.assertions[0].source" must be one of [CERTIFICATE, CONNECTION, RESPONSE_TIME, JSON_RESPONSE, TEXT_RESPONSE]', ASSERTION_HINT)],
  ],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<SslMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by SslMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
  ['rejects maxResponseTime above 30000', { maxResponseTime: 40000 }, [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 30000', "An SSL monitor's response-time limits are milliseconds between 0 and 30000.")]],
  [
    'rejects degradedResponseTime above the default maxResponseTime',
    { degradedResponseTime: 12000 },
    [error('degradedResponseTime', '"degradedResponseTime" (12000) must be less than or equal to the default "maxResponseTime" (10000)', 'Set "maxResponseTime" too if the check may take longer.')],
  ],
  ['warns about an unknown sslConfig prop', config({ sni: 'x' }), [warning('request.sslConfig.sni', '"request.sslConfig.sni" is not a prop of sslConfig', 'Known props: serverName, sslClientCertificateId, skipChainValidation, handshakeTimeout, alertDaysBeforeExpiry, clientCertificateMode, securityBaseline.')]],
];

describe('SslMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new SslMonitor('shop', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'ssl-monitor.shop', source })));
  });
});

describe('SslMonitor payload', () => {
  it("synthesises the create body of POST /v1/checks/ssl with the real service's defaults", async () => {
    const project = await load(() => {
      new SslMonitor('shop', { ...base, request: { hostname: 'shop.example.com', sslConfig: { handshakeTimeout: 5000, sslClientCertificateId: undefined }, assertions: [SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(14)] } });
    });
    expect(specOf(project, 'ssl-monitor.shop').payload).toMatchObject({
      checkType: 'SSL',
      doubleCheck: false,
      frequency: 10,
      degradedResponseTime: 3000,
      maxResponseTime: 10000,
      request: {
        sslConfig: { hostname: 'shop.example.com', port: 443, ipFamily: 'IPv4', skipChainValidation: false, handshakeTimeoutMs: 5000, alertDaysBeforeExpiry: 20 },
        assertions: [{ source: 'CERTIFICATE', property: 'daysUntilExpiry', comparison: 'GREATER_THAN', target: '14', regex: null }],
      },
    });
  });
});
