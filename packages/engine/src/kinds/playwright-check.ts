import path from 'node:path';
import { PlaywrightCheckCreate } from '@vigil/schema';
import { commonCheckProps, variables } from '../import/checks.js';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, Payload, RemoteObject } from './types.js';

export const playwrightCheckAdapter = defineAdapter({
  kind: 'playwright-check',
  isCheck: true,
  schemaFor: () => PlaywrightCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createPlaywright', update: 'checks.updatePlaywright', remove: 'checks.delete' },
  listQuery: { checkType: 'PLAYWRIGHT' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 57, placement: { file: 'with-group' }, slugFallback: 'check', map: mapPlaywrightCheck },
});

/**
 * `new PlaywrightCheck(...)` for a remote suite. The suite's files are not written: the code points
 * at the Playwright config by its path in the bundle (from the project root), as seen from the
 * generated file, so an import into the repository that holds the suite plans nothing; anywhere
 * else the plan names the missing config.
 */
function mapPlaywrightCheck(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  // Suites retry through their Playwright config; the construct refuses retryStrategy and doubleCheck.
  const view: Payload = { ...remoteView(adapter, remote), retryStrategy: undefined, doubleCheck: undefined };
  const baseline = baselineOf(adapter, { name: 'x', playwrightConfigPath: 'x', codeBundle: [{ path: 'x', content: '' }] });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, view, baseline, inherited, context);
  const configPath = String(view.playwrightConfigPath);
  const fromGenerated = path.posix.relative(context.generatedDir, configPath);
  props.set('playwrightConfigPath', literal(fromGenerated.startsWith('.') ? fromGenerated : `./${fromGenerated}`));
  for (const key of ['testCommand', 'installCommand', 'pwProjects', 'pwTags'] as const) {
    if (view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  if (differs(view.environmentVariables, baseline.environmentVariables)) props.set('environmentVariables', variables(view.environmentVariables, context));
  return { construct: 'PlaywrightCheck', props: props.build(), extraKeys };
}
