import { StateError } from './errors.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * Parses `--lock-timeout` (`30s`, `500ms`, `2m`, `1h`, `0`) into milliseconds. A bare number other
 * than 0 is refused: `30` could mean seconds or milliseconds, and guessing wrong waits 1000× too long.
 */
export function parseLockTimeout(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const amount = match?.[1];
  const unit = match?.[2] as keyof typeof UNIT_MS | undefined;
  if (amount === undefined || (unit === undefined && Number(amount) !== 0)) {
    throw new StateError('lock-timeout-invalid', `invalid --lock-timeout "${text}": use a duration like 0s, 500ms, 30s or 5m`);
  }
  return Math.round(Number(amount) * UNIT_MS[unit ?? 'ms']);
}

/** `30000` → `30s`, `1500` → `1.5s`, `120000` → `2m`, `250` → `250ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000 || ms % 60_000 !== 0) return `${Number((ms / 1_000).toFixed(1))}s`;
  return `${ms / 60_000}m`;
}
