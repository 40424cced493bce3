import { Project, type CliConfig, type VigilConfig } from '@vigil/constructs';
import { describe, expect, it } from 'vitest';
import type { TestOptions } from '../commands/test.js';
import { withConfigDefaults } from './config-defaults.js';
import { REPORTERS } from './reporters.js';

const options = { locations: [], retries: undefined, reporter: 'ci' } as unknown as TestOptions;

describe("vigil test's defaults from the config's cli option", () => {
  it.each<[string, CliConfig, Partial<TestOptions>]>([
    ['runLocation becomes the one location', { runLocation: 'eu-central-1' }, { locations: ['eu-central-1'] }],
    ['privateRunLocation stands in when runLocation is unset', { privateRunLocation: 'dc-1' }, { locations: ['dc-1'] }],
    ['runLocation wins over privateRunLocation', { runLocation: 'eu-west-1', privateRunLocation: 'dc-1' }, { locations: ['eu-west-1'] }],
    ['retries sets --retries', { retries: 2 }, { retries: 2 }],
    ['the first of reporters sets --reporter', { reporters: ['json', 'list'] }, { reporter: 'json' }],
  ])('%s', (_, cli, expected) => {
    expect(withConfigDefaults(options, {}, cli)).toMatchObject(expected);
  });

  it('leaves every option a flag set as the flag set it', () => {
    const flagged = { ...options, locations: ['us-east-1'], retries: 1, reporter: 'dot' } as TestOptions;
    const result = withConfigDefaults(flagged, { location: ['us-east-1'], retries: '1', reporter: 'dot' }, { runLocation: 'eu-west-1', retries: 3, reporters: ['json'] });
    expect(result).toMatchObject({ locations: ['us-east-1'], retries: 1, reporter: 'dot' });
  });

  it('accepts in the config exactly the reporters vigil test has', () => {
    const problems = (reporters: string[]) => {
      const project = new Project({ root: '/' });
      project.setConfig({ projectName: 'P', logicalId: 'p', cli: { reporters } } as unknown as VigilConfig);
      return project.validate().map((diagnostic) => diagnostic.message);
    };
    expect(problems([...REPORTERS])).toEqual([]);
    expect(problems(['html'])).toEqual(['vigil.config: "cli.reporters[0]" must be one of [list, dot, ci, github, json, junit]']);
  });
});
