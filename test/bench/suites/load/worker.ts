/**
 * One measurement of the `load` bench suite, in a fresh process so peak RSS belongs to it alone:
 * `node --import tsx load/worker.ts <vigil|jiti> <project root>` prints `{ms, peakRssMb, resources}`.
 *
 * - `vigil`: `loadProject` (one esbuild bundle, one evaluation) and its validation.
 * - `jiti`: the per-file baseline, as the Checkly CLI loads projects: the config and then every
 *   matched file imported one by one through jiti's TypeScript loader, then the same validation.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJiti } from 'jiti';
import { Project, withProject } from '@vigil/constructs';
import { loadProject } from '@vigil/engine';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const aliases = {
  vigil: path.join(repoRoot, 'packages/cli/src/index.ts'),
  'vigil/constructs': path.join(repoRoot, 'packages/cli/src/constructs.ts'),
  '@vigil/constructs': path.join(repoRoot, 'packages/constructs/src/index.ts'),
};

const [mode, root] = process.argv.slice(2);
if ((mode !== 'vigil' && mode !== 'jiti') || !root) {
  process.stderr.write('usage: load/worker.ts <vigil|jiti> <project root>\n');
  process.exit(2);
}

async function viaVigil(projectRoot: string): Promise<number> {
  const loaded = await loadProject({ cwd: projectRoot, aliases });
  if (loaded.diagnostics.length > 0) throw new Error(`unexpected diagnostics: ${JSON.stringify(loaded.diagnostics.slice(0, 3))}`);
  return loaded.specs.length;
}

async function viaJiti(projectRoot: string): Promise<number> {
  // No disk cache: every CLI run of the baseline compiles, as every run of vigil bundles.
  const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: true, alias: aliases });
  const project = new Project({ root: projectRoot });
  await withProject(project, async () => {
    const config = (await jiti.import(path.join(projectRoot, 'vigil.config.ts'), { default: true })) as never;
    project.setConfig(config);
    const files = readdirSync(projectRoot, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.monitor.ts') && !file.split(path.sep).includes('node_modules'))
      .sort();
    for (const file of files) await jiti.import(path.join(projectRoot, file));
  });
  const diagnostics = project.validate();
  if (diagnostics.length > 0) throw new Error(`unexpected diagnostics: ${JSON.stringify(diagnostics.slice(0, 3))}`);
  return project.synth().length;
}

const started = process.hrtime.bigint();
const resources = mode === 'vigil' ? await viaVigil(root) : await viaJiti(root);
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const peakRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ ms, peakRssMb, resources })}\n`);
