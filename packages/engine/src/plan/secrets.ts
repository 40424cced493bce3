/** Keeps secrets out of every plan rendering and saved plan: values become "(sensitive)". */
import { replaceAtPath } from '../kinds/paths.js';
import { SENSITIVE, type FieldChange } from './types.js';

function mask(value: unknown): unknown {
  return value === undefined || value === null ? value : SENSITIVE;
}

export function maskSecrets(changes: readonly FieldChange[], secretPaths: readonly string[]): FieldChange[] {
  if (secretPaths.length === 0) return [...changes];
  return changes.map((change) => {
    let { before, after } = change;
    for (const secret of secretPaths) {
      const atOrInsideSecret = secret === change.path || isBelow(change.path, secret);
      if (atOrInsideSecret) {
        before = mask(before);
        after = mask(after);
      } else if (isBelow(secret, change.path)) {
        const relative = secret.slice(change.path.length).replace(/^\./, '');
        before = replaceAtPath(before, relative, mask);
        after = replaceAtPath(after, relative, mask);
      }
    }
    return { path: change.path, before, after };
  });
}

/** Whether `path` names something inside `parent` (`a.b` and `a[0]` are inside `a`). */
function isBelow(path: string, parent: string): boolean {
  return path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}
