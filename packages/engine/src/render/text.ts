/** The Terraform-like text plan. */
import { hasChanges, type Change, type FieldChange, type Plan } from '../plan/types.js';
import { visibleFields } from './defaults.js';
import { ACTION_PHRASE, ACTION_SYMBOL, formatValue, summaryLine } from './values.js';

export interface TextOptions {
  readonly color: boolean;
  /** Every field of a new resource, defaults included (`vigil show`); otherwise only what differs from them. */
  readonly allFields?: boolean;
}

const ANSI = { green: 32, yellow: 33, red: 31, cyan: 36, bold: 1, dim: 2 } as const;
type Tone = keyof typeof ANSI;

function painter(color: boolean) {
  return (tone: Tone, text: string) => (color ? `\u001b[${ANSI[tone]}m${text}\u001b[0m` : text);
}

const TONE: Record<Change['action'], Tone> = { create: 'green', update: 'yellow', delete: 'red', replace: 'red', noop: 'dim' };

const REASON_NOTE: Partial<Record<Change['reason'], string>> = {
  'deleted-remotely': ' (deleted outside vigil)',
  'kind-changed': ' (its kind changed)',
  drift: ' (changed outside vigil)',
};

/**
 * `symbol` for the fields of a new resource; otherwise each field says what happens to it: `+` an
 * element or field added, `-` one removed, `~` one changed.
 */
function fieldLines(changes: readonly FieldChange[], symbol: '+' | undefined, indent: string): string[] {
  // Every `=` of a block lines up, however long the longest name (as in `terraform plan`).
  const width = changes.reduce((longest, change) => Math.max(longest, change.path.length), 0);
  return changes.map((change) => {
    const name = change.path.padEnd(width);
    if (change.before === undefined) return `${indent}${symbol ?? '+'} ${name} = ${formatValue(change.after)}`;
    if (change.after === undefined) return `${indent}${symbol ?? '-'} ${name} = ${formatValue(change.before)}`;
    return `${indent}${symbol ?? '~'} ${name} = ${formatValue(change.before)} → ${formatValue(change.after)}`;
  });
}

function describeChange(change: Change, paint: ReturnType<typeof painter>, allFields: boolean): string[] {
  const symbol = ACTION_SYMBOL[change.action];
  const id = change.remoteId === undefined ? '' : ` (id ${change.remoteId})`;
  const lines = [
    paint('bold', `  # ${change.address} ${ACTION_PHRASE[change.action]}${REASON_NOTE[change.reason] ?? ''}`),
    paint(TONE[change.action], `  ${symbol} ${change.address}${id}`),
  ];
  if (change.replaces && change.replaces.address !== change.address) {
    lines.push(paint('red', `      - replaces ${change.replaces.address} (id ${change.replaces.remoteId})`));
  }
  const fieldSymbol = change.action === 'create' ? '+' : undefined;
  lines.push(...fieldLines(allFields ? change.diff : visibleFields(change).fields, fieldSymbol, '      ').map((line) => paint(TONE[change.action], line)));
  if (change.drift.length > 0) {
    lines.push(paint('cyan', '      drift (reverted by apply):'));
    lines.push(...fieldLines(change.drift, undefined, '        ').map((line) => paint('cyan', line)));
  }
  lines.push('');
  return lines;
}

export function renderText(plan: Plan, options: TextOptions): string {
  const paint = painter(options.color);
  if (!hasChanges(plan)) return 'No changes. Your monitoring matches the code.\n';
  const lines: string[] = ['Vigil will perform the following actions:', ''];
  const changed = plan.changes.filter((change) => change.action !== 'noop');
  for (const change of changed.filter((c) => c.reason !== 'drift')) lines.push(...describeChange(change, paint, options.allFields ?? false));
  const drifted = changed.filter((c) => c.reason === 'drift');
  if (drifted.length > 0) {
    lines.push(paint('bold', 'Drift: changed outside vigil since the last apply (apply reverts it):'), '');
    for (const change of drifted) lines.push(...describeChange(change, paint, options.allFields ?? false));
  }
  if (plan.forget.length > 0) {
    lines.push(paint('bold', 'Deleted outside vigil and no longer in code (removed from state only):'));
    lines.push(...plan.forget.map((address) => `  ${address}`), '');
  }
  for (const warning of plan.diagnostics.filter((diagnostic) => diagnostic.severity === 'warning')) {
    lines.push(paint('yellow', `Warning: ${warning.message}`), ...(warning.hint ? [`  ${warning.hint}`] : []), '');
  }
  lines.push(paint('bold', summaryLine(plan)));
  return `${lines.join('\n')}\n`;
}
