import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@vigil/schema';
import { z } from 'zod';
import { COMPILE_AFTER_PARSES, callEndpointData, fillPath, parseResponse } from './endpoint.js';
import { ResponseShapeError } from './errors.js';
import type { HttpRequest, HttpResponse, Transport } from './transport.js';

describe('fillPath', () => {
  it.each([
    ['/v1/checks/{id}', { id: 'abc' }, '/v1/checks/abc'],
    ['/v2/check-groups/{id}', { id: 12 }, '/v2/check-groups/12'],
    ['/v1/status-pages/incidents/{incidentId}/incident-updates', { incidentId: 'a b/c' }, '/v1/status-pages/incidents/a%20b%2Fc/incident-updates'],
    ['/v1/accounts', undefined, '/v1/accounts'],
    ['/v1/{kind}/{id}', { kind: 'checks', id: 7 }, '/v1/checks/7'],
    ['{a}{b}', { a: 'x', b: 'y' }, 'xy'],
  ])('fills %s with %j', (template, params, want) => {
    expect(fillPath(template, params)).toBe(want);
  });

  it('refuses a missing parameter as a caller bug', () => {
    expect(() => fillPath('/v1/checks/{id}', {})).toThrow('path parameter "id" of /v1/checks/{id} is missing; this is a bug in the caller');
  });

  it('refuses a missing parameter after the template was filled once', () => {
    expect(fillPath('/v1/maintenance-windows/{id}', { id: 3 })).toBe('/v1/maintenance-windows/3');
    expect(() => fillPath('/v1/maintenance-windows/{id}', { id: '' })).toThrow('path parameter "id" of /v1/maintenance-windows/{id} is missing; this is a bug in the caller');
  });
});

describe('parseResponse', () => {
  // A generic shape: this tests how mismatches are reported, not any API resource.
  const endpoint = {
    method: 'GET' as const,
    path: '/v1/things',
    status: 200,
    list: true,
    response: z.array(z.object({ id: z.number(), settings: z.object({ level: z.number() }) })),
  };
  const response = (body: unknown): HttpResponse => ({
    status: 200,
    statusText: 'OK',
    headers: new Headers(),
    body,
    attempts: 1,
    idempotencyKey: undefined,
  });

  it('returns the parsed body when it matches', () => {
    expect(parseResponse('things.list', endpoint, response([{ id: 1, settings: { level: 2 } }]), '/v1/things')).toEqual([{ id: 1, settings: { level: 2 } }]);
  });

  it('names the endpoint and the first offending field of a mismatch', () => {
    const body = [{ id: 1, settings: { level: 2 } }, { id: 2, settings: { level: 'high' } }];
    const error = (() => {
      try {
        parseResponse('things.list', endpoint, response(body), '/v1/things');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect(error).toMatchObject({ endpoint: 'things.list', field: '[1].settings.level', status: 200, method: 'GET', path: '/v1/things' });
    expect((error as Error).message).toMatch(/^\[GET\] "\/v1\/things": 200 OK — response of things\.list does not match its schema at "\[1\]\.settings\.level": \[1\]\.settings\.level: /);
  });

  it('answers exactly what the schema itself parses: defaults filled, unknown keys dropped', () => {
    const withDefaults = {
      ...endpoint,
      list: false,
      response: z.object({ id: z.number(), tags: z.array(z.string()).default([]), level: z.number().nullable().optional() }),
    };
    const body = { id: 1, extra: 'dropped', level: null };
    expect(parseResponse('things.get', withDefaults, response(body), '/v1/things/1')).toEqual({ id: 1, tags: [], level: null });
    expect(parseResponse('things.get', withDefaults, response(body), '/v1/things/1')).toEqual(withDefaults.response.parse(body));
  });

  it('parses a check as @vigil/schema does, and names the field of a broken one', () => {
    const check = {
      id: 'c1', name: 'home', checkType: 'API', activated: true, muted: false, frequency: 10, frequencyOffset: 3,
      created_at: '2025-01-01T00:00:00.000Z', updated_at: null, alertChannels: { email: [], webhook: [], slack: [], sms: [] },
      request: { url: 'https://example.com', unknown: 1 },
    };
    const get = ENDPOINTS['checks.get'];
    const broken = { ...check, request: { ...check.request, method: 'FETCH' } };
    // Past COMPILE_AFTER_PARSES, so the compiled parse answers too.
    for (let use = 0; use <= COMPILE_AFTER_PARSES; use++) {
      const parsed = parseResponse('checks.get', get, response(check), '/v1/checks/c1');
      expect(parsed).toEqual(get.response.parse(check));
      expect(parsed.request).toEqual({
        method: 'GET', url: 'https://example.com', followRedirects: true, skipSSL: false, ipFamily: 'IPv4', body: '', bodyType: 'NONE',
        headers: [], queryParameters: [], assertions: [], basicAuth: { username: '', password: '' },
      });
      expect(() => parseResponse('checks.get', get, response(broken), '/v1/checks/c1')).toThrow(/response of checks\.get does not match its schema at "request\.method"/);
    }
  });

  it('answers the same before and after a schema in steady use is compiled', () => {
    const steady = { ...endpoint, response: z.array(z.object({ id: z.number(), tags: z.array(z.string()).default([]) })) };
    const outcome = (body: unknown) => {
      try {
        return { data: parseResponse('things.list', steady, response(body), '/v1/things') };
      } catch (caught) {
        return { error: (caught as Error).message };
      }
    };
    const good = [{ id: 1, extra: true }];
    const bad = [{ id: 1 }, { id: 'two', tags: [3] }];
    const seen = Array.from({ length: COMPILE_AFTER_PARSES + 5 }, () => [outcome(good), outcome(bad)]);
    expect(seen[0]).toEqual([
      { data: [{ id: 1, tags: [] }] },
      { error: expect.stringMatching(/does not match its schema at "\[1\]\.id": \[1\]\.id: .*; \[1\]\.tags\[0\]: /) },
    ]);
    for (const later of seen) expect(later).toEqual(seen[0]);
  });

  it('reports a body that is not the expected JSON at all', () => {
    expect(() => parseResponse('things.list', endpoint, response('<html>'), '/v1/things')).toThrow(/at "\(body\)"/);
  });
});

describe('callEndpointData', () => {
  const spec = {
    method: 'PUT' as const,
    path: '/v1/things/{id}',
    status: 200,
    params: z.object({ id: z.string() }),
    body: z.object({}).optional(),
    query: z.object({ autoAssignAlerts: z.boolean().optional() }),
    response: z.object({ id: z.string(), tags: z.array(z.string()).default([]) }),
  };
  /** A transport that answers every request with `body` and records what it was asked. */
  function answering(body: unknown) {
    const sent: HttpRequest[] = [];
    const transport = {
      request: async (request: HttpRequest): Promise<HttpResponse> => {
        sent.push(request);
        return { status: 200, statusText: 'OK', headers: new Headers(), body, attempts: 1, idempotencyKey: undefined };
      },
    } as unknown as Transport;
    return { transport, sent };
  }

  it('sends the filled path with the query defaults and resolves with the parsed data', async () => {
    const { transport, sent } = answering({ id: 't1', extra: 1 });
    await expect(callEndpointData(transport, 'things.update', spec, { params: { id: 't1' }, body: {} })).resolves.toEqual({ id: 't1', tags: [] });
    expect(sent).toEqual([{ method: 'PUT', path: '/v1/things/t1', query: { autoAssignAlerts: false }, body: {}, idempotencyKey: undefined, endpoint: 'things.update' }]);
  });

  it('rejects, rather than throws, on a missing path parameter', async () => {
    const { transport, sent } = answering({});
    const pending = callEndpointData(transport, 'things.update', spec, { params: {} as { id: string } });
    await expect(pending).rejects.toThrow('path parameter "id" of /v1/things/{id} is missing');
    expect(sent).toHaveLength(0);
  });

  it('rejects a response that breaks the schema, naming the endpoint and the field', async () => {
    const { transport } = answering({ id: 7 });
    const error = await callEndpointData(transport, 'things.update', spec, { params: { id: 't1' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect(error).toMatchObject({ endpoint: 'things.update', field: 'id', path: '/v1/things/t1' });
  });
});
