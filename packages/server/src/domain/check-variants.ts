/**
 * The typed check calls (`POST /v1/checks/{type}`, `PUT /v1/checks/{type}/{id}`) as one table: the
 * routes, seeding and "a check of another type reads as missing" are all derived from it, so a new
 * check type is one row here (plus its endpoints and schemas in `@vigil/schema`).
 */
import { ENDPOINTS, type CheckType, type EndpointId } from '@vigil/schema';
import type { z } from 'zod';

export interface CheckVariantRow {
  readonly checkType: CheckType;
  /** Used in "API check 42 not found". */
  readonly label: string;
  readonly create: EndpointId;
  readonly update: EndpointId;
}

export const CHECK_VARIANTS = [
  { checkType: 'API', label: 'API check', create: 'checks.createApi', update: 'checks.updateApi' },
  { checkType: 'MULTI_STEP', label: 'Multi-step check', create: 'checks.createMultiStep', update: 'checks.updateMultiStep' },
  { checkType: 'HEARTBEAT', label: 'Heartbeat monitor', create: 'checks.createHeartbeat', update: 'checks.updateHeartbeat' },
  { checkType: 'BROWSER', label: 'Browser check', create: 'checks.createBrowser', update: 'checks.updateBrowser' },
  { checkType: 'PLAYWRIGHT', label: 'Playwright check', create: 'checks.createPlaywright', update: 'checks.updatePlaywright' },
  { checkType: 'DNS', label: 'DNS monitor', create: 'checks.createDns', update: 'checks.updateDns' },
  { checkType: 'TCP', label: 'TCP monitor', create: 'checks.createTcp', update: 'checks.updateTcp' },
  { checkType: 'URL', label: 'URL monitor', create: 'checks.createUrl', update: 'checks.updateUrl' },
  { checkType: 'SSL', label: 'SSL monitor', create: 'checks.createSsl', update: 'checks.updateSsl' },
  { checkType: 'ICMP', label: 'ICMP monitor', create: 'checks.createIcmp', update: 'checks.updateIcmp' },
  { checkType: 'TRACEROUTE', label: 'Traceroute monitor', create: 'checks.createTraceroute', update: 'checks.updateTraceroute' },
  { checkType: 'GRPC', label: 'gRPC monitor', create: 'checks.createGrpc', update: 'checks.updateGrpc' },
] as const satisfies readonly CheckVariantRow[];

/** A typed call's row, or `generic` for `POST /v1/checks` / `PUT /v1/checks/{id}`, which take any type. */
export type CheckVariant = CheckVariantRow | 'generic';

const BY_TYPE = new Map<unknown, CheckVariantRow>(CHECK_VARIANTS.map((row) => [row.checkType, row]));

/** The typed row for a stored or seeded `checkType`; `generic` for types without typed calls. */
export function variantOfType(checkType: unknown): CheckVariant {
  return BY_TYPE.get(checkType) ?? 'generic';
}

/** The body schema a variant's create call validates with. */
export function createSchemaOf(variant: CheckVariant): z.ZodType {
  return (ENDPOINTS[variant === 'generic' ? 'checks.create' : variant.create] as { body: z.ZodType }).body;
}
