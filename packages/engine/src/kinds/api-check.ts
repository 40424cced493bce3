import { ApiCheckCreate } from '@vigil/schema';
import { assertions, basicAuth, commonCheckProps, keyValues, SIMPLE_CHECK_KEYS, variables } from '../import/checks.js';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const apiCheckAdapter = defineAdapter({
  kind: 'api-check',
  isCheck: true,
  schemaFor: () => ApiCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createApi', update: 'checks.updateApi', remove: 'checks.delete' },
  listQuery: { checkType: 'API' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 50, placement: { file: 'with-group' }, slugFallback: 'check', map: mapApiCheck },
});

function mapApiCheck(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { url: string };
  const baseline = baselineOf(adapter, { name: 'x', request: { url: request.url } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, view, baseline, inherited, context);

  const defaults = baseline.request as Record<string, unknown>;
  const requestCode = new ObjectBuilder().set('url', literal(request.url));
  for (const key of ['method', 'followRedirects', 'skipSSL', 'ipFamily', 'body', 'bodyType'] as const) {
    if (differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  for (const key of ['headers', 'queryParameters'] as const) {
    if (differs(request[key], defaults[key])) requestCode.set(key, keyValues(request[key]));
  }
  if (differs(request.assertions, defaults.assertions)) requestCode.set('assertions', assertions(request.assertions));
  const auth = request.basicAuth as { username: string; password: string } | undefined;
  if (auth && (auth.username !== '' || auth.password !== '')) requestCode.set('basicAuth', basicAuth(auth, 'request.basicAuth.password', context));
  props.set('request', requestCode.build());

  // The config's variables reach a check that sets none; one that has none of its own says so (`[]`).
  if (differs(view.environmentVariables, inherited.environmentVariables ?? baseline.environmentVariables)) {
    props.set('environmentVariables', variables(view.environmentVariables ?? [], context));
  }
  for (const key of SIMPLE_CHECK_KEYS) if (view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  return { construct: 'ApiCheck', props: props.build(), extraKeys };
}
