/**
 * A WEBHOOK channel's `template`, rendered with Handlebars as the hosted service does, so its blocks
 * (`{{#if GROUP_NAME}}…{{else}}…{{/if}}`, `{{#each TAGS}}{{this}}{{/each}}`, `{{#unless @last}}`)
 * work, e.g. in the Checkly CLI's Microsoft Teams card.
 *
 * - Values are inserted JSON-string-escaped (quotes, newlines, backslashes), so a template that is
 *   JSON stays JSON whatever a check's name holds. They are escaped before rendering and Handlebars
 *   runs with `noEscape`: its own escaping is HTML's, and cannot be swapped per instance. `{{{X}}}`
 *   is escaped the same way (a JSON template would break otherwise). A value is data, never
 *   template: a check named `{{CHECK_ID}}` is sent as that text.
 * - Helpers: Handlebars' built-in blocks (`if`, `unless`, `each`, `with`, `lookup`), and of the
 *   hosted service's own `{{#contains VALUE "text"}}`, `{{$UUID}}` and `{{$RANDOM_NUMBER}}` (also
 *   `{{RANDOM_NUMBER}}`). Any other helper, a partial or a decorator is refused (`knownHelpersOnly`:
 *   a template is not code); prototype properties stay unreachable (Handlebars' default runtime
 *   options). `{{log}}` writes nothing: the service's log is not the template's.
 * - A template that does not parse or render is a `TemplateError` naming the problem and its line;
 *   the sender records the notification FAILED with it, without retrying (the same template would
 *   fail again).
 */
import { randomInt, randomUUID } from 'node:crypto';
import Handlebars from 'handlebars';
import { BoundedMap } from '../bounded-map.js';

/** A variable's value: text, or a list (`TAGS`) that `{{#each}}` walks and `{{TAGS}}` prints comma-separated. */
export type TemplateValue = string | readonly string[];

/** A template the service cannot render; the message names the problem and where it is. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

interface Location {
  line: number;
  column: number;
}

/** A problem found by a helper or the structure check, where it is in the template. */
class Problem extends Error {
  constructor(
    message: string,
    readonly at: Location | undefined,
  ) {
    super(message);
  }
}

const handlebars = Handlebars.create();

const SERVICE_HELPERS = {
  $UUID: () => randomUUID(),
  $RANDOM_NUMBER: () => String(randomInt(0, 1001)),
  RANDOM_NUMBER: () => String(randomInt(0, 1001)),
  /** `{{#contains ALERT_TYPE "RECOVERY"}}…{{else}}…{{/contains}}`; inline or as `(contains …)` it is a boolean. */
  contains(this: unknown, haystack: unknown, needle: unknown, options: Handlebars.HelperOptions) {
    if (options === undefined || typeof (options as { hash?: unknown }).hash !== 'object') {
      throw new Problem('contains needs a value and the text to look for: {{#contains ALERT_TYPE "RECOVERY"}}…{{/contains}}', undefined);
    }
    const text = typeof needle === 'string' || typeof needle === 'number' ? String(needle) : '';
    const found = Array.isArray(haystack) ? haystack.includes(text) : typeof haystack === 'string' && text !== '' && haystack.includes(text);
    if (typeof options.fn !== 'function') return found;
    return found ? options.fn(this) : options.inverse(this);
  },
} as const;

for (const [name, helper] of Object.entries(SERVICE_HELPERS)) handlebars.registerHelper(name, helper as Handlebars.HelperDelegate);
handlebars.registerHelper('log', () => '');
// Errors a built-in helper throws carry no position; its options do.
for (const name of ['if', 'unless', 'each', 'with', 'lookup', 'contains']) {
  const helper = handlebars.helpers[name]!;
  handlebars.registerHelper(name, function (this: unknown, ...args: unknown[]) {
    try {
      return (helper as (...params: unknown[]) => unknown).apply(this, args);
    } catch (error) {
      if (error instanceof Problem && error.at) throw error;
      const loc = (args.at(-1) as { loc?: { start?: Location } } | undefined)?.loc?.start;
      throw new Problem(error instanceof Error ? error.message : String(error), loc);
    }
  });
}

const COMPILE_OPTIONS: CompileOptions = {
  knownHelpersOnly: true,
  knownHelpers: Object.fromEntries(Object.keys(SERVICE_HELPERS).map((name) => [name, true])),
  noEscape: true,
  preventIndent: true,
};

type Compiled = (data: Record<string, unknown>) => string;

/** Compiled templates by their text: a channel's template is compiled once, not per notification. */
const compiled = new BoundedMap<string, Compiled | TemplateError>(200);

/** Renders `template` with `variables`; throws `TemplateError`. */
export function renderWebhookTemplate(template: string, variables: Readonly<Record<string, TemplateValue>>): string {
  let render = compiled.get(template);
  if (render === undefined) {
    render = compile(template);
    compiled.set(template, render);
  }
  if (render instanceof TemplateError) throw render;
  try {
    return render(escapedVariables(variables));
  } catch (error) {
    throw isTemplateProblem(error) ? templateError(error) : error;
  }
}

function compile(template: string): Compiled | TemplateError {
  let program: hbs.AST.Program;
  try {
    // The parser's errors are plain Errors, and all about the template.
    program = handlebars.parse(template);
  } catch (error) {
    return templateError(error);
  }
  try {
    refuseUnsupported(program);
  } catch (error) {
    if (!isTemplateProblem(error)) throw error;
    return templateError(error);
  }
  // Compiles on its first call: a helper the service does not know is reported then, with its line.
  return handlebars.compile(program, COMPILE_OPTIONS);
}

/** Partials and decorators would look names up in a registry templates cannot fill: refused where they are. */
function refuseUnsupported(program: hbs.AST.Program): void {
  const visitor = new Handlebars.Visitor();
  const refuse = (what: string) => (node: hbs.AST.Node) => {
    throw new Problem(`${what} are not supported in webhook templates`, node.loc.start);
  };
  Object.assign(visitor, {
    PartialStatement: refuse('partials ({{> name}})'),
    PartialBlockStatement: refuse('partial blocks ({{#> name}})'),
    Decorator: refuse('decorators ({{* name}})'),
    DecoratorBlock: refuse('decorator blocks ({{#* name}})'),
  });
  visitor.accept(program);
}

/** What the template is at fault for (anything else is a bug here, and not reported as the template's). */
function isTemplateProblem(error: unknown): boolean {
  return error instanceof Problem || error instanceof Handlebars.Exception;
}

function jsonText(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

function escapedVariables(variables: Readonly<Record<string, TemplateValue>>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value === 'string') {
      data[name] = jsonText(value);
    } else {
      const list = value.map(jsonText);
      // `{{TAGS}}` prints the list as text; non-enumerable so `{{#each}}` never sees it.
      Object.defineProperty(list, 'toString', { value: () => list.join(', '), enumerable: false });
      data[name] = list;
    }
  }
  return data;
}

/** One line naming the problem and where it is, whichever part of Handlebars found it. */
function templateError(error: unknown): TemplateError {
  const prefix = 'the webhook template cannot be rendered';
  if (error instanceof Problem) return new TemplateError(`${prefix}: ${error.message}${where(error.at)}`);
  const message = error instanceof Error ? error.message : String(error);
  // "Parse error on line 3:\n<the text near it>\n-----^\nExpecting …, got 'EOF'"
  const parse = /^(?:Parse|Lexical) error on line (\d+)[:.]\s*(?:Unrecognized text\.)?\n(.*)\n-*\^(?:\n(.*))?/s.exec(message);
  if (parse) {
    const [, line, near, expected] = parse;
    const hint = expected?.includes("'OPEN_ENDBLOCK'") && expected.endsWith("got 'EOF'")
      ? ' (a {{#block}} is never closed)'
      : expected?.endsWith("got 'CLOSE_UNESCAPED'")
        ? ' (`}}}` closes a {{{triple}}}: put a space between `}}` and a JSON `}`)'
        : '';
    return new TemplateError(`${prefix}: line ${line}: ${expected ? expected.trim() : 'unrecognized text'}, near \`${near!.replace(/^\.\.\./, '').trim()}\`${hint}`);
  }
  // Handlebars' own exceptions end their message with " - line:column" and also carry them.
  const { lineNumber, column } = error as { lineNumber?: number; column?: number };
  const at = typeof lineNumber === 'number' ? { line: lineNumber, column: column ?? 0 } : undefined;
  return new TemplateError(`${prefix}: ${message.replace(/ - \d+:\d+$/, '')}${where(at)}`);
}

function where(at: Location | undefined): string {
  return at ? ` (line ${at.line}, column ${at.column + 1})` : '';
}
