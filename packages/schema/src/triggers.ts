/** The deprecated check-group trigger. */
import { z } from 'zod';

export const CheckGroupTrigger = z.object({
  id: z.number().int(),
  token: z.string(),
  groupId: z.number().int(),
  created_at: z.string(),
  called_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type CheckGroupTrigger = z.infer<typeof CheckGroupTrigger>;
