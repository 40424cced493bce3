import { existsSync, realpathSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_NAME, PUBLISHED_ON_REGISTRY, VENDOR_DIR, tarballName } from '@vigil/constructs/package-name';
import { CliError, usageError } from '../errors.js';
import { VERSION } from '../version.js';
import { INIT_STATE_BACKENDS, REMOTE_GITIGNORE_ENTRIES, gitignoreHeader, quoted, stateIgnoredBy, stateNote, stateSource, type InitStateBackend } from './init-state.js';

/**
 * What git must not track in a Vigil project with local state: what Vigil writes that is not the
 * record of what it created. `.vigil/state.json` (and its `.wal` log after a crash) are deliberately
 * absent: with the local backend they belong in the repository, like a Terraform state
 * (docs/state.md). With a remote backend nothing under `.vigil/` is the record: all of it is ignored.
 */
export const GITIGNORE_ENTRIES: readonly string[] = [
  '.vigil/local/', // the embedded local service's database
  '.vigil/server/', // `vigil server --data .vigil/server`, as the docs suggest
  '.vigil/tmp/', // bundles of a load in progress
  '.vigil/*.lock', // the state lock
  '.vigil/*.tmp', // a state write cut short by a crash
];

/** `node_modules` in any of the forms people write it. */
const NODE_MODULES_ENTRIES = new Set(['node_modules', 'node_modules/', '/node_modules', '/node_modules/', '**/node_modules', '**/node_modules/']);

/** Scripts added to package.json, unless one of that name exists already. */
const SCRIPTS: Readonly<Record<string, string>> = {
  'vigil:validate': 'vigil validate',
  'vigil:plan': 'vigil plan',
  'vigil:apply': 'vigil apply',
  'vigil:typecheck': 'tsc --noEmit',
};

/**
 * The TypeScript a new project type-checks with (`vigil:typecheck`); README.md and
 * docs/getting-started.md install the same range (test/e2e/init.test.ts holds them to it).
 */
export const TYPESCRIPT_RANGE = '^5.9.3';
/**
 * Node's types, for monitors that read `process.env`: the tsconfig lists them in `types`, because
 * TypeScript 6 no longer includes every `@types` package by default. Node 20 is what Vigil runs on.
 */
export const NODE_TYPES_RANGE = '^20.19.0';

/** `My Shop API` -> `my-shop-api`: a logical id made of the characters Vigil allows. */
export function logicalIdFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'monitoring' : slug;
}

function configSource(projectName: string, backend: InitStateBackend): string {
  const logicalId = logicalIdFromName(projectName);
  return `import { defineConfig } from '${PACKAGE_NAME}';

export default defineConfig({
  projectName: ${quoted(projectName)},
  // State is keyed by this id: changing it later makes Vigil forget what it created.
  logicalId: ${quoted(logicalId)},
${stateSource(backend, logicalId)}  checks: {
    checkMatch: ['**/*.monitor.ts'],
    locations: ['eu-west-1', 'us-east-1'],
    frequency: 10,
  },
});
`;
}

const MONITOR_SOURCE = `import { ApiCheck, AssertionBuilder } from '${PACKAGE_NAME}/constructs';

// One check per endpoint that matters; \`vigil plan\` shows what apply would create.
new ApiCheck('homepage', {
  name: 'Homepage',
  request: {
    url: 'https://example.com/',
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.responseTime().lessThan(2000)],
  },
});
`;

/**
 * Type-checks the config and the monitors (`tsc --noEmit`) the way Vigil reads them: ES modules
 * resolved as a bundler does, since Vigil bundles them with esbuild before running them.
 */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    noEmit: true,
    isolatedModules: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['vigil.config.ts', '**/*.monitor.ts'],
};

const MONITOR_FILE = path.join('checks', 'homepage.monitor.ts');
const CONFIG_FILE = 'vigil.config.ts';
/** Any of these makes the directory a Vigil project already: a second config would be ambiguous. */
const CONFIG_NAMES = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].map((extension) => `vigil.config${extension}`);

type Outcome = 'created' | 'updated' | 'unchanged';

interface PackageJson {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  [key: string]: unknown;
}

/** The lines of `.gitignore` still to add: the Vigil entries (and node_modules) it does not already hold. */
function missingGitignoreEntries(existing: string, backend: InitStateBackend): string[] {
  const present = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = (backend === 'local' ? GITIGNORE_ENTRIES : REMOTE_GITIGNORE_ENTRIES).filter((entry) => !present.has(entry));
  if (![...present].some((line) => NODE_MODULES_ENTRIES.has(line))) missing.push('node_modules/');
  return missing;
}

async function updateGitignore(file: string, backend: InitStateBackend): Promise<{ outcome: Outcome; added: string[]; stateIgnoredBy: string | undefined }> {
  const existing = existsSync(file) ? await readFile(file, 'utf8') : undefined;
  const missing = missingGitignoreEntries(existing ?? '', backend);
  const header = gitignoreHeader(backend);
  const ignoredBy = stateIgnoredBy(existing ?? '');
  if (existing === undefined) {
    await writeFile(file, `${header}\n${missing.join('\n')}\n`);
    return { outcome: 'created', added: missing, stateIgnoredBy: undefined };
  }
  if (missing.length === 0) return { outcome: 'unchanged', added: [], stateIgnoredBy: ignoredBy };
  // Appending keeps whatever the user already ignores; only Vigil's own lines are added.
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  await appendFile(file, `${separator}${header}\n${missing.join('\n')}\n`);
  return { outcome: 'updated', added: missing, stateIgnoredBy: ignoredBy };
}

/** The existing package.json, parsed, with the indentation it was written with; refuses a broken one. */
async function readPackageJson(file: string, shown: string): Promise<{ manifest: PackageJson; indent: string } | undefined> {
  if (!existsSync(file)) return undefined;
  const text = await readFile(file, 'utf8');
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${shown} is not valid JSON (${(error as Error).message}); nothing was written\nhint: fix it, then run vigil init again.`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new CliError(`${shown} does not hold a JSON object; nothing was written\nhint: fix it, then run vigil init again.`);
  }
  return { manifest: manifest as PackageJson, indent: /^[ \t]+(?=")/m.exec(text)?.[0] ?? '  ' };
}

function dependsOn(manifest: PackageJson, name: string): boolean {
  return manifest.dependencies?.[name] !== undefined || manifest.devDependencies?.[name] !== undefined;
}

/**
 * The dependency on Vigil's package to add, if any: never a registry range on a name this project
 * has not published (whoever published it first would be installed), so before publication only a
 * tarball vendored in the project, `file:vendor/<tarball>`, which npm records with its integrity.
 */
function packageSpec(root: string): string | undefined {
  if (PUBLISHED_ON_REGISTRY) return `^${VERSION}`;
  const vendored = `${VENDOR_DIR}/${tarballName(VERSION)}`;
  return existsSync(path.join(root, vendored)) ? `file:${vendored}` : undefined;
}

/**
 * Adds the Vigil package (see {@link packageSpec}), `typescript` and `@types/node` dev dependencies and the
 * `vigil:*` scripts that are missing; never changes an entry that exists. Creates the file when
 * there is none.
 */
async function updatePackageJson(
  file: string,
  existing: { manifest: PackageJson; indent: string } | undefined,
  projectName: string,
  vigilSpec: string | undefined,
): Promise<{ outcome: Outcome; added: string[] }> {
  const manifest: PackageJson = existing?.manifest ?? { name: logicalIdFromName(projectName), private: true };
  const added: string[] = [];
  const scripts = { ...(manifest.scripts ?? {}) };
  for (const [name, command] of Object.entries(SCRIPTS)) {
    if (scripts[name] !== undefined) continue;
    scripts[name] = command;
    added.push(`scripts.${name}`);
  }
  const devDependencies = { ...(manifest.devDependencies ?? {}) };
  const wanted = [
    ...(vigilSpec === undefined ? [] : [[PACKAGE_NAME, vigilSpec] as const]),
    ['typescript', TYPESCRIPT_RANGE] as const,
    ['@types/node', NODE_TYPES_RANGE] as const,
  ];
  for (const [name, range] of wanted) {
    if (dependsOn(manifest, name)) continue;
    devDependencies[name] = range;
    added.push(`devDependencies.${name}`);
  }
  if (existing && added.length === 0) return { outcome: 'unchanged', added };
  const updated: PackageJson = { ...manifest, scripts, devDependencies };
  await writeFile(file, `${JSON.stringify(updated, null, existing?.indent ?? '  ')}\n`, existing ? {} : { flag: 'wx' });
  return { outcome: existing ? 'updated' : 'created', added };
}

/** Whether `name` resolves from the project directory, as `npx` and `tsc` there would find it. */
function resolvableFrom(root: string, name: string): boolean {
  try {
    createRequire(path.join(root, 'package.json')).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/**
 * How to run the CLI from the new project, as printed in the next steps: `npx vigil` where the
 * project has (or, after `npm install`, will have) the package; the running script itself when
 * this is a source checkout of Vigil, whose package the project cannot install (nor type-check
 * against) until it is packed: `pnpm pack:cli`.
 */
function vigilCommand(root: string): { install: boolean; run: string; typecheck: boolean } {
  const hasVigil = resolvableFrom(root, PACKAGE_NAME);
  const script = process.argv[1] ? realpathSync(process.argv[1]) : undefined;
  const sourceCheckout = script !== undefined && existsSync(path.join(path.dirname(script), '..', 'src', 'main.ts'));
  if (!hasVigil && sourceCheckout) return { install: false, run: `node ${script}`, typecheck: false };
  return { install: !hasVigil || !resolvableFrom(root, 'typescript'), run: 'npx vigil', typecheck: true };
}

function nextSteps(root: string, cwd: string, declared: boolean, state: string[]): string {
  const relative = path.relative(cwd, root);
  const cd = relative === '' ? [] : [`  cd ${relative.includes(' ') ? JSON.stringify(relative) : relative}`];
  const { install, run, typecheck } = vigilCommand(root);
  const step = (command: string, why: string) => `  ${command.padEnd(Math.max(30, run.length + 13))} # ${why}`;
  return [
    '',
    'Next steps:',
    ...cd,
    ...(install && declared ? [step('npm install', `installs ${PACKAGE_NAME}, typescript and @types/node`)] : []),
    ...(install && !declared
      ? [
          `  # ${PACKAGE_NAME} is not on the npm registry yet: install it from its tarball, kept in the repository`,
          `  # (pnpm pack:cli in a clone of Vigil builds it; see docs/getting-started.md)`,
          step(`mkdir -p ${VENDOR_DIR} && cp /path/to/${tarballName(VERSION)} ${VENDOR_DIR}/`, 'commit it: npm ci installs it from there'),
          step(`npm install -D ./${VENDOR_DIR}/${tarballName(VERSION)}`, `installs ${PACKAGE_NAME}, typescript and @types/node`),
        ]
      : []),
    step(`${run} validate`, 'check the project offline'),
    step(`${run} plan`, 'what apply would do (embedded local service unless VIGIL_API_URL is set)'),
    step(`${run} apply`, 'make the service match the code'),
    ...(typecheck ? [step('npx tsc --noEmit', 'type-check the config and the monitors')] : []),
    '',
    ...state,
    'Run vigil from the project directory or any directory below it.',
  ].join('\n');
}

/**
 * `vigil init [DIR]`: scaffolds a project that validates, plans and type-checks as written. Never
 * overwrites a file: the config and the example monitor are refused if present, package.json gets
 * only the entries it lacks, an existing tsconfig.json is left as it is, and `.gitignore` is
 * appended to.
 */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description('create a Vigil project: vigil.config.ts, an example monitor, package.json, tsconfig.json and .gitignore entries')
    .argument('[dir]', 'directory of the new project (created if missing)', '.')
    .option('--name <name>', 'project name (default: the directory name)')
    .option('--state <backend>', `where state is kept: ${INIT_STATE_BACKENDS.join(', ')} (default local: .vigil/state.json, committed)`, 'local')
    .addHelpText(
      'after',
      `
Writes vigil.config.ts and ${MONITOR_FILE.split(path.sep).join('/')}; adds the typescript and @types/node dev dependencies, ${
        PUBLISHED_ON_REGISTRY
          ? `the ${PACKAGE_NAME} one`
          : `the ${PACKAGE_NAME} one if ${VENDOR_DIR}/${tarballName(VERSION)}
is there (as file:${VENDOR_DIR}/…: the package is not on the npm registry yet)`
      }, and vigil:* scripts to package.json (creating it if missing, never changing an existing entry);
writes a tsconfig.json that type-checks the monitors unless one exists; and adds
${GITIGNORE_ENTRIES.join(', ')} (and node_modules/) to .gitignore.
Refuses, writing nothing, if a vigil.config.* or the example monitor exists, or package.json is
not valid JSON.

State records what Vigil created. With --state local (the default) it is .vigil/state.json, meant
to be committed. With --state service, http, postgres or s3 the config names that backend, nothing
under .vigil/ is committed (.gitignore gets .vigil/ instead), and the next steps say what to export.
Either way, vigil state migrate --from local|service|postgres|s3://bucket/key|URL moves state later.`,
    )
    .action(async (dir: string, options: { name?: string; state: string }) => {
      const backend = INIT_STATE_BACKENDS.find((name) => name === options.state);
      if (backend === undefined) throw usageError(`--state ${JSON.stringify(options.state)} is not a state backend: use ${INIT_STATE_BACKENDS.join(', ')}`);
      const root = path.resolve(process.cwd(), dir);
      const shown = (file: string) => path.join(path.relative(process.cwd(), root) || '.', file);
      const existing = [...CONFIG_NAMES, MONITOR_FILE].filter((file) => existsSync(path.join(root, file)));
      if (existing.length > 0) {
        throw new CliError(
          `refusing to overwrite existing files: ${existing.map(shown).join(', ')}\nhint: run vigil init in a directory without a Vigil project, or remove them first.`,
        );
      }
      const packageJson = await readPackageJson(path.join(root, 'package.json'), shown('package.json'));
      const projectName = options.name ?? path.basename(root);

      await mkdir(path.join(root, 'checks'), { recursive: true });
      // `wx` so a file created since the checks above is still never overwritten.
      await writeFile(path.join(root, CONFIG_FILE), configSource(projectName, backend), { flag: 'wx' });
      await writeFile(path.join(root, MONITOR_FILE), MONITOR_SOURCE, { flag: 'wx' });
      const vigilSpec = packageSpec(root);
      const pkg = await updatePackageJson(path.join(root, 'package.json'), packageJson, projectName, vigilSpec);
      const tsconfigExists = existsSync(path.join(root, 'tsconfig.json'));
      if (!tsconfigExists) await writeFile(path.join(root, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`, { flag: 'wx' });
      const gitignore = await updateGitignore(path.join(root, '.gitignore'), backend);

      const lines = [
        `Created a Vigil project "${projectName}" in ${root}:`,
        `  ${CONFIG_FILE}`,
        `  ${MONITOR_FILE}`,
        pkg.outcome === 'unchanged' ? '  package.json (unchanged: it has everything already)' : `  package.json (${pkg.outcome}: ${pkg.added.join(', ')})`,
        tsconfigExists
          ? '  tsconfig.json (exists, left as it is: make sure it includes vigil.config.ts and the *.monitor.ts files)'
          : '  tsconfig.json',
        ...(gitignore.outcome === 'unchanged' ? [] : [`  .gitignore (${gitignore.outcome}: ${gitignore.added.join(', ')})`]),
      ];
      const declared = vigilSpec !== undefined || (packageJson !== undefined && dependsOn(packageJson.manifest, PACKAGE_NAME));
      process.stdout.write(`${lines.join('\n')}\n${nextSteps(root, process.cwd(), declared, stateNote(backend, gitignore.stateIgnoredBy))}\n`);
    });
}
