/**
 * The OpenAPI 3.1 document served at `GET /openapi.json`, generated from `ENDPOINTS` so it can never
 * disagree with what the server validates. Request bodies and parameters are described as the
 * caller sends them (zod "input", defaults optional); responses as the service returns them
 * ("output"). Output is deterministic: table order, no timestamps.
 */
import { z } from 'zod';
import { ENDPOINTS, type EndpointDef } from './endpoints.js';
import { ErrorBody } from './errors.js';
import { CLOSED_CATCHALL } from './helpers.js';

type JsonSchema = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/ErrorBody' };

/** Selects the account; absent means the key's own account. */
const ACCOUNT_HEADER = {
  name: 'x-service-account',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: "Account to act on; defaults to the API key's own account",
};

/** A repeated POST with the same key returns the original response (24 h). */
const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Replays the original response of an earlier POST with the same key (24 hours)',
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  // Transforms (query coercions) and refinements have no JSON Schema form; they are described by
  // the schema on their input side, and "any" is the safe fallback for what remains.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (ctx) => {
      const def = (ctx.zodSchema as unknown as z.ZodType)._zod.def as { type: string; catchall?: unknown };
      if (def.type === 'object' && def.catchall === CLOSED_CATCHALL) ctx.jsonSchema.additionalProperties = false;
    },
  });
  return rest as JsonSchema;
}

function parameters(schema: z.ZodObject | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

function errorResponses(def: EndpointDef): Record<string, unknown> {
  const codes: Array<[string, string]> = [];
  if (def.params || def.query || def.body) codes.push(['400', 'Validation failed']);
  codes.push(['401', 'Missing or bad API key'], ['403', 'Account not accessible with this key']);
  if (def.params) codes.push(['404', 'Not found']);
  if (def.method === 'DELETE' && def.path.includes('check-groups')) codes.push(['409', 'Group still holds checks']);
  if (def.conflict !== undefined) codes.push(['409', def.conflict]);
  if (def.body) codes.push(['413', 'Body larger than 2 MiB']);
  codes.push(['429', 'Rate limited; see Retry-After']);
  return Object.fromEntries(
    codes.map(([code, description]) => [code, { description, content: { 'application/json': { schema: ERROR_REF } } }]),
  );
}

function operation(id: string, def: EndpointDef): JsonSchema {
  const op: JsonSchema = {
    operationId: id,
    summary: def.summary,
    tags: [id.split('.')[0]],
    parameters: [
      ...parameters(def.params, 'path'),
      ...parameters(def.query, 'query'),
      ACCOUNT_HEADER,
      ...(def.method === 'POST' ? [IDEMPOTENCY_HEADER] : []),
    ],
  };
  if (def.deprecated) op.deprecated = true;
  if (def.body) {
    op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(def.body, 'input') } } };
  }
  const success = def.response
    ? {
        description: def.list ? 'A page of items (see content-range and link headers)' : 'Success',
        content: { 'application/json': { schema: jsonSchema(def.response, 'output') } },
      }
    : { description: 'No content' };
  op.responses = { [String(def.status)]: success, ...errorResponses(def) };
  return op;
}

/** Builds the OpenAPI 3.1 document of every endpoint in `ENDPOINTS`. */
export function buildOpenApiDocument(options: { serverUrl?: string } = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [id, def] of Object.entries(ENDPOINTS) as Array<[string, EndpointDef]>) {
    const item = (paths[def.path] ??= {});
    item[def.method.toLowerCase()] = operation(id, def);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vigil monitoring service',
      version: '1.0.0',
      description: 'The monitoring service API implemented by `vigil server` (the monitoring API and the extensions Vigil adds, such as state and heartbeat pings).',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: { ErrorBody: jsonSchema(ErrorBody, 'output') },
    },
  };
}
