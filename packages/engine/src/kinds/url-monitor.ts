import { UrlCheckCreate } from '@vigil/schema';
import { NUMERIC_METHODS } from '../import/builders.js';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import { withoutDoubleCheck } from './monitor-import.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const urlMonitorAdapter = defineAdapter({
  kind: 'url-monitor',
  isCheck: true,
  schemaFor: () => UrlCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createUrl', update: 'checks.updateUrl', remove: 'checks.delete' },
  listQuery: { checkType: 'URL' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 54, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapUrlMonitor },
});

function mapUrlMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { url: string };
  const baseline = baselineOf(adapter, { name: 'x', request: { url: request.url } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutDoubleCheck(view, 'UrlMonitor', context), baseline, inherited, context);

  const defaults = baseline.request as Record<string, unknown>;
  // `method` is always GET, which the construct sends itself.
  const requestCode = new ObjectBuilder().set('url', literal(request.url));
  for (const key of ['followRedirects', 'skipSSL', 'ipFamily'] as const) {
    if (request[key] !== undefined && differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(urlAssertionCode) });
  }
  props.set('request', requestCode.build());

  for (const key of SIMPLE_CHECK_KEYS) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'UrlMonitor', props: props.build(), extraKeys };
}

/** `UrlAssertionBuilder.statusCode().equals(200)` when the builder yields exactly this assertion; plain data otherwise. */
function urlAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  const method = NUMERIC_METHODS[comparison];
  if (source !== 'STATUS_CODE' || !method || regex !== null || property !== '' || target === '' || String(Number(target)) !== target) return fromValue(value);
  return call(`UrlAssertionBuilder.statusCode().${method}(${target})`, 'UrlAssertionBuilder');
}
