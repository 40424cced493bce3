import { describe, expect, it } from 'vitest';
import { escapeLabelValue, expositionBody, expositionStream, formatSampleValue, linesOf } from './exposition.js';

describe('escapeLabelValue', () => {
  it('escapes backslash, double quote and line feed, and nothing else', () => {
    expect(escapeLabelValue('plain name – ünïcode, {braces} = ok')).toBe('plain name – ünïcode, {braces} = ok');
    expect(escapeLabelValue('a\\b')).toBe('a\\\\b');
    expect(escapeLabelValue('say "hi"')).toBe('say \\"hi\\"');
    expect(escapeLabelValue('two\nlines')).toBe('two\\nlines');
    expect(escapeLabelValue('tab\tand\rreturn')).toBe('tab\tand\rreturn');
    // Each backslash doubled before quotes get theirs, so `\"` cannot end the value early.
    expect(escapeLabelValue('\\"\n')).toBe('\\\\\\"\\n');
  });
});

describe('formatSampleValue', () => {
  it('prints numbers as JavaScript does and non-finite ones as the format names them', () => {
    expect([0, 1, 0.12, 1893456001.5, -3, 1e21].map(formatSampleValue)).toEqual(['0', '1', '0.12', '1893456001.5', '-3', '1e+21']);
    expect([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY].map(formatSampleValue)).toEqual(['NaN', '+Inf', '-Inf']);
  });
});

describe('expositionBody', () => {
  it('writes each family as HELP, TYPE and its samples, a blank line between families, an empty family as its header', () => {
    const things = { name: 'x_total', help: 'Things', type: 'counter' } as const;
    const level = { name: 'y', help: 'Level', type: 'gauge' } as const;
    const samples = ['x_total{a="1"} 2\n', 'x_total{a="2"} 3\n'].map(linesOf);
    expect(Buffer.from(expositionBody([{ family: things, samples }, { family: level, samples: [] }])).toString()).toBe(
      '# HELP x_total Things\n# TYPE x_total counter\nx_total{a="1"} 2\nx_total{a="2"} 3\n\n# HELP y Level\n# TYPE y gauge\n',
    );
  });

  it('appends more families in the same layout after a blank line', () => {
    const level = { name: 'y', help: 'Level', type: 'gauge' } as const;
    expect(Buffer.from(expositionBody([{ family: level, samples: [linesOf('y 1\n')] }], '# HELP z Z\n# TYPE z gauge\nz 2\n')).toString()).toBe('# HELP y Level\n# TYPE y gauge\ny 1\n\n# HELP z Z\n# TYPE z gauge\nz 2\n');
  });
});

describe('expositionStream', () => {
  async function read(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
    const pieces: Uint8Array[] = [];
    for await (const piece of stream) pieces.push(piece);
    return pieces;
  }

  it('sends the pieces in order, joined into batches of at least the batch size but the last', async () => {
    const chunks = ['a 1\n', 'b 2\n', 'c 3\n', 'd ü\n', 'e 5\n'].map(linesOf);
    const batches = await read(expositionStream(chunks, 8));
    expect(batches.map((batch) => Buffer.from(batch).toString())).toEqual(['a 1\nb 2\n', 'c 3\nd ü\n', 'e 5\n']);
  });

  it('sends a piece larger than the batch size whole', async () => {
    const batches = await read(expositionStream([linesOf('long line 1\n'), linesOf('x 1\n')], 4));
    expect(batches.map((batch) => Buffer.from(batch).toString())).toEqual(['long line 1\n', 'x 1\n']);
  });

  it('sends a piece of the alone size or more by itself, between the batches of the small ones around it', async () => {
    const chunks = ['a 1\n', 'b 2\n', 'long piece\n', 'c 3\n'].map(linesOf);
    const batches = await read(expositionStream(chunks, 100, 8));
    expect(batches.map((batch) => Buffer.from(batch).toString())).toEqual(['a 1\nb 2\n', 'long piece\n', 'c 3\n']);
    expect(batches[1]).toBe(chunks[2]);
  });

  it('ends at once when there is nothing to send', async () => {
    expect(await read(expositionStream([]))).toEqual([]);
  });
});
