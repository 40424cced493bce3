/**
 * `vigil show FILE`: renders a plan saved with `vigil plan --out`, offline. It needs no project,
 * target or state, so a reviewer can read the artifact CI uploaded without credentials.
 */
import { Command, Option } from 'commander';
import type { SavedPlan } from '@vigil/engine';
import { CliError } from '../errors.js';
import { useColor } from '../workflow.js';

interface ShowFlags {
  format: 'text' | 'markdown' | 'json';
  json?: boolean;
}

/** Reads and checks a saved plan; every way it can be unusable is a CliError naming the file. */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  const { readFile } = await import('node:fs/promises');
  const { parseSavedPlan, SavedPlanError } = await import('@vigil/engine');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new CliError(`cannot read the saved plan ${file}: ${reason}`, { exitCode: 1 });
  }
  try {
    return parseSavedPlan(text, file);
  } catch (error) {
    if (error instanceof SavedPlanError) throw new CliError(error.message, { exitCode: 1 });
    throw error;
  }
}

/**
 * A saved plan is a file anyone could have edited: control characters in its text (which could
 * rewrite the terminal) are replaced before it is printed as text or markdown.
 */
function withoutControlCharacters<T>(value: T): T {
  if (typeof value === 'string') return value.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, '?') as T;
  if (Array.isArray(value)) return value.map(withoutControlCharacters) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [withoutControlCharacters(key), withoutControlCharacters(inner)])) as T;
  }
  return value;
}

export function registerShow(program: Command): void {
  program
    .command('show')
    .description('print a plan saved with `vigil plan --out` (offline: no project, target or state needed)')
    .argument('<plan-file>', 'the saved plan')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--json', 'same as --format json (the formatVersion 1 document)')
    .addHelpText('after', '\nShows every field of every change; `vigil apply <plan-file>` applies it if it is still what would be done.')
    .action(async (file: string, flags: ShowFlags, command: Command) => {
      const engine = await import('@vigil/engine');
      const saved = await readSavedPlan(file);
      const format = flags.json ? 'json' : flags.format;
      if (format === 'json') {
        process.stdout.write(engine.serializePlan(saved));
        return;
      }
      const plan = withoutControlCharacters(saved);
      if (format === 'markdown') {
        const { namedTarget } = await import('../plan-target.js');
        const target = namedTarget(plan.target);
        process.stdout.write(engine.renderMarkdown(plan, { savedPlan: file, ...(target ? { target } : {}) }));
        return;
      }
      const { baseUrl, accountId } = plan.target;
      const kind = plan.destroy ? 'Saved destroy plan' : 'Saved plan';
      const account = accountId ? `, account ${accountId}` : '';
      const limited = plan.targets && plan.targets.length > 0 ? `, limited to --target ${plan.targets.join(' --target ')}` : '';
      process.stdout.write(`${kind} for project "${plan.project}" on ${baseUrl}${account} (state serial ${plan.state.serial}${limited}).\n\n`);
      process.stdout.write(engine.renderText(plan, { color: useColor(command), allFields: true }));
    });
}
