/**
 * The plan as a pull-request comment. GitHub refuses comments over 65,536 characters, so the
 * rendering always fits in {@link MARKDOWN_LIMIT}: a summary table by kind, then one collapsed block
 * per resource (destructive changes first, new resources showing only fields that differ from their
 * kind's defaults), added while they fit; the last line says what was left out and how to see it.
 */
import { hasChanges, type Action, type Change, type Diagnostic, type FieldChange, type Plan } from '../plan/types.js';
import { visibleFields } from './defaults.js';
import { ACTION_PHRASE, ACTION_SYMBOL, formatValue, summaryLine } from './values.js';

/** Characters, with room to spare under GitHub's 65,536 for whatever CI wraps around the comment. */
export const MARKDOWN_LIMIT = 60_000;

/** A single value longer than this is cut: one huge list must not push every other resource out. */
const VALUE_LIMIT = 300;

export interface MarkdownOptions {
  /** The saved-plan file a reader can open with `vigil show`, when there is one. */
  readonly savedPlan?: string;
  readonly limit?: number;
  /** The service and account the plan was made against, named under the title (not for the embedded service). */
  readonly target?: { readonly baseUrl: string; readonly accountId: string };
}

/** Up to this many addresses to forget are named; more are counted. */
const FORGET_LISTED = 20;

/** Reviewers look first at what destroys something. */
const ORDER: Record<Action, number> = { replace: 0, delete: 1, update: 2, create: 3, noop: 4 };

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function shortValue(value: unknown): string {
  const text = formatValue(value);
  return text.length <= VALUE_LIMIT ? text : `${text.slice(0, VALUE_LIMIT)}… (${text.length} characters)`;
}

function fieldLine(field: FieldChange, sign: '+' | '!', width: number): string[] {
  const name = field.path.padEnd(width);
  if (sign === '!') {
    if (field.before === undefined) return [`! ${field.path} removed outside vigil (apply restores ${shortValue(field.after)})`];
    if (field.after === undefined) return [`! ${field.path} added outside vigil: ${shortValue(field.before)} (apply removes it)`];
    return [`! ${field.path} changed outside vigil: ${shortValue(field.before)} (apply restores ${shortValue(field.after)})`];
  }
  if (field.before === undefined) return [`+ ${name} = ${shortValue(field.after)}`];
  if (field.after === undefined) return [`- ${name} = ${shortValue(field.before)}`];
  return [`- ${name} = ${shortValue(field.before)}`, `+ ${name} = ${shortValue(field.after)}`];
}

function diffLines(change: Change): string[] {
  const lines: string[] = [];
  if (change.replaces && change.replaces.address !== change.address) lines.push(`- replaces ${change.replaces.address} (id ${change.replaces.remoteId})`);
  const fields = visibleFields(change).fields;
  // Names line up as in the text plan; a freak long one does not push every value far right.
  const width = Math.min(60, fields.reduce((longest, field) => Math.max(longest, field.path.length), 0));
  for (const field of fields) lines.push(...fieldLine(field, '+', width));
  for (const field of change.drift) lines.push(...fieldLine(field, '!', 0));
  if (lines.length === 0) lines.push(`${change.action === 'delete' ? '-' : '~'} ${change.address}`);
  return lines;
}

/** A fence longer than any run of backticks inside, so remote values cannot close it early. */
function fence(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) {
    if (!line.includes('`')) continue;
    for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

function block(change: Change, lines: readonly string[], marks: string): string {
  const summary = `<summary><code>${ACTION_SYMBOL[change.action]} ${change.address}</code> ${ACTION_PHRASE[change.action]}${change.reason === 'drift' ? ' (changed outside vigil)' : ''}</summary>`;
  return ['<details>', summary, '', `${marks}diff`, ...lines, marks, '', '</details>', ''].join('\n');
}

/**
 * The block of `change` in at most `room` characters: whole, or (with `mayCut`) cut after the
 * lines that fit, with a last line counting the rest; `undefined` when not even that fits.
 */
function fittingBlock(change: Change, room: number, mayCut: boolean): { text: string; cut: boolean } | undefined {
  const lines = diffLines(change);
  const marks = fence(lines);
  const whole = block(change, lines, marks);
  if (whole.length <= room) return { text: whole, cut: false };
  if (!mayCut) return undefined;
  // Lengths add up line by line (each plus its newline), so the cut point is found in one pass.
  const frame = block(change, [], marks).length + `… ${lines.length} more lines not shown\n`.length;
  let used = frame;
  let keep = 0;
  while (keep < lines.length && used + lines[keep]!.length + 1 <= room) used += lines[keep++]!.length + 1;
  if (keep === 0) return undefined;
  return { text: block(change, [...lines.slice(0, keep), `… ${lines.length - keep} more lines not shown`], marks), cut: true };
}

function summaryTable(changed: readonly Change[]): string[] {
  const actions: Action[] = ['create', 'update', 'delete', 'replace'];
  const byKind = new Map<string, Record<Action, number>>();
  for (const change of changed) {
    const counts = byKind.get(change.kind) ?? { create: 0, update: 0, delete: 0, replace: 0, noop: 0 };
    counts[change.action] += 1;
    byKind.set(change.kind, counts);
  }
  const rows = [...byKind.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return [
    '| kind | + create | ~ update | - delete | -/+ replace |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(([kind, counts]) => `| ${code(kind)} | ${actions.map((action) => counts[action] || '').join(' | ')} |`),
  ];
}

function noteLines(diagnostics: readonly Diagnostic[]): string[] {
  const warnings = diagnostics.filter((diagnostic) => diagnostic.severity === 'warning');
  if (warnings.length === 0) return [];
  return [...warnings.map((warning) => `> **Note:** ${warning.message}${warning.hint ? ` ${warning.hint}` : ''}`.replace(/\n/g, ' ')), ''];
}

function howToSeeAll(options: MarkdownOptions): string {
  return options.savedPlan
    ? `run ${code(`vigil show ${options.savedPlan}`)}`
    : `run ${code('vigil plan --out plan.json')} and ${code('vigil show plan.json')}`;
}

export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const head = [`### Vigil plan for ${code(plan.project)}`, ''];
  if (options.target) head.push(`Target: ${code(options.target.baseUrl)}, account ${code(options.target.accountId)}`, '');
  if (!hasChanges(plan)) return [...head, '**No changes.** Your monitoring matches the code.', ''].join('\n');

  const changed = plan.changes
    .filter((change) => change.action !== 'noop')
    .sort((a, b) => ORDER[a.action] - ORDER[b.action] || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  head.push(`**${summaryLine(plan)}**`, '');
  if (changed.length > 0) head.push(...summaryTable(changed), '');
  const forgetListed = plan.forget.length <= FORGET_LISTED;
  if (plan.forget.length > 0) {
    const names = forgetListed ? `: ${plan.forget.map(code).join(', ')}` : '';
    head.push(`Deleted outside vigil and no longer in code, so only removed from state${names} (${plan.forget.length}).`, '');
  }
  head.push(...noteLines(plan.diagnostics));

  // What the last line may need: room is kept for it before any block is added.
  const reserve = 600;
  let text = head.join('\n');
  let shown = 0;
  let cut = false;
  for (const change of changed) {
    // Only a resource too big to show whole on its own is cut; others are left out entire.
    const piece = fittingBlock(change, limit - reserve - text.length, shown === 0);
    if (piece === undefined) break;
    text += `\n${piece.text}`;
    shown += 1;
    if (piece.cut) {
      cut = true;
      break;
    }
  }
  const omitted = changed.length - shown;
  const hiddenDefaults = changed.some((change) => visibleFields(change).hidden > 0);
  const leftOut = [
    ...(hiddenDefaults ? ['fields of new resources left at their defaults'] : []),
    ...(cut ? ['part of one resource'] : []),
    ...(omitted > 0 ? [`${omitted} of ${changed.length} resources (to stay under ${limit.toLocaleString('en-US')} characters)`] : []),
    ...(forgetListed ? [] : ['the names of the resources to forget']),
  ];
  const footer =
    leftOut.length === 0
      ? `_Every change is shown above. The same plan as text: ${howToSeeAll(options)}._`
      : `_Not shown: ${leftOut.join('; ')}. To see everything, ${howToSeeAll(options)}._`;
  return `${text}\n${footer}\n`;
}
