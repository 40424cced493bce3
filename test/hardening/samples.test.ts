import { describe, expect, it } from 'vitest';
import { ENDPOINT_IDS, ENDPOINTS, formatIssues, type EndpointDef } from '@vigil/schema';
import { SAMPLE_BODIES } from './samples.js';

const WITH_BODY = ENDPOINT_IDS.filter((id) => (ENDPOINTS[id] as EndpointDef).body !== undefined);

describe('the hardening suites’ sample bodies', () => {
  it('cover every endpoint that takes a body, and no other', () => {
    expect(Object.keys(SAMPLE_BODIES).sort()).toEqual([...WITH_BODY].sort());
  });

  it.each(WITH_BODY)('are valid for %s, so mutations start from an accepted request', (id) => {
    const result = (ENDPOINTS[id] as EndpointDef).body!.safeParse(SAMPLE_BODIES[id]);
    expect(result.success ? [] : formatIssues(result.error).keys).toEqual([]);
  });
});
