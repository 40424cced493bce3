/**
 * Private locations: `/v1/private-locations`, shapes as the real service's OpenAPI document
 * (`privateLocationCreate`, `privateLocationUpdate`, `commonPrivateLocationSchemaResponse`).
 */
import { z } from 'zod';
import { allOptional, withDefaults } from './helpers.js';

/**
 * The real service's slug pattern: 1 to 30 letters, digits and dashes, never a data-center
 * location's name (`eu-west-1`), so a slug in a check's `privateLocations` cannot be mistaken for one.
 */
export const PRIVATE_LOCATION_SLUG = /^((?!((us(-gov)?|ap|ca|cn|eu|sa|af|me)-(central|(north|south)?(east|west)?)-\d+))[a-zA-Z0-9-]{1,30})$/;

export const PrivateLocationSlug = z.string().regex(PRIVATE_LOCATION_SLUG, {
  message: 'must be 1 to 30 letters, digits or dashes, and not a data-center location name such as "eu-west-1"',
});

const privateLocationFields = {
  name: z.string().min(1),
  slugName: PrivateLocationSlug,
  /** The icon the web app shows; `location` by default. */
  icon: z.string().min(1).optional(),
  /** A proxy for outgoing HTTP calls of API checks run in the location. */
  proxyUrl: z.string().nullable().optional(),
};

const privateLocationCreateShape = withDefaults(privateLocationFields, { icon: 'location', proxyUrl: null });

/** Body of `POST /v1/private-locations`; required `name`, `slugName`. */
export const PrivateLocationCreate = z.object(privateLocationCreateShape);
export type PrivateLocationCreate = z.infer<typeof PrivateLocationCreate>;
export type PrivateLocationCreateInput = z.input<typeof PrivateLocationCreate>;

/**
 * Body of `PUT /v1/private-locations/{id}` (merge; `name` required, as the real document has it).
 * The slug cannot change: a new one is a new location.
 */
const { slugName: _slugName, name, ...updatableFields } = privateLocationFields;
export const PrivateLocationUpdate = z.object({ ...allOptional(updatableFields), name });
export type PrivateLocationUpdate = z.infer<typeof PrivateLocationUpdate>;

/**
 * A private location's agent key as listed: masked (`...6a1e`); the key itself is shown once, when
 * it is created (PrivateLocationKeyCreated), and the service keeps only its digest.
 */
export const PrivateLocationKey = z.object({
  id: z.string(),
  maskedKey: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type PrivateLocationKey = z.infer<typeof PrivateLocationKey>;

/** Answer of `POST /v1/private-locations/{id}/keys`: the only time `rawKey` is shown. */
export const PrivateLocationKeyCreated = PrivateLocationKey.extend({ rawKey: z.string() });
export type PrivateLocationKeyCreated = z.infer<typeof PrivateLocationKeyCreated>;

/** `DELETE /v1/private-locations/{id}/keys/{keyId}`. */
export const PrivateLocationKeyParams = z.object({ id: z.string().min(1), keyId: z.string().min(1) });

/** One agent of a private location as `runningAgents[].agents` lists it. */
export const PrivateLocationAgent = z.object({
  id: z.string(),
  lastSeenAt: z.string(),
  runsInFlight: z.number().describe('Vigil extension: the runs the agent said it was executing at its last poll'),
});

/** Connected agents of one version (the real document's `RunningAgent`). */
export const RunningAgents = z.object({
  version: z.string(),
  /** Agents of another run wire version are refused, so a connected agent is never outdated. */
  isOutdated: z.boolean(),
  count: z.number(),
  agents: z.array(PrivateLocationAgent),
});

/** A private location as the service returns it. */
export const PrivateLocation = z.object({
  ...privateLocationCreateShape,
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  /** Its agent keys, masked. */
  keys: z.array(PrivateLocationKey).optional(),
  /** When an agent of the location last polled or reported (this service process's view); null before any. */
  lastSeen: z.string().nullable().optional(),
  /** Agents connected now (polled within two lease periods). */
  agentCount: z.number().nullable().optional(),
  /** The lowest version among the connected agents; null when none is. */
  minAgentVersion: z.string().nullable().optional(),
  /** Connected agents by version. */
  runningAgents: z.array(RunningAgents).optional(),
});
export type PrivateLocation = z.infer<typeof PrivateLocation>;
