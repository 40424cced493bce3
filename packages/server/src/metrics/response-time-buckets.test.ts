import { describe, expect, it } from 'vitest';
import { DEFAULT_RESPONSE_TIME_BUCKETS, MAX_RESPONSE_TIME_BUCKETS, parseResponseTimeBuckets } from './response-time-buckets.js';

describe('parseResponseTimeBuckets', () => {
  it('reads comma-separated seconds, spaces around them allowed, and none as no bounds', () => {
    expect(parseResponseTimeBuckets('0.05, 0.2,1,30')).toEqual([0.05, 0.2, 1, 30]);
    expect(parseResponseTimeBuckets('.5,2')).toEqual([0.5, 2]);
    expect(parseResponseTimeBuckets(' none ')).toEqual([]);
    expect(parseResponseTimeBuckets(DEFAULT_RESPONSE_TIME_BUCKETS.join(','))).toEqual(DEFAULT_RESPONSE_TIME_BUCKETS);
  });

  it.each([
    ['', '"" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['0.1,,1', '"" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['0,1', '"0" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['-1', '"-1" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['1e3', '"1e3" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['0x10', '"0x10" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['250ms', '"250ms" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['Infinity', '"Infinity" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)'],
    ['1,0.5', 'bounds must increase: 0.5 after 1'],
    ['1,1', 'bounds must increase: 1 after 1'],
    [Array.from({ length: MAX_RESPONSE_TIME_BUCKETS + 1 }, (_, index) => index + 1).join(','), `at most ${MAX_RESPONSE_TIME_BUCKETS} bounds, got ${MAX_RESPONSE_TIME_BUCKETS + 1}`],
  ])('refuses %j: %s', (text, message) => {
    expect(() => parseResponseTimeBuckets(text)).toThrow(new Error(message));
  });
});
