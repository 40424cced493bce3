import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loggedPath, requestLogWriter } from './request-log.js';

describe('the request log', () => {
  it.each([
    ['/ping/0b6f3c1e-token', '/ping/*****'],
    ['/ping/0b6f3c1e-token/fail', '/ping/*****/fail'],
    ['//ping//0b6f3c1e-token', '//ping//*****'],
    ['/PING/0b6f3c1e-token', '/PING/*****'],
    ['/v1/checks/ping/abc', '/v1/checks/ping/abc'],
    ['/ping/', '/ping/'],
  ])('logs %s as %s', (requested, logged) => {
    expect(loggedPath(requested)).toBe(logged);
  });

  it('writes a ping\'s path without its token', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vigil-request-log-'));
    try {
      const file = path.join(dir, 'requests.log');
      requestLogWriter(file)({ t: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/ping/secret-ping-token/fail', status: 200, account: null, ms: 1.25 });
      const text = await readFile(file, 'utf8');
      expect(JSON.parse(text)).toMatchObject({ path: '/ping/*****/fail', status: 200, ms: 1.25 });
      expect(text).not.toContain('secret-ping-token');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
