import { describe, expect, it } from 'vitest';
import { load, problems, specOf } from './__fixtures__/load.js';
import { ApiCheck } from './api-check.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { PrivateLocation } from './private-location.js';

const UUID = '0baf2a80-7266-44af-b56c-2af7086782ee';
const request = { method: 'GET' as const, url: 'https://example.com' };

describe('PrivateLocation', () => {
  it('sends its name, slug, icon (default location) and proxy', async () => {
    const project = await load(() => new PrivateLocation('dc', { name: 'DC', slugName: 'dc-1' }));
    expect(specOf(project, 'private-location.dc').payload).toEqual({ name: 'DC', slugName: 'dc-1', icon: 'location', proxyUrl: null });
  });

  it("sends a check's and a group's private locations as identifiers: a construct as its slug, fromId as its id, a slug as written", async () => {
    const project = await load(() => {
      const dc = new PrivateLocation('dc', { name: 'DC', slugName: 'dc-1' });
      const group = new CheckGroupV2('g', { name: 'G', privateLocations: [dc] });
      new ApiCheck('a', { name: 'A', group, privateLocations: [dc, PrivateLocation.fromId(UUID), 'office'], request });
    });
    expect(specOf(project, 'check-group.g').payload.privateLocations).toEqual(['dc-1']);
    expect(specOf(project, 'api-check.a').payload.privateLocations).toEqual(['dc-1', UUID, 'office']);
  });

  it('takes the config’s private locations when a check names none', async () => {
    const project = await load(
      () => {
        new PrivateLocation('dc', { name: 'DC', slugName: 'dc-1' });
        new ApiCheck('a', { name: 'A', request });
      },
      { config: { projectName: 'P', logicalId: 'p', checks: { privateLocations: ['dc-1'] } } },
    );
    expect(specOf(project, 'api-check.a').payload.privateLocations).toEqual(['dc-1']);
  });

  it.each([
    ['a fromId that is not a UUID', () => new ApiCheck('a', { name: 'A', privateLocations: [PrivateLocation.fromId('dc-1')], request }), '"privateLocations[0]": PrivateLocation.fromId("dc-1") needs the resource\'s UUID'],
    ['an unknown prop', () => new PrivateLocation('dc', { name: 'DC', slugName: 'dc-1', region: 'x' } as never), '"region" is not a prop of PrivateLocation'],
    ['a slug with a space', () => new PrivateLocation('dc', { name: 'DC', slugName: 'dc 1' }), '"slugName" must be 1 to 30 letters, digits or dashes, and not a data-center location name such as "eu-west-1", got "dc 1"'],
  ])('reports %s', async (_, define, message) => {
    expect(problems(await load(define)).map((problem) => problem.message)).toEqual([message]);
  });
});
