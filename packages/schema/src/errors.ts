/**
 * The error body and `formatIssues`, which turns a ZodError into that body's
 * `message` and `validation.keys`.
 *
 * Messages imitate Joi (which the real service uses), because users and tests compare them:
 * the field is named in double quotes by its full path with array indexes in brackets
 * (`"request.assertions[0].source" must be one of [...]`), while `keys` are dotted paths
 * (`request.assertions.0.source`). Messages are derived from issue codes here rather than taken
 * from zod, so they stay stable across zod versions and do not depend on global zod config.
 */
import { z } from 'zod';

/** Where a 400's invalid input came from. */
export const ValidationSource = z.enum(['payload', 'query', 'params']);
export type ValidationSource = z.infer<typeof ValidationSource>;

/** Body of every 4xx/5xx response; `validation` is present on 400 only. */
export const ErrorBody = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
  validation: z.object({ source: ValidationSource, keys: z.array(z.string()) }).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The `error` phrase for each status code the service uses. */
export const HTTP_ERROR_NAMES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

type Issue = z.core.$ZodIssue;

/** The message a schema's error map gives an absent required value (see values.ts). */
export const MISSING_MESSAGE = 'is required';
type PathSegment = PropertyKey;

/** `request.assertions.0.source`: the form of `validation.keys`. */
export function issueKey(path: readonly PathSegment[]): string {
  return path.map(String).join('.');
}

/** `request.assertions[0].source`: the form Joi uses to name a field in a message. */
export function issueLabel(path: readonly PathSegment[]): string {
  if (path.length === 0) return 'value';
  let label = '';
  for (const segment of path) {
    if (typeof segment === 'number') label += `[${segment}]`;
    else label += label === '' ? String(segment) : `.${String(segment)}`;
  }
  return label;
}

const TYPE_PHRASES: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be an integer',
  bigint: 'must be an integer',
  boolean: 'must be a boolean',
  array: 'must be an array',
  object: 'must be of type object',
  date: 'must be a valid date',
  null: 'must be null',
  // A field declared `z.never()` is one the service refuses outright, as Joi's `forbidden()` does.
  never: 'is not allowed',
};

function listValues(values: readonly unknown[]): string {
  return `[${values.map((v) => (v === null ? 'null' : String(v))).join(', ')}]`;
}

function describeBound(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string {
  const small = issue.code === 'too_small';
  const bound = String(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (small && bound === '1') return 'is not allowed to be empty';
      return small
        ? `length must be at least ${bound} characters long`
        : `length must be less than or equal to ${bound} characters long`;
    case 'array':
    case 'set':
      return small ? `must contain at least ${bound} items` : `must contain less than or equal to ${bound} items`;
    default:
      if (small) return inclusive ? `must be greater than or equal to ${bound}` : `must be greater than ${bound}`;
      return inclusive ? `must be less than or equal to ${bound}` : `must be less than ${bound}`;
  }
}

/**
 * The caller's raw input, when given to `formatIssues`: the most reliable way to tell a missing
 * value from a wrong one, since zod 4 leaves `input` off issues by default.
 */
interface FormatContext {
  readonly hasInput: boolean;
  readonly input: unknown;
}

/**
 * Whether the value at `path` is absent from the input: `true`/`false` when the parent object is
 * there to ask, `undefined` when it is not (e.g. the path points into a comma-separated query
 * string that a schema split into a list).
 */
function absentInInput(ctx: FormatContext, path: readonly PathSegment[]): boolean | undefined {
  if (!ctx.hasInput) return undefined;
  let value: unknown = ctx.input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value === undefined;
}

/**
 * Without the input, a missing value is recognised by `input` on the issue (parses with
 * `reportInput: true`) or by zod's own (English, default-locale) message. The unit tests pin this
 * so a zod upgrade that changes the wording fails loudly instead of turning "is required" into
 * "must be a string".
 */
function isMissing(issue: Extract<Issue, { code: 'invalid_type' }>): boolean {
  if ('input' in issue) return issue.input === undefined;
  return /received undefined$/.test(issue.message);
}

/** The phrase after the quoted label, e.g. `is required`. */
function describe(issue: Issue, path: readonly PathSegment[], ctx: FormatContext): string {
  if (issue.message === MISSING_MESSAGE) return MISSING_MESSAGE;
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union') {
    if (absentInInput(ctx, path) === true) return MISSING_MESSAGE;
  }
  switch (issue.code) {
    case 'invalid_type':
      if (isMissing(issue)) return MISSING_MESSAGE;
      return TYPE_PHRASES[issue.expected] ?? `must be of type ${issue.expected}`;
    case 'too_small':
    case 'too_big':
      return describeBound(issue);
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${listValues(issue.values)}` : `must be one of ${listValues(issue.values)}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has an invalid format' : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      // flatten() gives each unknown key its own issue, with the key at the end of its path.
      return 'is not allowed';
    case 'invalid_key':
      return 'has an invalid key';
    case 'invalid_element':
      return 'has an invalid element';
    case 'invalid_union':
      return describeUnion(issue, path, ctx);
    case 'custom':
      return issue.message;
  }
}

/**
 * A discriminated union with an unknown tag lists the allowed tags (zod puts them in `options`).
 * Any other failed union is described by its first branch's first problem at the same path, so a
 * `boolean | "true" | "false"` query flag reads `must be a boolean`.
 */
function describeUnion(issue: Extract<Issue, { code: 'invalid_union' }>, path: readonly PathSegment[], ctx: FormatContext): string {
  const options = (issue as { options?: unknown }).options;
  if (Array.isArray(options)) return `must be one of ${listValues(options)}`;
  const first = issue.errors[0]?.[0];
  if (first && first.path.length === 0) return describe(first, path, ctx);
  return 'does not match any of the allowed types';
}

function message(issue: Issue, path: readonly PathSegment[], ctx: FormatContext): string {
  // Custom issues (superRefine/refine) may carry a complete message that already names the field.
  if (issue.code === 'custom' && issue.message.startsWith('"')) return issue.message;
  return `"${issueLabel(path)}" ${describe(issue, path, ctx)}`;
}

/**
 * Unions are flattened to the issue that best explains them: an issue deeper inside the union
 * (e.g. a bad `config.address` of the EMAIL alert channel) is reported with its full path.
 */
function flatten(issue: Issue, base: readonly PathSegment[]): Array<{ issue: Issue; path: PathSegment[] }> {
  const path = [...base, ...issue.path];
  // `"request.foo" is not allowed`, one per property, keyed by its own path (as Joi reports it).
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ issue, path: [...path, key] }));
  if (issue.code === 'invalid_union' && issue.errors.length === 1 && issue.errors[0]!.length > 0) {
    return issue.errors[0]!.flatMap((inner) => flatten(inner, path));
  }
  // Of `"FALLBACK" | {strategy}`, an object fails only the object branch inside it: report that
  // (`retryStrategy.maxRetries`), as Joi's alternatives do, not the literal it was never meant to be.
  if (issue.code === 'invalid_union') {
    const inside = issue.errors.filter((branch) => branch.length > 0 && branch.every((inner) => inner.path.length > 0));
    if (inside.length === 1) return inside[0]!.flatMap((inner) => flatten(inner, path));
  }
  return [{ issue, path }];
}

/**
 * Turns a ZodError into the `message` and `validation.keys` of a 400 body. Deterministic: issues
 * keep zod's order (the order of the schema's fields), messages are joined with `. `, and keys are
 * unique in first-seen order. Pass the parsed `input` too when you have it: a missing field is then
 * reported as `is required` whatever schema rejected it (e.g. a missing discriminator `type`).
 */
export function formatIssues(error: z.ZodError, ...input: [] | [unknown]): { message: string; keys: string[] } {
  const ctx: FormatContext = { hasInput: input.length > 0, input: input[0] };
  const flat = error.issues.flatMap((issue) => flatten(issue as Issue, []));
  // Sets, not array look-ups: a body with a 20,000-item array of wrong types yields 20,000 issues,
  // and quadratic de-duplication held the server's event loop for 15 s (test/hardening/fuzz).
  const messages = new Set<string>();
  const keys = new Set<string>();
  for (const { issue, path } of flat) {
    messages.add(message(issue, path, ctx));
    keys.add(issueKey(path));
  }
  return { message: [...messages].join('. '), keys: [...keys] };
}
