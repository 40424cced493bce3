/**
 * The pieces of a block of checks (checks.ts): per family, the UTF-8 lines of the block's checks
 * in their order, and where each check's bytes start. Writing a family's piece again after some of
 * the block's checks changed copies the bytes of the others from its previous piece, in runs, and
 * writes only the changed checks' lines. Kept per check instead, 70,000 small buffers at 10,000
 * checks cost a scrape more in allocation and garbage collection than the copies, and doubled the
 * memory. Each family's piece is written on its own, when a scrape's body reaches it.
 */
import type { CheckLines } from './check-lines.js';

/** A block's lines of one family. */
export interface FamilyPiece {
  readonly piece: Buffer;
  /** The memory `piece` was written into, from its start; longer than it by any room left. */
  readonly storage: Buffer;
  /** Where the block's check i starts in `piece`; entry `count` is the piece's length. */
  readonly offsets: Int32Array;
}

/** Memory for a piece of `size` bytes: at least that long. */
export type StorageFor = (size: number) => Buffer;

const allocate: StorageFor = (size) => Buffer.allocUnsafe(size);

/**
 * The piece of `family` for a block of `count` checks: for check i, its lines (`linesOf(i)`, or
 * undefined for none) when there is no previous piece or `changed(i)`, else its bytes in
 * `previous`. `linesOf` is called in the checks' order. The piece is written into `storageFor(its
 * size)`, which must not be `previous`'s storage nor memory a scrape still sends.
 */
export function buildPiece(
  family: number,
  count: number,
  previous: FamilyPiece | undefined,
  changed: (index: number) => boolean,
  linesOf: (index: number) => CheckLines | undefined,
  storageFor: StorageFor = allocate,
): FamilyPiece {
  // First how large the piece is; null marks a check whose bytes are copied.
  const lines: Array<CheckLines | undefined | null> = new Array(count);
  let size = 0;
  for (let index = 0; index < count; index++) {
    if (previous && !changed(index)) {
      lines[index] = null;
      size += previous.offsets[index + 1]! - previous.offsets[index]!;
      continue;
    }
    const ofCheck = linesOf(index);
    lines[index] = ofCheck;
    if (ofCheck) size += ofCheck.size(family);
  }
  const storage = storageFor(size);
  const piece = storage.length === size ? storage : storage.subarray(0, size);
  const offsets = new Int32Array(count + 1);
  let at = 0;
  for (let index = 0; index < count; ) {
    if (lines[index] === null) {
      let end = index;
      while (end < count && lines[end] === null) end++;
      const from = previous!.offsets;
      const start = from[index]!;
      previous!.piece.copy(piece, at, start, from[end]);
      for (let check = index; check < end; check++) offsets[check] = at + from[check]! - start;
      at += from[end]! - start;
      index = end;
      continue;
    }
    offsets[index] = at;
    const ofCheck = lines[index];
    if (ofCheck) at = ofCheck.write(family, piece, at);
    index++;
  }
  offsets[count] = at;
  // Sized exactly, so the piece is neither copied to its length nor sent with a tail of
  // uninitialised memory. Sized for the longest values and copied to length after, a piece cost
  // a second allocation and copy of every changed byte, and the garbage of the first.
  if (at !== size) throw new Error(`this is a bug in vigil: the lines of family ${family} took ${at} bytes, their sizes said ${size}`);
  return { piece, storage, offsets };
}

/**
 * Writes the changed checks' lines of `family` over their old bytes in `kept`, when each takes
 * exactly as many bytes as before; returns whether it did. False leaves `kept` as it was: the
 * block's piece is then written anew (buildPiece). `kept`'s memory must be sent by no scrape in
 * flight. With results spread over every block, most changed lines keep their length (a gauge's
 * 0 or 1, a timestamp, counts short of a new digit), and the piece's unchanged bytes, most of it,
 * are neither copied nor read: written anew, a scrape copied its whole 22 MB for a few lines a block.
 */
export function patchPiece(family: number, count: number, kept: FamilyPiece, changed: (index: number) => boolean, linesOf: (index: number) => CheckLines | undefined): boolean {
  const { piece, offsets } = kept;
  // First whether every changed check fits, so that a piece is never left half written.
  for (let index = 0; index < count; index++) {
    if (!changed(index)) continue;
    const size = linesOf(index)?.size(family) ?? 0;
    if (size !== offsets[index + 1]! - offsets[index]!) return false;
  }
  for (let index = 0; index < count; index++) {
    if (!changed(index)) continue;
    const ofCheck = linesOf(index);
    const end = ofCheck ? ofCheck.write(family, piece, offsets[index]!) : offsets[index]!;
    if (end !== offsets[index + 1]) throw new Error(`this is a bug in vigil: the lines of family ${family} of a check took ${end - offsets[index]!} bytes, their size said ${offsets[index + 1]! - offsets[index]!}`);
  }
  return true;
}
