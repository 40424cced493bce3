/** How field values read in plans: compact JSON, with the two placeholders spelled out. */
import { isUnknownRef } from '../plan/plan.js';
import { SENSITIVE, type Action, type Plan } from '../plan/types.js';

export function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
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
