import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSTRUCTS_REFERENCE, publicExports, renderConstructsReference } from '../../scripts/constructs-reference.js';
import { REPO_ROOT, vigil } from '../support/cli.js';

const DOCS = path.join(REPO_ROOT, 'docs');

/** `--flag` names in the Options block of a commander help text (`-h, --help` excluded). */
function flagsOf(help: string): string[] {
  const options = help.split(/^Options:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...options.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((flag) => flag !== '--help');
}

/** Subcommand names in the Commands block of a commander help text (`help` excluded). */
function commandsOf(help: string): string[] {
  // Up to the first line that is not indented: help text added after the list (`vigil server`'s) is no command.
  const commands = help.split(/^Commands:$/m)[1]?.split(/^\S/m)[0] ?? '';
  return [...commands.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

/** `vigil <args> --help`, spawned once per command for the whole file (each spawn costs a CLI start). */
const helpTexts = new Map<string, Promise<string>>();
function helpOf(...args: string[]): Promise<string> {
  const key = args.join(' ');
  let text = helpTexts.get(key);
  if (text === undefined) {
    text = vigil([...args, '--help'], { cwd: REPO_ROOT }).then((result) => result.stdout);
    helpTexts.set(key, text);
  }
  return text;
}

/** The part of cli.md under `## vigil <command>`, up to the next `## ` heading. */
function sectionOf(markdown: string, command: string): string | undefined {
  const start = markdown.indexOf(`\n## vigil ${command}\n`);
  if (start === -1) return undefined;
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

describe('docs/cli.md', () => {
  let cli: string;
  let topHelp: string;

  beforeAll(async () => {
    cli = await readFile(path.join(DOCS, 'cli.md'), 'utf8');
    topHelp = await helpOf();
  });

  it('documents the global options', () => {
    const globals = cli.slice(cli.indexOf('## Global options'), cli.indexOf('## Target'));
    for (const flag of flagsOf(topHelp)) expect(globals, flag).toContain(`\`${flag}`);
  });

  it('has a section for every command and every flag of each command, as --help lists them', async () => {
    const commands = commandsOf(topHelp);
    expect(commands).toEqual(expect.arrayContaining(['init', 'validate', 'plan', 'apply', 'state', 'server']));
    for (const command of commands) {
      const section = sectionOf(cli, command);
      expect(section, `## vigil ${command}`).toBeDefined();
      const help = await helpOf(command);
      for (const flag of flagsOf(help)) expect(section, `vigil ${command} ${flag}`).toContain(`\`${flag}`);
      for (const subcommand of commandsOf(help)) {
        expect(section, `vigil ${command} ${subcommand}`).toContain(`\`vigil ${command} ${subcommand}`);
        const subHelp = await helpOf(command, subcommand);
        for (const flag of flagsOf(subHelp)) expect(section, `vigil ${command} ${subcommand} ${flag}`).toContain(flag);
      }
    }
  }, 120_000);

  it('mentions no flag that --help does not list', async () => {
    for (const command of commandsOf(topHelp)) {
      const help = await helpOf(command);
      const subHelps = await Promise.all(commandsOf(help).map((sub) => helpOf(command, sub)));
      const known = new Set([...flagsOf(topHelp), ...flagsOf(help), ...subHelps.flatMap(flagsOf), '--help']);
      const documented = [...(sectionOf(cli, command) ?? '').matchAll(/`(--[a-z][a-z-]*)/g)].map((match) => match[1]!);
      for (const flag of documented) expect(known.has(flag), `vigil ${command}: ${flag} is documented but not in --help`).toBe(true);
    }
  }, 120_000);
});

describe('docs/constructs.md', () => {
  it('is what scripts/constructs-reference.ts generates from the current JSDoc (run pnpm docs:constructs)', async () => {
    expect(await readFile(CONSTRUCTS_REFERENCE, 'utf8')).toBe(renderConstructsReference());
  }, 120_000);

  it('has a heading for every public export of vigil/constructs', async () => {
    const reference = await readFile(CONSTRUCTS_REFERENCE, 'utf8');
    const { exports } = publicExports();
    for (const name of exports.keys()) expect(reference, name).toMatch(new RegExp(`### \`${name}\`|\\| \`${name}\` \\|`));
    for (const construct of ['ApiCheck', 'MultiStepCheck', 'CheckGroupV2', 'CheckGroup', 'MaintenanceWindow', 'StatusPageService', 'EmailAlertChannel', 'SlackAlertChannel', 'WebhookAlertChannel', 'SmsAlertChannel', 'PhoneCallAlertChannel', 'PagerdutyAlertChannel', 'OpsgenieAlertChannel']) {
      expect(reference).toContain(`### \`${construct}\``);
    }
  }, 120_000);
});

describe('the documentation', () => {
  const pages = ['getting-started', 'constructs', 'cli', 'state', 'drift', 'local-service', 'migrating-from-checkly', 'design-deviations'];

  it.each(pages)('has docs/%s.md', (page) => {
    expect(existsSync(path.join(DOCS, `${page}.md`))).toBe(true);
  });

  it('links only to files that exist', async () => {
    const files = [path.join(REPO_ROOT, 'README.md'), path.join(REPO_ROOT, 'examples/ci/README.md'), ...readdirSync(DOCS).filter((file) => file.endsWith('.md')).map((file) => path.join(DOCS, file))];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        // README's other sections (e.g. BENCHMARKS.md) belong to other parts of the project.
        if (file.endsWith(`${path.sep}README.md`) && path.dirname(file) === REPO_ROOT && !/^(docs|examples)\//.test(target)) continue;
        expect(existsSync(path.resolve(path.dirname(file), target)), `${path.relative(REPO_ROOT, file)} → ${target}`).toBe(true);
      }
    }
  });
});
