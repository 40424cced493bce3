/**
 * The dashboard's one way to write HTML: a tagged template that escapes every interpolated value
 * unless it is already `SafeHtml` (made by this same template). Check names, incident texts, error
 * messages, response bodies and tags are typed by users or sent by monitored servers, so a page must
 * never be able to run what they say; escaping by default means a forgotten call cannot open a hole.
 * The escaping itself is the public pages' (`escapeMarkup`), so both web surfaces share one rule.
 */
import { escapeMarkup } from '../public-pages/escape.js';

/** Markup already escaped; the only values the template inserts as they are. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item)).join('');
  // false/null/undefined render nothing, so `${condition && html`…`}` reads naturally.
  if (value === null || value === undefined || value === false) return '';
  return escapeMarkup(String(value as string | number | boolean));
}

export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index++) out += render(values[index]!) + strings[index + 1]!;
  return new SafeHtml(out);
}

/** Joins already-safe fragments. */
export function joinHtml(parts: readonly SafeHtml[], separator = ''): SafeHtml {
  return new SafeHtml(parts.map((part) => part.text).join(separator));
}

/** A query string from the non-empty values, for links that keep a list's filters. */
export function queryOf(values: Readonly<Record<string, string | number | undefined>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** An instant for people: `2026-11-03 14:05:09 UTC`, or an em dash when unknown. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A `<time>` element carrying the machine-readable instant. */
export function timeTag(value: string | number | null | undefined): SafeHtml {
  if (value === null || value === undefined || value === '') return html`<span>—</span>`;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return html`${String(value)}`;
  return html`<time datetime="${date.toISOString()}">${when(value)}</time>`;
}

/** Milliseconds for people. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}
