/**
 * Which of a project's checks `vigil test` runs, and with what: the selection flags (patterns,
 * `--grep`, `--tags`), `-e`/`--env-file`, and the run payload each check hands the runner.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { ResourceSpec } from '@vigil/engine';
import { usageError } from '../errors.js';

/** Check types that are passive: nothing to run, listed as skipped. */
const PASSIVE_CHECK_TYPES = new Set(['HEARTBEAT']);

export interface Selection {
  /**
   * Positional arguments, alternatives: an address (`api-check.home`), a logical id (`home`), a
   * file or directory from the project root (`checks/api`), each exactly; or a glob (`*`, `?`, `**`)
   * over the file path or the logical id (`'api-*'`).
   */
  patterns: readonly string[];
  /** `--grep`: matched against check names. */
  grep?: RegExp;
  /** `--tags a,b` (all of a and b), repeated: any of the sets. */
  tagSets: ReadonlyArray<readonly string[]>;
}

/** A spec whose payload says it is a check (it has a `checkType`). */
export function isCheckSpec(spec: ResourceSpec): boolean {
  return typeof spec.payload.checkType === 'string';
}

export function isPassive(spec: ResourceSpec): boolean {
  return PASSIVE_CHECK_TYPES.has(String(spec.payload.checkType));
}

/** The project's checks that the selection picks, in the order they were declared (file, then line). */
export function selectChecks(specs: readonly ResourceSpec[], selection: Selection): ResourceSpec[] {
  return specs.filter((spec) => isCheckSpec(spec) && matches(spec, selection)).sort(bySource);
}

function matches(spec: ResourceSpec, selection: Selection): boolean {
  if (selection.patterns.length > 0) {
    const file = spec.source.file.split(path.sep).join('/');
    const hit = selection.patterns.some((pattern) =>
      isGlob(pattern) ? matchesGlob(pattern, file) || matchesGlob(pattern, spec.logicalId) : pattern === spec.address || pattern === spec.logicalId || isFileOrUnder(pattern, file),
    );
    if (!hit) return false;
  }
  if (selection.grep && !selection.grep.test(String(spec.payload.name ?? ''))) return false;
  if (selection.tagSets.length > 0) {
    const tags = new Set(Array.isArray(spec.payload.tags) ? (spec.payload.tags as string[]) : []);
    if (!selection.tagSets.some((set) => set.every((tag) => tags.has(tag)))) return false;
  }
  return true;
}

function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** `checks/api/health.monitor.ts` itself, or any file under `checks/api` (`./` and a trailing `/` allowed). */
function isFileOrUnder(pattern: string, file: string): boolean {
  const wanted = pattern.split(path.sep).join('/').replace(/^\.\//, '').replace(/\/+$/, '');
  return wanted !== '' && (file === wanted || file.startsWith(`${wanted}/`));
}

/** A glob over the whole text, or over its tail after a `/`. */
function matchesGlob(pattern: string, text: string): boolean {
  const source = pattern
    .split(/(\*\*|\*|\?)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part === '?' ? '[^/]' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(text) || new RegExp(`(^|/)${source}$`).test(text);
}

function bySource(a: ResourceSpec, b: ResourceSpec): number {
  return a.source.file.localeCompare(b.source.file) || a.source.line - b.source.line || a.source.column - b.source.column;
}

/** `--grep`: a regular expression, or a usage error naming it. */
export function parseGrep(text: string): RegExp {
  try {
    return new RegExp(text);
  } catch (error) {
    throw usageError(`--grep is not a valid regular expression: ${(error as Error).message}`, error);
  }
}

/** Repeatable `--tags a,b`: one set per flag; empty names are a usage error. */
export function collectTagSet(value: string, previous: string[][] = []): string[][] {
  const tags = value.split(',').map((tag) => tag.trim());
  if (tags.some((tag) => tag === '')) throw usageError(`--tags takes comma-separated tag names, got "${value}"`);
  return [...previous, tags];
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Repeatable `-e KEY=VALUE`. */
export function collectVariable(text: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const equals = text.indexOf('=');
  const key = equals === -1 ? text : text.slice(0, equals);
  if (equals === -1 || !VARIABLE_NAME.test(key)) {
    throw usageError(`-e/--env takes KEY=VALUE with KEY made of letters, digits and _ (not starting with a digit), got "${text}"`);
  }
  return [...previous, [key, text.slice(equals + 1)]];
}

/** `--env-file FILE` (dotenv syntax), read relative to the working directory. */
export function readEnvFile(file: string, cwd: string): Array<[string, string]> {
  const absolute = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(`--env-file ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (error as Error).message}`, error);
  }
  return Object.entries(parseEnv(text)).map(([key, value]) => [key, value ?? '']);
}
