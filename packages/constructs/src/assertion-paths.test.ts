import { describe, expect, it } from 'vitest';
import { load, markerLocation } from './__fixtures__/load.js';
import { ApiCheck } from './api-check.js';
import { AssertionBuilder } from './assertion.js';
import { CheckGroupV2 } from './check-group-v2.js';

const HINT = "Write a JSONPath such as '$.items[0].id' or \"$['a key']\"; see docs/testing.md#assertions.";

describe('JSON_BODY assertions whose JSONPath does not parse', () => {
  it("are refused at the check's new line, naming the assertion", async () => {
    const project = await load(() => {
      new ApiCheck('orders', { name: 'Orders', request: { url: 'https://example.com/', assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.jsonBody('$.items[').isNotNull()] } }); // @at:check
    });
    expect(project.validate()).toEqual([
      {
        severity: 'error',
        message: 'the JSONPath "$.items[" does not parse: unclosed "[" at character 8',
        hint: HINT,
        address: 'api-check.orders',
        path: 'request.assertions[1].property',
        source: markerLocation(import.meta.url, 'check'),
      },
    ]);
  });

  it("are refused in a group's apiCheckDefaults", async () => {
    const project = await load(() => {
      new CheckGroupV2('shop', { name: 'Shop', apiCheckDefaults: { assertions: [AssertionBuilder.jsonBody("$['id").equals(1)] } });
    });
    expect(project.validate()).toMatchObject([{ message: `the JSONPath "$['id" does not parse: unclosed ' at character 3`, path: 'apiCheckDefaults.assertions[0].property' }]);
  });

  it('leave paths that parse, and other sources, alone', async () => {
    const project = await load(() => {
      new ApiCheck('fine', {
        name: 'Fine',
        request: { url: 'https://example.com/', assertions: [AssertionBuilder.jsonBody('$.items[?(@.price < 10)].id').isNotNull(), AssertionBuilder.textBody('$.items[').contains('x')] },
      });
    });
    expect(project.validate()).toEqual([]);
  });
});
