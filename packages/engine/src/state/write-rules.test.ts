/**
 * The rules every backend applies to a write and `vigil state push` checks first: the lineage
 * never changes unless forced, and the stored serial only grows.
 */
import { describe, expect, it } from 'vitest';
import { assertReplaceable, emptyState, serialForWrite } from './document.js';
import { isStateError } from './errors.js';
import type { StateDocument } from './types.js';

const document = (serial: number, lineage = 'a'): StateDocument => ({ ...emptyState({ project: 'shop', target: { baseUrl: 'http://x', accountId: 'a' } }), lineage, serial });

function codeOf(run: () => unknown): string | number {
  try {
    return run() as number;
  } catch (error) {
    if (isStateError(error)) return error.code;
    throw error;
  }
}

describe('serialForWrite', () => {
  it.each([
    ['a first write gets serial 1', { lineage: undefined, serial: 0 }, document(7), {}, 1],
    ['a write gets the next serial whatever the document says', { lineage: 'a', serial: 4 }, document(9), {}, 5],
    ['another lineage is refused', { lineage: 'b', serial: 4 }, document(9), {}, 'state-lineage-mismatch'],
    ['a kept serial that is newer is stored as it is', { lineage: 'a', serial: 4 }, document(9), { keepSerial: true }, 9],
    ['a kept serial that is not newer is refused', { lineage: 'a', serial: 4 }, document(4), { keepSerial: true }, 'state-serial-stale'],
    ['a forced kept serial that is not newer becomes the next one', { lineage: 'a', serial: 4 }, document(2), { keepSerial: true, force: true }, 5],
    ['a forced write of another lineage is stored', { lineage: 'b', serial: 4 }, document(9), { keepSerial: true, force: true }, 9],
  ] as const)('%s', (_name, stored, incoming, options, expected) => {
    expect(codeOf(() => serialForWrite(stored, incoming, { ...options, location: 'state' }))).toBe(expected);
  });
});

describe('assertReplaceable', () => {
  const options = { location: 'http state at http://x/s', source: 'pulled.json', forceHint: 'run it again with --force' };

  it('accepts any document where there is none, and a newer serial of the same lineage', () => {
    expect(() => assertReplaceable(undefined, document(1), options)).not.toThrow();
    expect(() => assertReplaceable(document(3), document(4), options)).not.toThrow();
  });

  it('refuses another lineage and a serial that is not newer, saying how to force it', () => {
    expect(() => assertReplaceable(document(3, 'b'), document(4), options)).toThrow(
      'refusing to replace state http state at http://x/s (lineage b, serial 3) with pulled.json (lineage a): they belong to different projects or targets. If pulled.json really should replace it, run it again with --force.',
    );
    expect(() => assertReplaceable(document(3), document(3), options)).toThrow(
      'refusing to replace state http state at http://x/s (serial 3) with pulled.json (serial 3): it is not newer, so it would undo later writes (e.g. an apply made since it was pulled). If pulled.json really should replace it, run it again with --force.',
    );
  });
});
