import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AlertChannelUpdate } from './alert-channels.js';
import { CheckGroupUpdate } from './check-groups.js';
import { ApiCheckUpdate, CheckUpdate, MultiStepCheckUpdate } from './checks.js';
import { MaintenanceWindowUpdate } from './maintenance-windows.js';
import { IncidentUpdate, StatusPageServiceUpdate } from './status-pages.js';

/**
 * PUT merges: whatever the caller omits must stay omitted after parsing, or the
 * server would overwrite stored values with defaults.
 */
describe('every Update schema fills no defaults', () => {
  const cases: Array<[string, z.ZodType, Record<string, unknown>]> = [
    ['ApiCheckUpdate', ApiCheckUpdate, { name: 'renamed' }],
    ['MultiStepCheckUpdate', MultiStepCheckUpdate, { activated: false }],
    ['CheckUpdate', CheckUpdate, { tags: [] }],
    ['CheckGroupUpdate', CheckGroupUpdate, { name: 'g' }],
    ['MaintenanceWindowUpdate', MaintenanceWindowUpdate, { name: 'w' }],
    ['AlertChannelUpdate', AlertChannelUpdate, { type: 'EMAIL', config: { address: 'ops@example.com' } }],
    ['IncidentUpdate', IncidentUpdate, { severity: 'MINOR' }],
    ['StatusPageServiceUpdate', StatusPageServiceUpdate, { name: 's' }],
  ];
  it.each(cases)('%s returns exactly the fields it was given', (_name, schema, body) => {
    expect(schema.parse(body)).toEqual(body);
  });
});
