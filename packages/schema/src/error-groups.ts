/** Error groups. */
import { z } from 'zod';

export const ErrorGroup = z.object({
  id: z.string(),
  checkId: z.string(),
  /** Hash of `cleanedErrorMessage`; equal hashes are one group. */
  errorHash: z.string(),
  rawErrorMessage: z.string(),
  /** The raw message with numbers, hex, UUIDs, timestamps and quoted values replaced. */
  cleanedErrorMessage: z.string(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  archivedUntilNextEvent: z.boolean(),
});
export type ErrorGroup = z.infer<typeof ErrorGroup>;

/** Body of `PATCH /v1/error-groups/{id}` (archiving); at least one field must be sent. */
export const ErrorGroupPatch = z
  .object({ archiveForEver: z.boolean().optional(), archivedUntilNextEvent: z.boolean().optional() })
  .superRefine((value, ctx) => {
    if (value.archiveForEver === undefined && value.archivedUntilNextEvent === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: '"value" must contain at least one of [archiveForEver, archivedUntilNextEvent]', input: value });
    }
  });
export type ErrorGroupPatch = z.infer<typeof ErrorGroupPatch>;
