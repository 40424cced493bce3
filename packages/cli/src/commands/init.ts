import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../errors.js';

/**
 * What git must not track in a Vigil project: the embedded service's database and the state lock.
 * `.vigil/state.json` is deliberately absent: it is the record of what Vigil created and belongs in
 * the repository (or a remote backend), like a Terraform state.
 */
export const GITIGNORE_ENTRIES: readonly string[] = ['.vigil/local/', '.vigil/*.lock'];

const GITIGNORE_HEADER =
  '# vigil: the embedded local service and the state lock. Commit .vigil/state.json (or keep it in a backend).';

/** `My Shop API` -> `my-shop-api`: a logical id made of the characters Vigil allows. */
export function logicalIdFromName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'monitoring' : slug;
}

/** A single-quoted TypeScript string literal, as the rest of the generated code is written. */
function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function configSource(projectName: string): string {
  return `import { defineConfig } from 'vigil';

export default defineConfig({
  projectName: ${quoted(projectName)},
  // State is keyed by this id: changing it later makes Vigil forget what it created.
  logicalId: ${quoted(logicalIdFromName(projectName))},
  checks: {
    checkMatch: ['**/*.monitor.ts'],
    locations: ['eu-west-1', 'us-east-1'],
    frequency: 10,
  },
});
`;
}

const MONITOR_SOURCE = `import { ApiCheck, AssertionBuilder } from 'vigil/constructs';

// One check per endpoint that matters; \`vigil plan\` shows what apply would create.
new ApiCheck('homepage', {
  name: 'Homepage',
  request: {
    url: 'https://example.com/',
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.responseTime().lessThan(2000)],
  },
});
`;

const MONITOR_FILE = path.join('checks', 'homepage.monitor.ts');

/** The lines of `.gitignore` still to add: the Vigil entries it does not already hold. */
function missingGitignoreEntries(existing: string): string[] {
  const present = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  return GITIGNORE_ENTRIES.filter((entry) => !present.has(entry));
}

async function updateGitignore(file: string): Promise<'created' | 'updated' | 'unchanged'> {
  if (!existsSync(file)) {
    await writeFile(file, `${GITIGNORE_HEADER}\n${GITIGNORE_ENTRIES.join('\n')}\n`);
    return 'created';
  }
  const existing = await readFile(file, 'utf8');
  const missing = missingGitignoreEntries(existing);
  if (missing.length === 0) return 'unchanged';
  // Appending keeps whatever the user already ignores; only Vigil's own lines are added.
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  await appendFile(file, `${separator}${GITIGNORE_HEADER}\n${missing.join('\n')}\n`);
  return 'updated';
}

function nextSteps(dir: string, cwd: string): string {
  const relative = path.relative(cwd, dir);
  const cd = relative === '' ? [] : [`  cd ${relative.includes(' ') ? JSON.stringify(relative) : relative}`];
  return [
    '',
    'Next steps:',
    ...cd,
    '  vigil validate                 # check the project offline',
    '  vigil plan                     # what apply would do (embedded local service unless VIGIL_API_URL is set)',
    '  vigil apply                    # make the service match the code',
    '',
    'Commit .vigil/state.json with your monitors (or configure a state backend): it is how Vigil knows',
    'what it created. For editor type-checking, make the project depend on `vigil` (in this repository:',
    '"vigil": "workspace:*"); the CLI itself needs nothing more.',
  ].join('\n');
}

/**
 * `vigil init [DIR]`: scaffolds a project that validates and plans as written. Never overwrites a
 * source file; `.gitignore` is appended to, since it usually holds the user's own entries.
 */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description('create a Vigil project: vigil.config.ts, an example monitor and .gitignore entries')
    .argument('[dir]', 'directory of the new project (created if missing)', '.')
    .option('--name <name>', 'project name (default: the directory name)')
    .addHelpText(
      'after',
      `
Writes vigil.config.ts and checks/homepage.monitor.ts, and adds ${GITIGNORE_ENTRIES.join(' and ')} to
.gitignore (appending to an existing one). Refuses, writing nothing, if either source file exists.
.vigil/state.json is meant to be committed (or kept in a state backend): it records what Vigil created.`,
    )
    .action(async (dir: string, options: { name?: string }) => {
      const root = path.resolve(process.cwd(), dir);
      const targets = ['vigil.config.ts', MONITOR_FILE];
      const existing = targets.filter((file) => existsSync(path.join(root, file)));
      if (existing.length > 0) {
        const listed = existing.map((file) => path.join(path.relative(process.cwd(), root) || '.', file)).join(', ');
        throw new CliError(`refusing to overwrite existing files: ${listed}\nhint: run vigil init in an empty directory, or remove them first.`);
      }
      const projectName = options.name ?? path.basename(root);
      await mkdir(path.join(root, 'checks'), { recursive: true });
      // `wx` so a file created since the check above is still never overwritten.
      await writeFile(path.join(root, 'vigil.config.ts'), configSource(projectName), { flag: 'wx' });
      await writeFile(path.join(root, MONITOR_FILE), MONITOR_SOURCE, { flag: 'wx' });
      const gitignore = await updateGitignore(path.join(root, '.gitignore'));
      const lines = [
        `Created a Vigil project "${projectName}" in ${root}:`,
        '  vigil.config.ts',
        `  ${MONITOR_FILE}`,
        ...(gitignore === 'unchanged' ? [] : [`  .gitignore (${gitignore}: ${GITIGNORE_ENTRIES.join(', ')})`]),
      ];
      process.stdout.write(`${lines.join('\n')}\n${nextSteps(root, process.cwd())}\n`);
    });
}
