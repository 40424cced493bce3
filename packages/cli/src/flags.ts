/**
 * Parsers of flag values that commander cannot check itself. A malformed value is a usage error,
 * checked before the project is loaded or any service started.
 */
import { usageError } from './errors.js';

/** `--parallelism`: a whole number from 1 to 100. */
export function parseParallelism(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 100) throw usageError(`--parallelism must be a whole number from 1 to 100, got "${text}"`);
  return value;
}

/** `--lock-timeout` in ms. */
export async function parseLockTimeoutFlag(text: string): Promise<number> {
  const { parseLockTimeout } = await import('@vigil/engine');
  try {
    return parseLockTimeout(text);
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
}

/** `--load-timeout` in ms: a duration above zero, written as for --lock-timeout. */
export async function parseLoadTimeoutFlag(text: string): Promise<number> {
  const { parseLockTimeout } = await import('@vigil/engine');
  let ms = Number.NaN;
  try {
    ms = parseLockTimeout(text);
  } catch {
    // Reported below with this flag's name.
  }
  if (!(ms > 0)) throw usageError(`invalid --load-timeout "${text}": use a duration above zero like 500ms, 30s or 2m`);
  return ms;
}
