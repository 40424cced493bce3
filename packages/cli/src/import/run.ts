/**
 * The body of `vigil import`: refresh every managed kind, pick the unmanaged resources the filters
 * select, render them as code, write the files, and only then record them in state (under the
 * lock), so a failure between the two leaves code to review rather than state pointing at nothing.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { ImportFilter, ImportPlan, StateDocument, StateLock } from '@vigil/engine';
import { takeLock } from '../apply-run.js';
import type { ImportFlags } from '../commands/import.js';
import { CliError, usageError } from '../errors.js';
import { parseLockTimeoutFlag } from '../flags.js';
import { currentState, openSession, type Session } from '../workflow.js';
import { renderImportFiles, type GeneratedFile } from './codegen.js';
import { managedResources } from './managed.js';
import { isLoadedMonitorFile, printable } from '@vigil/engine';

const out = (line = '') => process.stdout.write(`${line}\n`);

async function parseFilters(texts: readonly string[]): Promise<ImportFilter[]> {
  const { parseImportFilter, ImportFilterError } = await import('@vigil/engine');
  try {
    return texts.map((text) => parseImportFilter(text));
  } catch (error) {
    if (error instanceof ImportFilterError) throw usageError(error.message, error);
    throw error;
  }
}

function parseNamePattern(text: string | undefined): RegExp | undefined {
  if (text === undefined) return undefined;
  try {
    return new RegExp(text);
  } catch (error) {
    throw usageError(`--name ${JSON.stringify(text)} is not a valid regular expression: ${(error as Error).message}`, error);
  }
}

function describeFilters(filters: readonly string[], flags: ImportFlags): string {
  const parts = [...filters];
  if (flags.tag !== undefined) parts.push(`--tag ${flags.tag}`);
  if (flags.name !== undefined) parts.push(`--name ${flags.name}`);
  return parts.join(' ');
}

async function existingFiles(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    const shown = path.relative(process.cwd(), directory) || directory;
    if (code === 'ENOTDIR') throw new CliError(`cannot write into ${shown}: it is a file, not a directory. Choose another --out; nothing was written.`, { cause: error });
    if (typeof code === 'string') throw new CliError(`cannot read ${shown}: ${(error as Error).message}. Nothing was written.`, { cause: error });
    throw error;
  }
}

export async function runImport(command: Command, filterTexts: string[], flags: ImportFlags): Promise<void> {
  const filters = await parseFilters(filterTexts);
  const namePattern = parseNamePattern(flags.name);
  const lockTimeoutMs = flags.dryRun ? 0 : await parseLockTimeoutFlag(flags.lockTimeout);
  const session = await openSession(command, { local: flags.local ?? false, log: out });
  let lock: StateLock | undefined;
  try {
    const engine = await import('@vigil/engine');
    if (!flags.dryRun) lock = await takeLock(session, lockTimeoutMs, 'import');
    const state = await currentState(session, await session.backend.read(), lock);
    if (state.journal.length > 0) {
      throw new CliError(`state records ${state.journal.length} unfinished operation(s) from an interrupted apply; run vigil apply to finish them before importing`);
    }
    const remote = await engine.refresh(session.calls, Object.keys(engine.ADAPTERS) as Array<keyof typeof engine.ADAPTERS>);
    const candidates = engine.selectCandidates({ remote, state, filters, tag: flags.tag, name: namePattern });
    if (candidates.length === 0) {
      // Nothing else to write, but an account this state just adopted is recorded all the same.
      if (lock && session.accountAdopted) await lock.write(state);
      const described = describeFilters(filterTexts, flags);
      out(described === '' ? 'Nothing to import: every resource on the service is already managed by this project.' : `Nothing to import: no unmanaged resource matches ${described}.`);
      return;
    }

    const outDir = path.resolve(flags.out ?? path.join(session.loaded.root, 'imported'));
    const plan = engine.planImport({
      candidates,
      state,
      projectAddresses: session.loaded.specs.map((spec) => spec.address),
      checkDefaults: session.loaded.config?.checks,
      env: process.env,
      existingFiles: await existingFiles(outDir),
      generatedDir: path.relative(session.loaded.root, outDir).split(path.sep).join('/'),
      managed: await managedResources(session.loaded.root, session.loaded.specs, state),
    });
    const files = renderImportFiles(plan);
    assertPickedUp(session, outDir, files);
    const shown = (file: GeneratedFile) => path.relative(process.cwd(), path.join(outDir, file.name)) || file.name;

    if (flags.dryRun) {
      for (const file of files) {
        out(`--- ${shown(file)} (would be written)`);
        process.stdout.write(file.text);
        out();
      }
      printAdoptions(plan, 'Would adopt');
      printVariables(plan);
      out('Dry run: nothing was written.');
      return;
    }

    await writeGenerated(outDir, files);
    for (const file of files) out(`Wrote ${shown(file)}`);

    const writer = new engine.StateWriter(lock!, state);
    await writer.update((document) => withImported(document, plan));
    printAdoptions(plan, 'Adopted');
    printVariables(plan);
    out('Run vigil plan: it should report no changes.');
  } finally {
    await lock?.release();
    await session.close();
  }
}

/**
 * Writes the generated files, never over an existing one (`wx`: a file that appeared since the
 * directory was read is kept). A file-system failure is the user's to fix, so it is their error,
 * naming the file; state is untouched, since it is written only after every file is.
 */
async function writeGenerated(outDir: string, files: readonly GeneratedFile[]): Promise<void> {
  let current = outDir;
  try {
    await mkdir(outDir, { recursive: true });
    for (const file of files) {
      current = path.join(outDir, file.name);
      await writeFile(current, file.text, { flag: 'wx' });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw error;
    const reason = code === 'EEXIST' && current !== outDir ? 'it was created meanwhile, and import never overwrites a file' : (error as Error).message;
    throw new CliError(`cannot write ${path.relative(process.cwd(), current) || current}: ${reason}. State was not changed; remove any files written and run import again.`, { cause: error });
  }
}

/** Refuses, naming the exact fix, to write files the project's checkMatch would not load. */
function assertPickedUp(session: Session, outDir: string, files: readonly GeneratedFile[]): void {
  const { root, config, configPath } = session.loaded;
  const relativeDir = path.relative(root, outDir).split(path.sep).join('/');
  const missed = files.filter(
    (file) =>
      !isLoadedMonitorFile({
        relativePath: relativeDir === '' ? file.name : `${relativeDir}/${file.name}`,
        checkMatch: config?.checks?.checkMatch,
        ignoreDirectoriesMatch: config?.checks?.ignoreDirectoriesMatch,
      }),
  );
  if (missed.length === 0) return;
  if (relativeDir.startsWith('..')) {
    throw new CliError(`--out ${outDir} is outside the project root ${root}; the project would not load the generated files. Choose a directory inside it.`);
  }
  throw new CliError(
    `the project's checks.checkMatch does not load ${relativeDir === '' ? '' : `${relativeDir}/`}${missed[0]!.name}, so the next plan would delete what import adopts. ` +
      `Add '${relativeDir === '' ? '' : `${relativeDir}/`}*.monitor.ts' to checks.checkMatch in ${path.basename(configPath)} (or choose another --out), then run import again. Nothing was written.`,
  );
}

function withImported(document: StateDocument, plan: ImportPlan): StateDocument {
  const resources = { ...document.resources };
  for (const resource of plan.resources) {
    resources[resource.address] = { kind: resource.kind, remoteId: resource.remoteId, applied: resource.applied, dependsOn: [...resource.dependsOn] };
  }
  return { ...document, resources };
}

function printAdoptions(plan: ImportPlan, verb: string): void {
  out(`${verb} ${plan.resources.length} resource${plan.resources.length === 1 ? '' : 's'}:`);
  for (const resource of plan.resources) {
    // Names, ids and warnings quote the service: escaped, so no terminal sequence or line break in them gets through.
    out(`  ${resource.address} ← ${resource.kind} ${printable(String(resource.remoteId))} "${printable(resource.name)}" (${resource.file})`);
    for (const warning of resource.warnings) out(`    warning: ${printable(resource.name)} ${printable(warning)}`);
  }
}

function printVariables(plan: ImportPlan): void {
  if (plan.variables.length === 0) return;
  out('Secrets are read from environment variables; set these before the next plan or apply:');
  for (const variable of plan.variables) {
    const origin = variable.returnedByService ? 'the value the service holds' : 'the service does not return it; use the real value';
    out(`  ${variable.name}  (${variable.address} ${variable.path}; ${origin})`);
  }
}

