/**
 * Test support: loads constructs the way the engine's loader does (a fresh Project, constructs
 * created inside `withProject`), and finds where a test created them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VigilConfig } from '../config.js';
import { Project, withProject } from '../project.js';
import type { Diagnostic, ResourceSpec, SourceLocation } from '../types.js';

export const FIXTURE_ROOT = path.dirname(fileURLToPath(import.meta.url));

/** Runs `define` as a project load and returns the Project it registered into. */
export async function load(define: () => void, options: { config?: VigilConfig; root?: string } = {}): Promise<Project> {
  const project = new Project({ root: options.root ?? FIXTURE_ROOT });
  if (options.config !== undefined) project.setConfig(options.config);
  await withProject(project, async () => define());
  return project;
}

/** The diagnostics without their source, which tests of message text do not care about. */
export function problems(project: Project): Array<Omit<Diagnostic, 'source'>> {
  return project.validate().map(({ source: _source, ...rest }) => rest);
}

/** The spec of `address`; fails the test when validation reported errors. */
export function specOf(project: Project, address: string): ResourceSpec {
  const errors = project.validate().filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`unexpected errors: ${JSON.stringify(errors, null, 2)}`);
  const spec = project.synth().find((s) => s.address === address);
  if (spec === undefined) throw new Error(`no spec for ${address}`);
  return spec;
}

/**
 * Where the line holding `// @at:<marker>` of the test file `fileUrl` has `call` (by default the
 * `new` of a construct): the location a construct created on that line must record.
 */
export function markerLocation(fileUrl: string, marker: string, call = 'new '): SourceLocation {
  const file = fileURLToPath(fileUrl);
  const lines = readFileSync(file, 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(`// @at:${marker}`));
  if (index === -1) throw new Error(`marker ${marker} not found in ${file}`);
  const column = lines[index]!.indexOf(call) + 1;
  return { file, line: index + 1, column };
}
