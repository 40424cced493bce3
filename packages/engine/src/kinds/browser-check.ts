import { BrowserCheckCreate } from '@vigil/schema';
import { commonCheckProps, SIMPLE_CHECK_KEYS, variables } from '../import/checks.js';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const browserCheckAdapter = defineAdapter({
  kind: 'browser-check',
  isCheck: true,
  schemaFor: () => BrowserCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createBrowser', update: 'checks.updateBrowser', remove: 'checks.delete' },
  listQuery: { checkType: 'BROWSER' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 56, placement: { file: 'with-group' }, slugFallback: 'check', map: mapBrowserCheck },
});

/** `new BrowserCheck(...)` for a remote browser check; the spec is written inline (`code.content`). */
function mapBrowserCheck(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x', script: 'x' });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, view, baseline, inherited, context);
  props.set('code', new ObjectBuilder().set('content', literal(String(view.script))).build());
  if (differs(view.scriptPath, null)) {
    context.warn(`was uploaded from ${String(view.scriptPath)}; the code inlines the spec, so the next plan clears scriptPath`);
  }
  // The config's variables reach a check that sets none; one that has none of its own says so (`[]`).
  if (differs(view.environmentVariables, inherited.environmentVariables ?? baseline.environmentVariables)) {
    props.set('environmentVariables', variables(view.environmentVariables ?? [], context));
  }
  if (differs(view.dependencies, baseline.dependencies)) props.set('dependencies', fromValue(view.dependencies));
  if (typeof view.sslCheckDomain === 'string' && view.sslCheckDomain !== '') props.set('sslCheckDomain', literal(view.sslCheckDomain));
  if (view.playwrightConfig !== undefined && view.playwrightConfig !== null) {
    if (differs(view.playwrightConfig, inherited.playwrightConfig)) props.set('playwrightConfig', fromValue(view.playwrightConfig));
  } else if (inherited.playwrightConfig !== undefined) {
    context.warn('has no Playwright settings, and the config gives every browser check its playwrightConfig; the next plan sets them');
  }
  for (const key of SIMPLE_CHECK_KEYS) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'BrowserCheck', props: props.build(), extraKeys };
}
