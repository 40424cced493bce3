/** `GET /v1/status-pages/incidents` (real API): the latest incidents first, paged by cursor. */
import { z } from 'zod';
import { queryInt } from './helpers.js';
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN } from './limits.js';
import { Incident } from './status-pages.js';

export const IncidentsListQuery = z.object({
  limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(20),
  /** The `nextId` of the previous page. */
  nextId: z.string().min(1).optional(),
});
export type IncidentsListQuery = z.infer<typeof IncidentsListQuery>;

export const IncidentPage = z.object({
  length: z.number(),
  entries: z.array(Incident),
  nextId: z.string().nullable(),
});
export type IncidentPage = z.infer<typeof IncidentPage>;
