/**
 * Loads the project at argv[2] in a process of its own and prints where every construct and
 * diagnostic points. A child process because test runners install their own stack formatter, and
 * constructs read locations differently when Node's own formatter is in place (the CLI's case).
 */
import path from 'node:path';
import { isPendingSource } from '@vigil/constructs';
import { loadProject } from '../load-project.js';

const root = process.argv[2];
if (!root) throw new Error('usage: print-locations.ts <project root>');
const loaded = await loadProject({ cwd: root });
// Before anything below reads a location: only those a diagnostic needed should be worked out.
const pendingAfterLoad = loaded.project.constructs().filter((construct) => isPendingSource(construct.source)).map((construct) => construct.address);
const locations = {
  pendingAfterLoad,
  stackFormatter: Error.prepareStackTrace?.name,
  constructs: loaded.project.constructs().map((construct) => [construct.address, { ...construct.source, file: path.relative(root, construct.source.file) }]),
  diagnostics: loaded.diagnostics,
};
process.stdout.write(`${JSON.stringify(locations)}\n`);
