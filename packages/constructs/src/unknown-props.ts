import type { BuildContext } from './build-context.js';

/**
 * The props a construct accepts, as a record typed `Record<keyof Props, true>` so the compiler
 * keeps it in step with the props interface (a missing or extra key does not compile).
 */
export type PropKeys<T> = Readonly<Record<keyof T, true>>;

/** Edit distance, for "did you mean" hints on misspelt props. */
function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The known name `key` most likely misspells, if any is close. */
export function closest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const exactButCase = known.find((candidate) => candidate.toLowerCase() === lower);
  if (exactButCase !== undefined) return exactButCase;
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of known) {
    const score = distance(lower, candidate.toLowerCase());
    if (score <= 2 && (best === undefined || score < best.score)) best = { candidate, score };
  }
  return best?.candidate;
}

/**
 * Warns about props the construct does not know. Monitor files are bundled without type checking,
 * so a misspelt prop (`frequncy: 5`) would otherwise be dropped without a word. A warning, not an
 * error: the Checkly CLI ignores props it does not know, and its projects carry some (props of
 * newer Checkly versions, or of other constructs), which must not stop them loading.
 */
export function reportUnknownProps(
  context: BuildContext,
  props: unknown,
  known: Readonly<Record<string, true>>,
  options: { owner: string; base?: string },
): void {
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return;
  const knownKeys = Object.keys(known);
  for (const key of Object.keys(props)) {
    if (Object.hasOwn(known, key)) continue;
    const path = options.base === undefined ? key : `${options.base}.${key}`;
    const suggestion = closest(key, knownKeys);
    context.warning(
      path,
      `"${path}" is not a prop of ${options.owner}`,
      suggestion !== undefined ? `Did you mean "${suggestion}"?` : `Known props: ${knownKeys.join(', ')}.`,
    );
  }
}
