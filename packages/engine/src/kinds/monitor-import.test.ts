import { TcpCheckCreate, UrlCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { Code } from '../import/code.js';
import { planImport } from '../import/plan-import.js';
import type { Candidate } from '../import/select.js';
import { emptyState } from '../state/index.js';

const STATE = emptyState({ project: 'shop', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });

function tcp(id: string, fields: Record<string, unknown>): Candidate {
  const remote = { ...TcpCheckCreate.parse({ name: 'Port', request: { hostname: 'db.example.com', port: 5432 }, ...fields }), id, frequencyOffset: 1 };
  return { kind: 'tcp-monitor', remoteId: id, remote, name: String(remote.name) };
}

function url(id: string, fields: Record<string, unknown>): Candidate {
  const remote = { ...UrlCheckCreate.parse({ name: 'Page', request: { url: 'https://example.com/' }, ...fields }), id, frequencyOffset: 1 };
  return { kind: 'url-monitor', remoteId: id, remote, name: String(remote.name) };
}

const plan = (candidates: Candidate[]) => planImport({ candidates, state: STATE, projectAddresses: [], env: {}, existingFiles: [] });

/** Code as compact text, enough to compare what was written. */
function text(code: Code): string {
  switch (code.type) {
    case 'object':
      return `{${code.entries.map(([key, value]) => `${key}: ${text(value)}`).join(', ')}}`;
    case 'array':
      return `[${code.items.map(text).join(', ')}]`;
    case 'literal':
      return JSON.stringify(code.value);
    case 'call':
      return code.text;
    default:
      return code.type;
  }
}

describe('importing TCP and URL monitors', () => {
  it('writes a TcpMonitor with its builders and only the props that differ from the defaults', () => {
    const [monitor] = plan([
      tcp('t', {
        retryStrategy: null,
        doubleCheck: false,
        request: {
          hostname: 'db.example.com',
          port: 5432,
          data: 'PING',
          assertions: [
            { source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' },
            { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '200' },
            { source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'x', regex: '(.*)' },
          ],
        },
      }),
    ]).resources;
    expect(monitor!.construct).toBe('TcpMonitor');
    expect(text(monitor!.props)).toBe(
      '{name: "Port", retryStrategy: RetryStrategyBuilder.noRetries(), request: {hostname: "db.example.com", port: 5432, data: "PING", assertions: ['
        + 'TcpAssertionBuilder.responseData().contains(\'PONG\'), TcpAssertionBuilder.responseTime().lessThan(200), '
        + '{source: "RESPONSE_DATA", comparison: "EQUALS", property: "", target: "x", regex: "(.*)"}]}}',
    );
  });

  it('writes a UrlMonitor without the method the construct sends itself', () => {
    const [monitor] = plan([url('u', { doubleCheck: false, retryStrategy: { type: 'FIXED', baseBackoffSeconds: 60, maxRetries: 1, maxDurationSeconds: 600, sameRegion: true }, request: { url: 'https://example.com/', followRedirects: false, skipSSL: true, assertions: [{ source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '400' }] } })]).resources;
    expect(monitor!.construct).toBe('UrlMonitor');
    expect(text(monitor!.props)).toBe(
      '{name: "Page", retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), request: {url: "https://example.com/", followRedirects: false, skipSSL: true, assertions: [UrlAssertionBuilder.statusCode().lessThan(400)]}}',
    );
  });

  it('leaves out doubleCheck, which monitors refuse, and warns that a lone doubleCheck retry is lost', () => {
    const [monitor] = plan([url('u', { doubleCheck: true, retryStrategy: null })]).resources;
    expect(text(monitor!.props)).toBe('{name: "Page", retryStrategy: RetryStrategyBuilder.noRetries(), request: {url: "https://example.com/"}}');
    expect(monitor!.warnings).toEqual([
      'retries once on failure (doubleCheck), which a UrlMonitor cannot express; the code has no retries, so the next plan sets doubleCheck to false (add a retryStrategy to keep retrying)',
    ]);
  });
});
