import { describe, expect, it } from 'vitest';
import { buildPiece, type FamilyPiece } from './check-blocks.js';
import type { CheckLines } from './check-lines.js';

/** A check's lines given as one string per family; `slack` bytes more are claimed than written. */
function linesOf(texts: readonly string[] | undefined, slack = 0): CheckLines | undefined {
  if (!texts) return undefined;
  return { bound: (family) => Buffer.byteLength(texts[family]!) + slack, write: (family, piece, at) => at + piece.write(texts[family]!, at) };
}

const textOf = (built: FamilyPiece) => built.piece.toString('utf8');

describe('buildPiece', () => {
  it("writes each check's lines of the family in order, by bytes, and where each check starts", () => {
    const texts = [['a1\n', 'A1\n'], undefined, ['c1 ü\n', ''], ['d1\n', 'D1 €\n']];
    const first = buildPiece(0, texts.length, undefined, () => true, (index) => linesOf(texts[index]));
    const second = buildPiece(1, texts.length, undefined, () => true, (index) => linesOf(texts[index]));
    expect([textOf(first), textOf(second)]).toEqual(['a1\nc1 ü\nd1\n', 'A1\nD1 €\n']);
    expect([...first.offsets]).toEqual([0, 3, 3, 9, 12]);
    expect([...second.offsets]).toEqual([0, 3, 3, 3, 10]);
  });

  it('copies the bytes of unchanged checks from the previous piece and writes only the changed ones', () => {
    const first = [['a1\n'], ['b1\n'], ['c1\n'], undefined];
    const previous = buildPiece(0, 4, undefined, () => true, (index) => linesOf(first[index]));
    const asked: number[] = [];
    const second = [undefined, ['b2 ünïcode\n'], undefined, ['d2\n']];
    const built = buildPiece(0, 4, previous, (index) => index === 1 || index === 3, (index) => {
      asked.push(index);
      return linesOf(second[index]);
    });
    expect(asked).toEqual([1, 3]);
    expect(textOf(built)).toEqual('a1\nb2 ünïcode\nc1\nd2\n');
    const again = buildPiece(0, 4, built, (index) => index === 0, () => undefined);
    expect(textOf(again)).toEqual('b2 ünïcode\nc1\nd2\n');
    expect([...again.offsets]).toEqual([0, 0, 13, 16, 19]);
  });

  it('keeps the piece at the length written when the lines claimed more room than they took', () => {
    const texts = [['a1\n'], ['b1 ü\n']];
    const built = buildPiece(0, 2, undefined, () => true, (index) => linesOf(texts[index], 25));
    expect(built.piece.length).toBe(9);
    expect(textOf(built)).toEqual('a1\nb1 ü\n');
    expect([...built.offsets]).toEqual([0, 3, 9]);
  });
});
