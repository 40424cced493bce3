import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { withProject, type Project } from '@vigil/constructs';

/**
 * Temporary bundles of one load. They live under `<root>/.vigil/tmp/` rather than in the system temp
 * directory because the bundle's bare imports (npm packages, kept external) must resolve from the
 * project's own node_modules, exactly as the user's files would.
 */
export class BundleFiles {
  readonly #directory: string;
  readonly #written: string[] = [];
  readonly #id = `${process.pid}-${randomBytes(4).toString('hex')}`;

  constructor(root: string) {
    this.#directory = path.join(root, '.vigil', 'tmp');
  }

  /** Writes `code` to a fresh `.mjs` file and returns its URL. */
  async write(name: string, code: string): Promise<string> {
    await mkdir(this.#directory, { recursive: true });
    const file = path.join(this.#directory, `${name}-${this.#id}.mjs`);
    await writeFile(file, code);
    this.#written.push(file);
    return pathToFileURL(file).href;
  }

  /** Deletes every bundle written by this load (evaluated modules stay in memory). */
  async cleanUp(): Promise<void> {
    await Promise.all(this.#written.map((file) => rm(file, { force: true })));
    // Another load may still be using the directory; it is removed by whichever load empties it.
    await rmdir(this.#directory).catch(() => undefined);
  }
}

export type EvaluationOutcome =
  | { ok: true; exports: Record<string, unknown> }
  | { ok: false; error: unknown };

/**
 * Imports a bundle with `project` as the Project its constructs register into. Source maps are
 * switched on first, so the stack frames constructs record (and those of thrown errors) point at
 * the user's TypeScript, not at the bundle.
 */
export async function evaluateBundle(url: string, project: Project): Promise<EvaluationOutcome> {
  process.setSourceMapsEnabled(true);
  try {
    const exports = (await withProject(project, () => import(url))) as Record<string, unknown>;
    return { ok: true, exports };
  } catch (error) {
    return { ok: false, error };
  }
}
