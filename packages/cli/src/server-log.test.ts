import { describe, expect, it } from 'vitest';
import { serverLog } from './server-log.js';

const failed = {
  accountId: 'acme',
  checkId: 'c-1',
  checkName: 'Shop API',
  location: 'eu-west-1',
  result: { hasFailures: true, hasErrors: false, error: null, apiCheckResult: { requestError: 'could not connect to 127.0.0.1:9: connection refused (ECONNREFUSED)' } },
} as never;
const delivery = { accountId: 'acme', notificationId: 'n-1', checkId: 'c-1', checkName: 'Shop API', alertType: 'ALERT_FAILURE', channelId: 3, channelType: 'WEBHOOK' };

function lines(format: 'text' | 'json') {
  const written: string[] = [];
  const log = serverLog(format, (line) => written.push(line), () => new Date(0));
  log.checkFailed(failed);
  log.delivery({ ...delivery, outcome: 'sent', attempts: 1 });
  log.delivery({ ...delivery, outcome: 'retrying', attempts: 2, error: 'fetch failed: ECONNREFUSED' });
  log.delivery({ ...delivery, outcome: 'failed', attempts: 6, error: 'fetch failed: ECONNREFUSED' });
  log.delivery({ ...delivery, channelType: 'SMS', outcome: 'undeliverable', attempts: 1, error: 'this service has no SMS provider' });
  return written;
}

describe('the vigil server log', () => {
  it('says one line per event in text', () => {
    expect(lines('text')).toEqual([
      'vigil server: check "Shop API" (c-1, account acme) failed in eu-west-1: could not connect to 127.0.0.1:9: connection refused (ECONNREFUSED)',
      'vigil server: alert ALERT_FAILURE of check "Shop API" (c-1, account acme) to WEBHOOK channel 3 sent (attempt 1)',
      'vigil server: alert ALERT_FAILURE of check "Shop API" (c-1, account acme) to WEBHOOK channel 3 failed, will retry (attempt 2): fetch failed: ECONNREFUSED',
      'vigil server: alert ALERT_FAILURE of check "Shop API" (c-1, account acme) to WEBHOOK channel 3 failed for good after 6 attempt(s): fetch failed: ECONNREFUSED',
      'vigil server: alert ALERT_FAILURE of check "Shop API" (c-1, account acme) to SMS channel 3 cannot be delivered: this service has no SMS provider',
    ]);
  });

  it('writes one JSON object per line in json', () => {
    const parsed = lines('json').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((line) => [line.level, line.event, line.retrying])).toEqual([
      ['warn', 'check-failed', undefined],
      ['info', 'alert-sent', undefined],
      ['warn', 'alert-delivery-failed', true],
      ['error', 'alert-delivery-failed', false],
      ['error', 'alert-delivery-failed', false],
    ]);
    expect(parsed[0]).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'warn',
      event: 'check-failed',
      accountId: 'acme',
      checkId: 'c-1',
      checkName: 'Shop API',
      location: 'eu-west-1',
      reason: 'could not connect to 127.0.0.1:9: connection refused (ECONNREFUSED)',
    });
    expect(parsed[4]).toMatchObject({ undeliverable: true, error: 'this service has no SMS provider' });
  });

  it('keeps a name from driving the terminal in text', () => {
    const written: string[] = [];
    serverLog('text', (line) => written.push(line)).checkFailed({ ...(failed as object), checkName: 'evil\u001b[2J\nname' } as never);
    expect(written[0]).toContain('check "evil\\u001b[2J\\nname"');
  });
});
