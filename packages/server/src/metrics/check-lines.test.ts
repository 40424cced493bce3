import { describe, expect, it } from 'vitest';
import { CHECK_FAMILIES, CheckLineWriter, bucketHeads, checkLabels, infoLine, type RunSeries } from './check-lines.js';

/** The check's lines of every family as text, each written into a piece of the size it told, which it must fill. */
function written(writer: CheckLineWriter): string[] {
  return CHECK_FAMILIES.map((_, family) => {
    const piece = Buffer.alloc(writer.size(family) + 1, '#');
    const end = writer.write(family, piece, 0);
    expect({ family, end, last: piece.at(end) }).toEqual({ family, end: piece.length - 1, last: '#'.charCodeAt(0) });
    return piece.toString('utf8', 0, end);
  });
}

describe('CheckLineWriter', () => {
  const labels = checkLabels('acmé', 'c"1');
  const check = { labels, name: 'Shop ✓', type: 'API', tags: 'a,b' };
  const series: RunSeries = { labels: Buffer.from(`${labels},location="eu-west-1"`), outcomes: [12, 0, 1, 1234567], buckets: [3, 0, 9, 0], sum: 1.2000000000000002, count: 12 };

  it('writes every family as the text format has it: integers, decimals, negative days and escaped UTF-8 labels', () => {
    const writer = new CheckLineWriter(Buffer.from(labels), { up: 1, degraded: 0, endedSeconds: 1795787154.649, sslDays: -3 }, infoLine(check, 'Grüppe'), { lastResponseSeconds: 0.042, series: [series] }, bucketHeads([0.1, 0.5, 1, 10]));
    const id = 'account="acmé",check_id="c\\"1"';
    const at = `${id},location="eu-west-1"`;
    expect(written(writer)).toEqual([
      `vigil_check_up{${id}} 1\n`,
      `vigil_check_degraded{${id}} 0\n`,
      `vigil_check_last_run_timestamp_seconds{${id}} 1795787154.649\n`,
      `vigil_check_last_response_time_seconds{${id}} 0.042\n`,
      `vigil_check_ssl_days_remaining{${id}} -3\n`,
      `vigil_check_info{${id},check_name="Shop ✓",check_type="API",group="Grüppe",tags="a,b"} 1\n`,
      `vigil_check_runs_total{${at},outcome="passed"} 12\n` +
        `vigil_check_runs_total{${at},outcome="failed"} 0\n` +
        `vigil_check_runs_total{${at},outcome="degraded"} 1\n` +
        `vigil_check_runs_total{${at},outcome="error"} 1234567\n`,
      `vigil_check_response_time_seconds_bucket{le="0.1",${at}} 3\n` +
        `vigil_check_response_time_seconds_bucket{le="0.5",${at}} 3\n` +
        `vigil_check_response_time_seconds_bucket{le="1",${at}} 12\n` +
        `vigil_check_response_time_seconds_bucket{le="10",${at}} 12\n` +
        `vigil_check_response_time_seconds_bucket{le="+Inf",${at}} 12\n` +
        `vigil_check_response_time_seconds_sum{${at}} 1.2000000000000002\n` +
        `vigil_check_response_time_seconds_count{${at}} 12\n`,
    ]);
  });

  it('writes no line for a fact the check does not have, and claims no room for it', () => {
    const writer = new CheckLineWriter(Buffer.from(labels), { up: 0, degraded: 1, endedSeconds: null, sslDays: null }, infoLine(check, ''), undefined, bucketHeads([1]));
    const lines = written(writer);
    expect(lines.slice(2, 5)).toEqual(['', '', '']);
    expect(lines.slice(6)).toEqual(['', '']);
    expect([2, 3, 4, 6, 7].map((family) => writer.size(family))).toEqual([0, 0, 0, 0, 0]);
  });

  it('tells the exact size of the longest values a sample can have, and of counts whose digits grow', () => {
    const extreme: RunSeries = { ...series, outcomes: [Number.MAX_SAFE_INTEGER, 2 ** 60, -1, Number.NaN], sum: -Number.MAX_VALUE, count: Number.MAX_SAFE_INTEGER };
    const writer = new CheckLineWriter(Buffer.from(labels), { up: 1, degraded: 0, endedSeconds: -Number.MIN_VALUE, sslDays: Number.NEGATIVE_INFINITY }, infoLine(check, ''), { lastResponseSeconds: 1e-7, series: [extreme] }, bucketHeads([0.1]));
    const lines = written(writer);
    expect(lines[6]).toContain('outcome="degraded"} -1\n');
    expect(lines[6]).toContain('outcome="error"} NaN\n');
    expect(lines[7]).toContain(`_sum{${'account="acmé",check_id="c\\"1"'},location="eu-west-1"} -1.7976931348623157e+308\n`);
    expect(lines[4]).toMatch(/ -Inf\n$/);
    expect(lines[3]).toMatch(/ 1e-7\n$/);
    const counts: RunSeries = { ...series, outcomes: [9, 10, 99, 100], buckets: [9, 1, 90, 0], sum: 3, count: 100 };
    const grown = written(new CheckLineWriter(Buffer.from(labels), { up: 1, degraded: 0, endedSeconds: 1795787154, sslDays: 10 }, infoLine(check, ''), { lastResponseSeconds: 10, series: [counts] }, bucketHeads([0.1, 0.5, 1, 10])));
    expect(grown[6]).toContain('outcome="error"} 100\n');
    expect(grown[7]).toContain('_count{account="acmé",check_id="c\\"1",location="eu-west-1"} 100\n');
  });
});
