import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withDefaults } from './helpers.js';

describe('withDefaults', () => {
  const nested = { escalationType: 'RUN_BASED', reminders: { amount: 0, interval: 5 }, steps: [{ at: 1 }, { at: [2, 3] }] };
  const schema = z.object(
    withDefaults(
      { name: z.string(), tags: z.array(z.string()).optional(), settings: z.unknown().optional(), count: z.number().optional(), off: z.null().optional() },
      { tags: [] as string[], settings: nested, count: 3, off: null },
    ),
  );

  it('fills in each default as an equal value', () => {
    expect(schema.parse({ name: 'a' })).toEqual({ name: 'a', tags: [], settings: nested, count: 3, off: null });
  });

  it('gives every parse its own arrays and objects, at every depth', () => {
    const first = schema.parse({ name: 'a' }) as { tags: string[]; settings: typeof nested };
    const second = schema.parse({ name: 'b' }) as { tags: string[]; settings: typeof nested };
    expect(first.tags).not.toBe(second.tags);
    expect(first.settings).not.toBe(nested);
    expect(first.settings).not.toBe(second.settings);
    expect(first.settings.reminders).not.toBe(second.settings.reminders);
    expect(first.settings.steps[1]).not.toBe(second.settings.steps[1]);
    expect(first.settings.steps[1]!.at).not.toBe(nested.steps[1]!.at);
    first.tags.push('x');
    first.settings.reminders.amount = 9;
    expect(schema.parse({ name: 'c' })).toEqual({ name: 'c', tags: [], settings: nested, count: 3, off: null });
  });

  it('keeps values the caller gave', () => {
    expect(schema.parse({ name: 'a', tags: ['t'], count: 0 })).toMatchObject({ tags: ['t'], count: 0 });
  });
});
