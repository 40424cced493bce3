import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ENDPOINTS,
  ENDPOINT_IDS,
  fillPath,
  type EndpointBody,
  type EndpointDef,
  type EndpointParams,
  type EndpointQuery,
  type EndpointResponse,
} from './endpoints.js';
import { buildOpenApiDocument } from './openapi.js';

const entries = Object.entries(ENDPOINTS) as Array<[string, EndpointDef]>;

describe('ENDPOINTS', () => {
  it('has no two endpoints with the same method and path', () => {
    const seen = entries.map(([, def]) => `${def.method} ${def.path}`);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('covers every call of the API and its extensions', () => {
    const calls = new Set(entries.map(([, def]) => `${def.method} ${def.path}`));
    const required = [
      'GET /v1/checks', 'GET /v1/checks/{id}', 'POST /v1/checks/api', 'POST /v1/checks/multistep', 'POST /v1/checks',
      'PUT /v1/checks/api/{id}', 'PUT /v1/checks/multistep/{id}', 'PUT /v1/checks/{id}', 'DELETE /v1/checks/{id}',
      'GET /v1/check-results/{checkId}', 'GET /v1/checks/heartbeats/{checkId}/events',
      'POST /v2/check-groups', 'PUT /v2/check-groups/{id}', 'GET /v1/check-groups', 'GET /v1/check-groups/{id}',
      'DELETE /v1/check-groups/{id}', 'GET /v1/triggers/check-groups/{groupId}',
      'GET /v1/analytics/api-checks/{id}', 'GET /v1/analytics/tcp-checks/{id}', 'GET /v1/analytics/multistep-checks/{id}',
      'GET /v1/alert-channels', 'GET /v1/alert-channels/{id}', 'POST /v1/alert-channels', 'PUT /v1/alert-channels/{id}',
      'DELETE /v1/alert-channels/{id}',
      'POST /v1/status-pages/incidents', 'GET /v1/status-pages/incidents/{incidentId}',
      'PUT /v1/status-pages/incidents/{incidentId}', 'DELETE /v1/status-pages/incidents/{incidentId}',
      'POST /v1/status-pages/incidents/{incidentId}/incident-updates',
      'POST /v1/status-pages/services', 'GET /v1/status-pages/services', 'GET /v1/status-pages/services/{id}',
      'PUT /v1/status-pages/services/{id}', 'DELETE /v1/status-pages/services/{id}',
      'GET /v1/status-pages/{statusPageId}/subscriptions',
      'POST /v1/maintenance-windows', 'GET /v1/maintenance-windows', 'GET /v1/maintenance-windows/{id}',
      'PUT /v1/maintenance-windows/{id}', 'DELETE /v1/maintenance-windows/{id}',
      'PATCH /v1/error-groups/{id}', 'GET /v1/error-groups/checks/{checkId}',
      'GET /v1/accounts', 'GET /v1/accounts/{accountId}',
    ];
    expect(required.filter((call) => !calls.has(call))).toEqual([]);
  });

  // A POST that only reads (a query too long for a URL) answers 200 on the real service, and so do
  // the creates its document answers 200 (docs/design-deviations.md).
  const POST_200 = new Set(['analytics.batch', 'statusPageServices.create', 'incidentUpdates.create']);
  it.each(entries)('%s follows the status conventions of the service', (id, def) => {
    const expected = def.method === 'POST' && !POST_200.has(id) ? 201 : def.method === 'DELETE' ? 204 : 200;
    expect(def.status).toBe(expected);
    expect(def.response === undefined).toBe(def.status === 204);
  });

  it.each(entries)('%s declares a params schema with exactly its path placeholders', (_id, def) => {
    const placeholders = [...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    expect(Object.keys(def.params?.shape ?? {}).sort()).toEqual(placeholders.sort());
  });

  it('lists ids in table order', () => {
    expect(ENDPOINT_IDS[0]).toBe('checks.list');
    expect(ENDPOINT_IDS).toContain('checks.createApi');
  });
});

describe('fillPath', () => {
  it('substitutes and encodes path parameters', () => {
    expect(fillPath('/v1/checks/{id}', { id: 'a b' })).toBe('/v1/checks/a%20b');
    expect(fillPath('/v1/check-groups/{id}', { id: 7 })).toBe('/v1/check-groups/7');
  });

  it('refuses a missing parameter by name', () => {
    expect(() => fillPath('/v1/checks/{id}', {})).toThrow('missing path parameter "id" for /v1/checks/{id}');
  });
});

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument() as {
    openapi: string;
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown>; requestBody?: unknown; parameters: Array<{ name: string; in: string; required: boolean }> }>>;
    components: { schemas: Record<string, unknown> };
  };

  it('is OpenAPI 3.1 with every endpoint under its path and method', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const [id, def] of entries) {
      expect(doc.paths[def.path]?.[def.method.toLowerCase()]?.operationId, id).toBe(id);
    }
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(doc));
  });

  it('describes the 400 error body and refers to it from validated calls', () => {
    expect(doc.components.schemas.ErrorBody).toMatchObject({ type: 'object', required: ['statusCode', 'error', 'message'] });
    expect(doc.paths['/v1/checks/api']?.post?.responses['400']).toEqual({
      description: 'Validation failed',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    });
  });

  it('marks required query parameters and path parameters', () => {
    const params = doc.paths['/v1/analytics/api-checks/{id}']?.get?.parameters ?? [];
    expect(params.find((p) => p.name === 'metrics')).toMatchObject({ in: 'query', required: true });
    expect(params.find((p) => p.name === 'limit')).toMatchObject({ in: 'query', required: false });
    expect(params.find((p) => p.name === 'id')).toMatchObject({ in: 'path', required: true });
  });

  it('documents request bodies with defaults as optional input', () => {
    const body = (doc.paths['/v1/checks/api']?.post?.requestBody as { content: Record<string, { schema: { required: string[] } }> })
      .content['application/json']?.schema;
    expect(body?.required).toEqual(['name', 'request']);
  });
});

describe('endpoint types', () => {
  it('derive bodies, queries, params and responses from the table', () => {
    // Assignments are the type test: they compile only if the derived types accept these values.
    const body: EndpointBody<'checks.createApi'> = { name: 'home', request: { url: 'https://example.com' } };
    const query: EndpointQuery<'checks.createApi'> = { autoAssignAlerts: false };
    const params: EndpointParams<'checkGroups.get'> = { id: 7 };
    expect(ENDPOINTS['checks.createApi'].body.parse(body).activated).toBe(true);
    expect(ENDPOINTS['checks.createApi'].query.parse(query)).toEqual({ autoAssignAlerts: false });
    expect(ENDPOINTS['checkGroups.get'].params.parse(params)).toEqual({ id: 7 });
    expectTypeOf<EndpointResponse<'checks.createApi'>['id']>().toEqualTypeOf<string>();
    expectTypeOf<EndpointResponse<'checkGroups.get'>['id']>().toEqualTypeOf<number>();
    expectTypeOf<EndpointResponse<'checks.delete'>>().toEqualTypeOf<undefined>();
  });
});

describe('buildOpenApiDocument headers', () => {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string }> }>> };
  const headers = (path: string, method: string) =>
    (doc.paths[path]?.[method]?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);

  it('offers x-service-account everywhere and Idempotency-Key on POSTs only', () => {
    expect(headers('/v1/checks/api', 'post')).toEqual(['x-service-account', 'Idempotency-Key']);
    expect(headers('/v1/checks/{id}', 'get')).toEqual(['x-service-account']);
  });
});
