import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorBody, formatIssues, issueKey, issueLabel } from './errors.js';
import { queryBoolean } from './helpers.js';

function format(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a failure');
  return formatIssues(result.error);
}

describe('formatIssues', () => {
  it('names a missing field "is required", also when zod leaves the input off the issue', () => {
    const schema = z.object({ name: z.string() });
    expect(format(schema, {})).toEqual({ message: '"name" is required', keys: ['name'] });
    const reported = schema.safeParse({}, { reportInput: true });
    expect(reported.success ? null : formatIssues(reported.error)).toEqual({ message: '"name" is required', keys: ['name'] });
  });

  it('labels nested fields with brackets for indexes and keys them with dots', () => {
    const schema = z.object({ request: z.object({ assertions: z.array(z.object({ source: z.enum(['A', 'B']) })) }) });
    expect(format(schema, { request: { assertions: [{ source: 'C' }] } })).toEqual({
      message: '"request.assertions[0].source" must be one of [A, B]',
      keys: ['request.assertions.0.source'],
    });
    expect(issueKey(['locations', 0])).toBe('locations.0');
    expect(issueLabel(['locations', 0])).toBe('locations[0]');
    expect(issueLabel([])).toBe('value');
  });

  const phrases: Array<[string, z.ZodType, unknown, string]> = [
    ['wrong type', z.string(), 5, '"value" must be a string'],
    ['not an integer', z.number().int(), 1.5, '"value" must be an integer'],
    ['not a number', z.number(), 'x', '"value" must be a number'],
    ['not a boolean', z.boolean(), 'yes', '"value" must be a boolean'],
    ['not an array', z.array(z.string()), {}, '"value" must be an array'],
    ['not an object', z.object({}), [], '"value" must be of type object'],
    ['inclusive minimum', z.number().min(1), 0, '"value" must be greater than or equal to 1'],
    ['exclusive minimum', z.number().gt(1), 1, '"value" must be greater than 1'],
    ['inclusive maximum', z.number().max(30), 31, '"value" must be less than or equal to 30'],
    ['empty string', z.string().min(1), '', '"value" is not allowed to be empty'],
    ['short string', z.string().min(3), 'ab', '"value" length must be at least 3 characters long'],
    ['long string', z.string().max(2), 'abc', '"value" length must be less than or equal to 2 characters long'],
    ['too many items', z.array(z.string()).max(1), ['a', 'b'], '"value" must contain less than or equal to 1 items'],
    ['too few items', z.array(z.string()).min(1), [], '"value" must contain at least 1 items'],
    ['one literal', z.literal('X'), 'Y', '"value" must be [X]'],
    ['literal set', z.literal([1, 2]), 3, '"value" must be one of [1, 2]'],
    ['bad format', z.email(), 'x', '"value" must be a valid email'],
    ['boolean query flag', queryBoolean(), 'maybe', '"value" must be a boolean'],
    ['custom message without a label', z.string().refine(() => false, { error: 'is odd' }), 'a', '"value" is odd'],
    ['custom message that names its field', z.string().refine(() => false, { error: '"x" is odd' }), 'a', '"x" is odd'],
  ];
  it.each(phrases)('reads like Joi for %s', (_name, schema, input, message) => {
    expect(format(schema, input).message).toBe(message);
  });

  it('reports an unknown discriminator with the allowed tags at the tag path', () => {
    const schema = z.discriminatedUnion('type', [
      z.object({ type: z.literal('A'), a: z.string() }),
      z.object({ type: z.literal('B') }),
    ]);
    expect(format(schema, { type: 'C' })).toEqual({ message: '"type" must be one of [A, B]', keys: ['type'] });
    expect(format(schema, { type: 'A' })).toEqual({ message: '"a" is required', keys: ['a'] });
  });

  it('joins several problems in schema order and lists each key once', () => {
    const schema = z.object({ a: z.string(), b: z.array(z.number().max(1)) });
    expect(format(schema, { b: [2, 3] })).toEqual({
      message: '"a" is required. "b[0]" must be less than or equal to 1. "b[1]" must be less than or equal to 1',
      keys: ['a', 'b.0', 'b.1'],
    });
  });
});

describe('formatIssues on a huge invalid list', () => {
  it('formats 20,000 issues in linear time, each key once and in order', () => {
    const schema = z.object({ items: z.array(z.object({ a: z.string() })) });
    const input = { items: Array.from({ length: 20_000 }, (_, i) => i) };
    const result = schema.safeParse(input);
    // Quadratic de-duplication took ~15 s here, linear takes milliseconds; a regression shows as a slow
    // run, not as a wall-time assertion that a loaded machine could trip.
    const formatted = result.success ? null : formatIssues(result.error, input);
    expect(formatted?.keys).toHaveLength(20_000);
    expect(formatted?.keys.slice(0, 2)).toEqual(['items.0', 'items.1']);
    expect(formatted?.message.startsWith('"items[0]" must be of type object. "items[1]" must be of type object')).toBe(true);
  });
});

describe('ErrorBody', () => {
  it('accepts the 400 body of the service and a body without validation', () => {
    expect(
      ErrorBody.parse({
        statusCode: 400,
        error: 'Bad Request',
        message: '"frequencyOffset" must be 10, 20 or 30 when frequency is 0',
        validation: { source: 'payload', keys: ['frequencyOffset'] },
      }).validation?.keys,
    ).toEqual(['frequencyOffset']);
    expect(ErrorBody.parse({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' }).validation).toBeUndefined();
  });
});

describe('formatIssues with the raw input', () => {
  const channel = z.discriminatedUnion('type', [z.object({ type: z.literal('A') }), z.object({ type: z.literal('B') })]);

  it('reports a missing discriminator as required', () => {
    const result = channel.safeParse({});
    expect(result.success ? null : formatIssues(result.error, {})).toEqual({ message: '"type" is required', keys: ['type'] });
    expect(result.success ? null : formatIssues(result.error)).toEqual({ message: '"type" must be one of [A, B]', keys: ['type'] });
  });

  it('does not mistake an item of a split query string for a missing value', () => {
    const schema = z.object({ m: z.string().transform((s) => s.split(',')).pipe(z.array(z.enum(['a', 'b']))) });
    const result = schema.safeParse({ m: 'a,c' });
    expect(result.success ? null : formatIssues(result.error, { m: 'a,c' })).toEqual({ message: '"m[1]" must be one of [a, b]', keys: ['m.1'] });
  });
});
