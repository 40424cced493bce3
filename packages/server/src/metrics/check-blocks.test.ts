import { describe, expect, it } from 'vitest';
import { buildBlock } from './check-blocks.js';
import type { CheckLines } from './check-lines.js';

const piecesText = (built: { pieces: readonly Buffer[] }) => built.pieces.map((piece) => piece.toString('utf8'));

/** A check's lines given as one string per family; `slack` bytes more are claimed than written. */
function linesOf(texts: readonly string[] | undefined, slack = 0): CheckLines | undefined {
  if (!texts) return undefined;
  return { bound: (family) => Buffer.byteLength(texts[family]!) + slack, write: (family, piece, at) => at + piece.write(texts[family]!, at) };
}

describe('buildBlock', () => {
  it("writes each check's texts per family in order, by bytes, and counts the checks that have lines", () => {
    const texts = [['a1\n', 'A1\n'], undefined, ['c1 ü\n', ''], ['d1\n', 'D1 €\n']];
    const built = buildBlock(2, texts.length, undefined, () => true, (index) => linesOf(texts[index]));
    expect(piecesText(built)).toEqual(['a1\nc1 ü\nd1\n', 'A1\nD1 €\n']);
    expect([...built.offsets[0]!]).toEqual([0, 3, 3, 9, 12]);
    expect([...built.offsets[1]!]).toEqual([0, 3, 3, 3, 10]);
    expect(built.shown).toBe(3);
  });

  it('copies the bytes of unchanged checks from the previous pieces and writes only the changed ones', () => {
    const first = [['a1\n'], ['b1\n'], ['c1\n'], undefined];
    const previous = buildBlock(1, 4, undefined, () => true, (index) => linesOf(first[index]));
    const asked: number[] = [];
    const second = [undefined, ['b2 ünïcode\n'], undefined, ['d2\n']];
    const built = buildBlock(1, 4, previous, (index) => index === 1 || index === 3, (index) => {
      asked.push(index);
      return linesOf(second[index]);
    });
    expect(asked).toEqual([1, 3]);
    expect(piecesText(built)).toEqual(['a1\nb2 ünïcode\nc1\nd2\n']);
    expect(built.shown).toBe(4);
    const again = buildBlock(1, 4, built, (index) => index === 0, () => undefined);
    expect(piecesText(again)).toEqual(['b2 ünïcode\nc1\nd2\n']);
    expect(again.shown).toBe(3);
  });

  it('keeps each piece at the length written when the lines claimed more room than they took', () => {
    const texts = [['a1\n', 'A1\n'], ['b1 ü\n', 'B1\n']];
    const built = buildBlock(2, 2, undefined, () => true, (index) => linesOf(texts[index], 25));
    expect(built.pieces.map((piece) => piece.length)).toEqual([9, 6]);
    expect(piecesText(built)).toEqual(['a1\nb1 ü\n', 'A1\nB1\n']);
    expect([...built.offsets[0]!]).toEqual([0, 3, 9]);
  });
});
