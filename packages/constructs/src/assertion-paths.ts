/**
 * JSON_BODY assertions whose JSONPath does not parse. The runner evaluates paths with jsonpath-plus,
 * which reads almost any text as some path, so without this check a typo (`$.items[`) would assert
 * on the wrong value at every run instead of failing `vigil validate` at the construct's line.
 */
import { jsonPathProblem } from '@vigil/schema';
import type { Diagnostic, ResourceSpec } from './types.js';

/** Where assertions live in a payload: an API check's request, a group's API check defaults. */
const ASSERTION_LISTS = [
  ['request', 'assertions'],
  ['apiCheckDefaults', 'assertions'],
] as const;

export function assertionPathProblems(spec: ResourceSpec): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [holder, field] of ASSERTION_LISTS) {
    const list = (spec.payload[holder] as Record<string, unknown> | null | undefined)?.[field];
    if (!Array.isArray(list)) continue;
    list.forEach((assertion: { source?: unknown; property?: unknown }, index) => {
      if ((assertion?.source !== 'JSON_BODY' && assertion?.source !== 'JSON_ANSWER') || typeof assertion.property !== 'string') return;
      const problem = jsonPathProblem(assertion.property);
      if (problem === null) return;
      diagnostics.push({
        severity: 'error',
        message: `the JSONPath ${JSON.stringify(assertion.property)} does not parse: ${problem}`,
        hint: "Write a JSONPath such as '$.items[0].id' or \"$['a key']\"; see docs/testing.md#assertions.",
        address: spec.address,
        path: `${holder}.${field}[${index}].property`,
        source: spec.source,
      });
    });
  }
  return diagnostics;
}
