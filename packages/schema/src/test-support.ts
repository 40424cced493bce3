/** Assertions shared by this package's tests (not exported from the package). */
import { expect } from 'vitest';
import type { z } from 'zod';
import { formatIssues } from './errors.js';

/**
 * A schema rejects `input` with exactly these keys and this message — whether or not the caller
 * hands the raw input to `formatIssues`.
 */
export function expectRejected(schema: z.ZodType, input: unknown, want: { keys: string[]; message: string }): void {
  const result = schema.safeParse(input);
  expect(result.success, `expected ${JSON.stringify(input)} to be rejected`).toBe(false);
  if (result.success) return;
  expect(formatIssues(result.error)).toEqual(want);
  expect(formatIssues(result.error, input)).toEqual(want);
}

/** A schema accepts `input`; returns the parsed output. */
export function expectAccepted<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new Error(`expected ${JSON.stringify(input)} to be accepted, got ${JSON.stringify(formatIssues(result.error))}`);
  }
  return result.data;
}
