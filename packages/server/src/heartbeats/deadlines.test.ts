import { describe, expect, it } from 'vitest';
import { isUnreported, latestMissedWindow, missedMessage, nextDeadlineMs, pingState, type HeartbeatTiming } from './deadlines.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

const hb = (period: number, periodUnit: HeartbeatTiming['periodUnit'], grace: number, graceUnit: HeartbeatTiming['graceUnit']): HeartbeatTiming => ({ period, periodUnit, grace, graceUnit });

describe('latestMissedWindow', () => {
  const anchor = 1_000_000;
  it.each<[string, HeartbeatTiming, number, { index: number; dueMs: number } | null]>([
    ['on time just before period + grace (seconds)', hb(30, 'seconds', 0, 'seconds'), anchor + 30 * S - 1, null],
    ['missed exactly at period + grace', hb(30, 'seconds', 0, 'seconds'), anchor + 30 * S, { index: 0, dueMs: anchor + 30 * S }],
    ['grace extends the deadline (minutes + seconds)', hb(1, 'minutes', 30, 'seconds'), anchor + 80 * S, null],
    ['missed after minutes + seconds of grace', hb(1, 'minutes', 30, 'seconds'), anchor + 90 * S, { index: 0, dueMs: anchor + 90 * S }],
    ['hours with a grace in minutes', hb(2, 'hours', 15, 'minutes'), anchor + 2 * H + 15 * M + 1, { index: 0, dueMs: anchor + 2 * H + 15 * M }],
    ['days with a grace in hours', hb(1, 'days', 1, 'hours'), anchor + D + 59 * M, null],
    ['the second window closes one period after the first', hb(30, 'seconds', 10, 'seconds'), anchor + 70 * S, { index: 1, dueMs: anchor + 70 * S }],
    ['between windows the latest missed one stands', hb(30, 'seconds', 10, 'seconds'), anchor + 69 * S, { index: 0, dueMs: anchor + 40 * S }],
    ['a long silence reports only the latest window', hb(1, 'minutes', 0, 'minutes'), anchor + 10 * M + 5 * S, { index: 9, dueMs: anchor + 10 * M }],
  ])('%s', (_name, heartbeat, now, want) => {
    expect(latestMissedWindow(heartbeat, anchor, now)).toEqual(want);
  });
});

describe('deadlines measured from the first ping, a late ping and a restart', () => {
  const created = 5 * M;
  const heartbeat = hb(30, 'seconds', 5, 'seconds');

  it.each<[string, { anchor: number; now: number; lastReported: number | null }, boolean]>([
    ['a check never pinged fails period + grace after its creation', { anchor: created, now: created + 35 * S, lastReported: null }, true],
    ['the first ping moves the deadline: on time again', { anchor: created + 20 * S, now: created + 35 * S, lastReported: null }, false],
    ['a window reported before a restart is not reported again', { anchor: created, now: created + 50 * S, lastReported: created + 35 * S }, false],
    ['the next window after a restart is reported', { anchor: created, now: created + 65 * S, lastReported: created + 35 * S }, true],
    ['a late ping starts a new window: the old report does not hide its miss', { anchor: created + 60 * S, now: created + 95 * S, lastReported: created + 35 * S }, true],
  ])('%s', (_name, { anchor, now, lastReported }, reported) => {
    const window = latestMissedWindow(heartbeat, anchor, now);
    expect(window !== null && isUnreported(window, lastReported)).toBe(reported);
  });

  it('gives the next deadline of a check on time and of a silent one', () => {
    expect(nextDeadlineMs(heartbeat, created, created)).toBe(created + 35 * S);
    expect(nextDeadlineMs(heartbeat, created, created + 36 * S)).toBe(created + 65 * S);
  });
});

describe('pingState', () => {
  const anchor = 0;
  const heartbeat = hb(1, 'minutes', 30, 'seconds');
  it.each<[string, number, boolean, string]>([
    ['within the period', 59 * S, false, 'RECEIVED'],
    ['at the end of the period', 60 * S, false, 'RECEIVED'],
    ['within the grace', 75 * S, false, 'GRACE'],
    ['after the deadline', 91 * S, false, 'LATE'],
    ['a /fail ping on time', 10 * S, true, 'FAILING'],
  ])('a ping %s is %s', (_name, at, failed, state) => {
    expect(pingState(heartbeat, anchor, at, failed)).toBe(state);
  });
});

describe('missedMessage', () => {
  it('names the period and grace as written', () => {
    expect(missedMessage(hb(1, 'days', 30, 'minutes'))).toBe('No ping received within 1 day (period) + 30 minutes (grace)');
  });
});
