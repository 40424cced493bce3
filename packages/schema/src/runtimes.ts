/**
 * Runtimes (`GET /v1/runtimes`, real API): the runtime ids Vigil knows (`RUNTIME_IDS`), described as
 * the real service describes them. Vigil's runner uses the local Node and packages whatever the
 * runtime id, so `dependencies` is empty rather than a list we could not honour.
 */
import { z } from 'zod';
import { RUNTIME_IDS, type RuntimeId } from './values.js';

export const RuntimeStage = z.enum(['ALPHA', 'BETA', 'CURRENT', 'DEPRECATED', 'REMOVED', 'STABLE']);

export const Runtime = z.object({
  name: z.string().min(1),
  multiStepSupport: z.boolean(),
  nodeJsVersion: z.string().min(1),
  stage: RuntimeStage.optional(),
  runtimeEndOfLife: z.string().min(1).optional(),
  dependencies: z.record(z.string(), z.string().min(1)),
});
export type Runtime = z.infer<typeof Runtime>;

/** The Node major each runtime id stands for on the real service. */
const NODE_OF: Readonly<Record<RuntimeId, string>> = {
  '2026.04': 'v24',
  '2025.04': 'v22',
  '2024.09': 'v20',
  '2024.02': 'v18',
  '2023.09': 'v18',
  '2023.02': 'v16',
  '2022.10': 'v16',
};

/** Every known runtime, newest first (the first is CURRENT, the rest STABLE). */
export const RUNTIMES: readonly Runtime[] = RUNTIME_IDS.map((name, index) => ({
  name,
  multiStepSupport: true,
  nodeJsVersion: NODE_OF[name],
  stage: index === 0 ? 'CURRENT' : 'STABLE',
  dependencies: {},
}));
