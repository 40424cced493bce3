/** The plan as a pull-request comment: a summary table, then one collapsible block per resource. */
import { hasChanges, type Change, type Plan } from '../plan/types.js';
import { ACTION_PHRASE, ACTION_SYMBOL, formatValue, summaryLine } from './values.js';

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function diffBlock(change: Change): string[] {
  const lines: string[] = [];
  const sign = change.action === 'create' ? '+' : change.action === 'delete' ? '-' : '~';
  for (const field of change.diff) {
    if (field.before === undefined) lines.push(`+ ${field.path} = ${formatValue(field.after)}`);
    else {
      lines.push(`- ${field.path} = ${formatValue(field.before)}`);
      lines.push(`+ ${field.path} = ${formatValue(field.after)}`);
    }
  }
  for (const field of change.drift) {
    lines.push(`! ${field.path} changed outside vigil: ${formatValue(field.before)} (apply restores ${formatValue(field.after)})`);
  }
  if (lines.length === 0) lines.push(`${sign} ${change.address}`);
  return ['```diff', ...lines, '```'];
}

export function renderMarkdown(plan: Plan): string {
  const lines = [`### Vigil plan for \`${plan.project}\``, ''];
  if (!hasChanges(plan)) {
    lines.push('**No changes.** Your monitoring matches the code.', '');
    return lines.join('\n');
  }
  lines.push(`**${summaryLine(plan)}**`, '', '| | resource | action | reason |', '| --- | --- | --- | --- |');
  const changed = plan.changes.filter((change) => change.action !== 'noop');
  for (const change of changed) {
    lines.push(`| \`${ACTION_SYMBOL[change.action]}\` | \`${escapeCell(change.address)}\` | ${ACTION_PHRASE[change.action]} | ${change.reason} |`);
  }
  for (const address of plan.forget) lines.push(`| | \`${escapeCell(address)}\` | forgotten (deleted outside vigil) | |`);
  lines.push('');
  for (const change of changed) {
    lines.push('<details>', `<summary><code>${ACTION_SYMBOL[change.action]} ${change.address}</code> ${ACTION_PHRASE[change.action]}</summary>`, '');
    lines.push(...diffBlock(change), '', '</details>', '');
  }
  return lines.join('\n');
}
