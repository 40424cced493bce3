/** Accounts (spec §2.9, §4.8; beta). `settings` and `alertSettings` are open (spec §2.10). */
import { z } from 'zod';

export const Account = z.object({
  id: z.string(),
  name: z.string(),
  runtimeId: z.string(),
  settings: z.record(z.string(), z.unknown()),
  alertSettings: z.record(z.string(), z.unknown()),
});
export type Account = z.infer<typeof Account>;
