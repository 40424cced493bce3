import { describe, expect, it } from 'vitest';
import { buildPiece, patchPiece, type FamilyPiece } from './check-blocks.js';
import type { CheckLines } from './check-lines.js';

/** A check's lines given as one string per family; its size is told `slack` bytes off what it writes. */
function linesOf(texts: readonly string[] | undefined, slack = 0): CheckLines | undefined {
  if (!texts) return undefined;
  return {
    size: (family) => Buffer.byteLength(texts[family]!) + slack,
    write: (family, piece, at) => {
      // set(), as CheckLineWriter writes: past the piece's end it throws instead of cutting the text.
      const bytes = Buffer.from(texts[family]!);
      piece.set(bytes, at);
      return at + bytes.length;
    },
  };
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

  it('refuses lines that wrote more or fewer bytes than their size said, rather than send a piece with a tail not written or lines cut', () => {
    const texts = [['a1\n'], ['b1 ü\n']];
    expect(() => buildPiece(0, 2, undefined, () => true, (index) => linesOf(texts[index], index))).toThrow('this is a bug in vigil: the lines of family 0 took 9 bytes, their sizes said 10');
    expect(() => buildPiece(0, 2, undefined, () => true, (index) => linesOf(texts[index], -index))).toThrow(RangeError);
  });
});

describe('patchPiece', () => {
  const first = [['a1\n'], ['b1\n'], undefined, ['d1\n']];
  const built = () => buildPiece(0, 4, undefined, () => true, (index) => linesOf(first[index]));

  it("writes the changed checks' lines over their old bytes when each keeps its length, and leaves the others' bytes and the offsets as they were", () => {
    const kept = built();
    const asked: number[] = [];
    const second = [undefined, ['ü\n'], undefined, ['d2\n']];
    expect(patchPiece(0, 4, kept, (index) => index === 1 || index === 2 || index === 3, (index) => {
      asked.push(index);
      return linesOf(second[index]);
    })).toBe(true);
    expect(textOf(kept)).toBe('a1\nü\nd2\n');
    expect([...kept.offsets]).toEqual([0, 3, 6, 6, 9]);
    expect(asked).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it('leaves the piece as it was and says so when a changed check takes more or fewer bytes than before', () => {
    for (const lines of [['b22\n'], ['b\n'], undefined]) {
      const kept = built();
      const changed = [undefined, lines, undefined, ['d2\n']];
      expect(patchPiece(0, 4, kept, (index) => index === 1 || index === 3, (index) => linesOf(changed[index]))).toBe(false);
      expect(textOf(kept)).toBe('a1\nb1\nd1\n');
    }
  });

  it('refuses lines that wrote more or fewer bytes than their size said', () => {
    expect(() => patchPiece(0, 4, built(), (index) => index === 1, () => linesOf(['b\n'], 1))).toThrow('this is a bug in vigil: the lines of family 0 of a check took 2 bytes, their size said 3');
  });
});
