/**
 * PostgreSQL's packed result fields read back exactly what was packed: numbers of hundredths in a few
 * bytes, any other number (more digits, -0, not finite) as its float64, phases in either form.
 */
import { describe, expect, it } from 'vitest';
import { packResultFields, unpackResultFields, type PackedFields } from './packed-result-fields.js';
import { packPhases } from './result-codec.js';

const body = Buffer.from([9, 8, 7]);

describe('packed result fields', () => {
  it('packs a passing result\'s numbers and packed phases in a few bytes, its body last', () => {
    const phases = packPhases({ wait: 1.5, dns: 0, tcp: 2.25, firstByte: 30, download: 1, total: 41.25 }) as Buffer;
    const fields: PackedFields = { attempts: 0, responseTime: 41, statusCode: 200, phases, body };
    const packed = packResultFields(fields);
    // attempts 1 byte, a whole response time 2, status code 2, phases tag and length 2: 7 bytes besides phases and body.
    expect(packed.length).toBe(7 + phases.length + body.length);
    expect(unpackResultFields(packed)).toEqual(fields);
  });

  it('keeps numbers that are not whole hundredths, -0 and non-finite ones exactly, and nulls as null', () => {
    for (const value of [0.1 + 0.2, 1.005, -0, -12.34, 2 ** 60, Number.MAX_VALUE, Number.POSITIVE_INFINITY, Number.NaN]) {
      const fields: PackedFields = { attempts: value, responseTime: value, statusCode: null, phases: null, body };
      const unpacked = unpackResultFields(packResultFields(fields));
      expect(Object.is(unpacked.attempts, value)).toBe(true);
      expect(Object.is(unpacked.responseTime, value)).toBe(true);
      expect(unpacked.statusCode).toBeNull();
    }
  });

  it('keeps phases the codec could not pack as their JSON text, and an empty body', () => {
    const fields: PackedFields = { attempts: 2, responseTime: null, statusCode: 503, phases: '{"odd":"yes"}', body: Buffer.alloc(0) };
    expect(unpackResultFields(packResultFields(fields))).toEqual(fields);
  });
});
