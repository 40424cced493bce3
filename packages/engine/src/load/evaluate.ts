import { randomBytes } from 'node:crypto';
import { rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { withProject, type Project } from '@vigil/constructs';
import { provideCreateRequire } from './bundle.js';

/**
 * The directory a load writes its bundled modules to, removed when the load ends. It lives under
 * `<root>/.vigil/tmp/` rather than in the system temp directory because the bundles' bare imports
 * (npm packages, kept external) must resolve from the project's own node_modules, exactly as the
 * user's files would.
 */
export class LoadDirectory {
  readonly #tmp: string;
  readonly #id = `${process.pid}-${randomBytes(4).toString('hex')}`;

  constructor(root: string) {
    this.#tmp = path.join(root, '.vigil', 'tmp');
  }

  /** A fresh directory for one bundle (`config`, `monitors`) of this load. */
  directory(name: string): string {
    return path.join(this.#tmp, `load-${this.#id}`, name);
  }

  /** Deletes everything this load wrote (evaluated modules stay in memory). */
  async cleanUp(): Promise<void> {
    await rm(path.join(this.#tmp, `load-${this.#id}`), { recursive: true, force: true });
    // Another load may still be using tmp/; whichever load empties it removes it.
    await rmdir(this.#tmp).catch(() => undefined);
  }
}

/** What evaluating a list of modules produced: the exports of each, or the errors they threw. */
export interface EvaluationOutcome {
  exports: Array<Record<string, unknown> | undefined>;
  /** Each distinct error once, in the order thrown (a module importing a failed one rethrows it). */
  errors: unknown[];
}

/**
 * Imports each module in order with `project` as the Project their constructs register into. A
 * module that throws does not stop the others, so one load reports every file that fails. Source
 * maps are switched on first, so the stack frames constructs record (and those of thrown errors)
 * point at the user's TypeScript, not at the bundle.
 */
export async function evaluateModules(urls: readonly string[], project: Project): Promise<EvaluationOutcome> {
  process.setSourceMapsEnabled(true);
  provideCreateRequire();
  const outcome: EvaluationOutcome = { exports: [], errors: [] };
  await withProject(project, async () => {
    for (const url of urls) {
      try {
        outcome.exports.push((await import(url)) as Record<string, unknown>);
      } catch (error) {
        outcome.exports.push(undefined);
        if (!outcome.errors.includes(error)) outcome.errors.push(error);
      }
    }
  });
  return outcome;
}
