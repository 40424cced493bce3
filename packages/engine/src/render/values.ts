/** How field values read in plans: compact JSON, with the two placeholders spelled out. */
import { isUnknownRef } from '../plan/plan.js';
import { SENSITIVE, type Action, type Plan } from '../plan/types.js';

/** Scripts and other long text: the first line and a size, since a plan is read, not diffed by eye. */
function formatLongString(text: string): string {
  const lines = text.split('\n');
  const first = lines[0]!.length > 60 ? `${lines[0]!.slice(0, 60)}…` : lines.length > 1 ? `${lines[0]}…` : lines[0]!;
  return `${JSON.stringify(first)} (${lines.length} line${lines.length === 1 ? '' : 's'}, ${Buffer.byteLength(text)} bytes)`;
}

export function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
  if (typeof value === 'string' && (value.length > 100 || value.includes('\n'))) return formatLongString(value);
  if (value === SENSITIVE) return SENSITIVE;
  if (isUnknownRef(value)) return `(known after apply: ${value.$unknown})`;
  return JSON.stringify(value, (_key, inner: unknown) => (isUnknownRef(inner) ? `(known after apply: ${inner.$unknown})` : inner));
}

export const ACTION_SYMBOL: Record<Action, string> = {
  create: '+',
  update: '~',
  delete: '-',
  replace: '-/+',
  noop: ' ',
};

export const ACTION_PHRASE: Record<Action, string> = {
  create: 'will be created',
  update: 'will be updated in place',
  delete: 'will be destroyed',
  replace: 'must be replaced',
  noop: 'is unchanged',
};

/** Terraform's summary: a replace is one add and one destroy. */
export function summaryLine(plan: Plan): string {
  const { create, update, delete: destroy, replace } = plan.summary;
  return `Plan: ${create + replace} to add, ${update} to change, ${destroy + replace} to destroy.`;
}
