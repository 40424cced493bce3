import { DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, problems, specOf } from './__fixtures__/load.js';
import { BrowserCheck, type BrowserCheckProps } from './browser-check.js';
import { CheckGroupV2 } from './check-group-v2.js';
import { Frequency } from './frequency.js';

const base: BrowserCheckProps = { name: 'Home', code: { content: "test('home', async ({ page }) => {});" } };

describe('BrowserCheck', () => {
  it('fills the documented defaults and sends the code as script, an empty sslCheckDomain as none', async () => {
    const project = await load(() => {
      new BrowserCheck('home', { ...base, sslCheckDomain: '', playwrightConfig: { use: { viewport: { width: 1280, height: 720 } }, timeout: 5000 } });
    });
    expect(problems(project)).toEqual([]);
    expect(specOf(project, 'browser-check.home').payload).toEqual({
      name: 'Home',
      checkType: 'BROWSER',
      activated: true,
      muted: false,
      doubleCheck: true,
      shouldFail: false,
      locations: [],
      privateLocations: [],
      tags: [],
      alertSettings: DEFAULT_ALERT_SETTINGS,
      useGlobalAlertSettings: true,
      alertChannelSubscriptions: [],
      runParallel: false,
      frequency: 10,
      script: "test('home', async ({ page }) => {});",
      environmentVariables: [],
      sslCheckDomain: null,
      playwrightConfig: { use: { viewport: { width: 1280, height: 720 } }, timeout: 5000 },
    });
  });

  it('rejects a sub-minute frequency and code without entrypoint or content, at the prop', async () => {
    const project = await load(() => {
      new BrowserCheck('home', { ...base, frequency: Frequency.EVERY_10S });
      new BrowserCheck('empty', { name: 'Empty', code: {} as never });
    });
    expect(problems(project).map(({ address, path, message }) => ({ address, path, message }))).toEqual([
      { address: 'browser-check.home', path: 'frequency', message: '"frequency" must be one of [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]' },
      { address: 'browser-check.empty', path: 'code', message: '"code" must have exactly one of "entrypoint" (a file to bundle) or "content" (the code itself)' },
    ]);
  });

  it('takes defaults from its group\'s browserChecks, then the config\'s checks.browserChecks, then the general ones', async () => {
    const project = await load(
      () => {
        const group = new CheckGroupV2('web', { name: 'Web', frequency: 60, locations: ['us-east-1'], browserChecks: { frequency: 5, testMatch: 'x/*.spec.ts' } });
        new BrowserCheck('in-group', { ...base, group });
        new BrowserCheck('own', { ...base, group, frequency: 2 });
        new BrowserCheck('alone', base);
      },
      { config: { projectName: 'p', logicalId: 'p', checks: { frequency: 120, tags: ['web'], browserChecks: { frequency: 15, locations: ['eu-west-1'] } } } },
    );
    expect(problems(project)).toEqual([]);
    const fields = (address: string) => {
      const { frequency, locations, tags } = specOf(project, address).payload as Record<string, unknown>;
      return { frequency, locations, tags };
    };
    expect(fields('browser-check.in-group')).toEqual({ frequency: 5, locations: ['eu-west-1'], tags: ['web'] });
    expect(fields('browser-check.own')).toEqual({ frequency: 2, locations: ['eu-west-1'], tags: ['web'] });
    expect(fields('browser-check.alone')).toEqual({ frequency: 15, locations: ['eu-west-1'], tags: ['web'] });
    expect(specOf(project, 'check-group.web').payload).not.toHaveProperty('browserChecks');
  });
});
