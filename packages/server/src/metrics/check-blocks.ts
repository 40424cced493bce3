/**
 * The pieces of a block of checks (checks.ts): per family, the UTF-8 lines of the block's checks
 * in their order, and where each check's bytes start. Writing a block again after some of its
 * checks changed copies the bytes of the others from its previous pieces, in runs, and writes only
 * the changed checks' text. Kept per check instead, 70,000 small buffers at 10,000 checks cost a
 * scrape more in allocation and garbage collection than the copies, and doubled the memory.
 */
import type { CheckLines } from './check-lines.js';

/** A block's lines, per family. */
export interface BlockPieces {
  readonly pieces: readonly Buffer[];
  /** Per family, where the block's check i starts in its piece; entry `count` is the piece's length. */
  readonly offsets: readonly Int32Array[];
  /** How many of the block's checks have lines (a check that has not run yet has none). */
  readonly shown: number;
}

/**
 * The pieces of a block of `count` checks: for check i, its lines (`linesOf(i)`, or undefined for
 * none) when there are no previous pieces or `changed(i)`, else its bytes in `previous`. `linesOf`
 * is called in the checks' order.
 */
export function buildBlock(
  familyCount: number,
  count: number,
  previous: BlockPieces | undefined,
  changed: (index: number) => boolean,
  linesOf: (index: number) => CheckLines | undefined,
): BlockPieces {
  // First how large each piece can get; null marks a check whose bytes are copied.
  const lines: Array<CheckLines | undefined | null> = new Array(count);
  const sizes = new Array<number>(familyCount).fill(0);
  for (let index = 0; index < count; index++) {
    if (previous && !changed(index)) {
      lines[index] = null;
      for (let family = 0; family < familyCount; family++) sizes[family]! += previous.offsets[family]![index + 1]! - previous.offsets[family]![index]!;
      continue;
    }
    const ofCheck = linesOf(index);
    lines[index] = ofCheck;
    if (ofCheck) for (let family = 0; family < familyCount; family++) sizes[family]! += ofCheck.bound(family);
  }
  const pieces = sizes.map((size) => Buffer.allocUnsafe(size));
  const offsets = sizes.map(() => new Int32Array(count + 1));
  const at = new Array<number>(familyCount).fill(0);
  let shown = 0;
  for (let index = 0; index < count; ) {
    if (lines[index] === null) {
      let end = index;
      while (end < count && lines[end] === null) end++;
      for (let family = 0; family < familyCount; family++) {
        const from = previous!.offsets[family]!;
        const start = from[index]!;
        previous!.pieces[family]!.copy(pieces[family]!, at[family], start, from[end]);
        for (let check = index; check < end; check++) offsets[family]![check] = at[family]! + from[check]! - start;
        at[family]! += from[end]! - start;
      }
      // Every check with lines has an up line (family 0).
      for (let check = index; check < end; check++) if (previous!.offsets[0]![check + 1]! > previous!.offsets[0]![check]!) shown++;
      index = end;
      continue;
    }
    const ofCheck = lines[index];
    if (ofCheck) shown++;
    for (let family = 0; family < familyCount; family++) {
      offsets[family]![index] = at[family]!;
      if (ofCheck) at[family] = ofCheck.write(family, pieces[family]!, at[family]!);
    }
    index++;
  }
  for (let family = 0; family < familyCount; family++) offsets[family]![count] = at[family]!;
  // The pieces were sized for the longest values; kept at their written length only, so neither
  // the unwritten tail is sent nor its memory kept between scrapes.
  return { pieces: pieces.map((piece, family) => (at[family] === piece.length ? piece : exactCopy(piece, at[family]!))), offsets, shown };
}

/** The first `length` bytes of `piece` in a buffer of their own (`Buffer.from` copies a buffer byte by byte). */
function exactCopy(piece: Buffer, length: number): Buffer {
  const exact = Buffer.allocUnsafe(length);
  exact.set(piece.subarray(0, length));
  return exact;
}
