import { DEFAULT_ALERT_SETTINGS, MultiStepCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { FIXTURE_ROOT, load, markerLocation, specOf } from './__fixtures__/load.js';
import { Frequency } from './frequency.js';
import { MultiStepCheck, type MultiStepCheckProps } from './multi-step-check.js';
import type { Diagnostic } from './types.js';

const base: MultiStepCheckProps = { name: 'Checkout', code: { content: 'await run();' } };

type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });

const variables = (count: number) => Array.from({ length: count }, (_, i) => ({ key: `VAR_${i}`, value: String(i) }));

const rules: Array<[string, Partial<MultiStepCheckProps>, Expected[]]> = [
  ['accepts 50 environment variables', { environmentVariables: variables(50) }, []],
  ['accepts every minute', { frequency: Frequency.EVERY_1M }, []],
  [
    'rejects 51 environment variables',
    { environmentVariables: variables(51) },
    [error('environmentVariables', '"environmentVariables" must contain less than or equal to 50 items', 'At most 50 environment variables; move shared ones to the check group.')],
  ],
  ['rejects an environment variable without a key', { environmentVariables: [{ key: '', value: 'x' }] }, [error('environmentVariables[0].key', '"environmentVariables[0].key" is not allowed to be empty')]],
  [
    'rejects sub-minute frequencies, which multi-step checks cannot run',
    { frequency: Frequency.EVERY_10S },
    [
      error('frequency', '"frequency" must be one of [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]', 'Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.'),
    ],
  ],
  ['accepts empty code, as the Checkly CLI does', { code: { content: '' } }, []],
  [
    'rejects code without entrypoint or content',
    { code: {} as never },
    [error('code', '"code" must have exactly one of "entrypoint" (a file to bundle) or "content" (the code itself)', "For example `code: { entrypoint: './login.spec.ts' }`.")],
  ],
  [
    'rejects an entrypoint that does not exist',
    { code: { entrypoint: './__fixtures__/scripts/nope.spec.ts' } },
    [error('code.entrypoint', `"code.entrypoint" file not found: ${FIXTURE_ROOT}/scripts/nope.spec.ts`, 'Entrypoints are resolved relative to the file being loaded (the monitor or check file), as in Checkly.')],
  ],
];

describe('MultiStepCheck rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new MultiStepCheck('checkout', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    const diagnostics = project.validate();
    expect(diagnostics).toEqual(expected.map((e) => ({ ...e, address: 'multistep-check.checkout', source })));
  });

  it('reports the frequency offset a sub-minute Frequency carries only once the frequency is fixed', async () => {
    const project = await load(() => {
      new MultiStepCheck('checkout', { ...base, frequency: 0, frequencyOffset: 10 });
    });
    expect(project.validate().map((d) => d.message)).toEqual([
      '"frequency" must be one of [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]',
    ]);
  });
});

describe('MultiStepCheck synth', () => {
  it('fills the documented defaults and sends the code as script', async () => {
    const project = await load(() => {
      new MultiStepCheck('checkout', base);
    });
    const { payload } = specOf(project, 'multistep-check.checkout');
    expect(payload).toEqual({
      name: 'Checkout',
      checkType: 'MULTI_STEP',
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
      environmentVariables: [],
      script: 'await run();',
    });
    expect(MultiStepCheckCreate.parse(payload)).toEqual(payload);
  });

  it('bundles an entrypoint relative to the creating file, with a root-relative scriptPath', async () => {
    const project = await load(() => {
      new MultiStepCheck('checkout', { ...base, code: { entrypoint: './__fixtures__/scripts/orders.spec.ts' } });
    });
    const check = project.constructs()[0] as MultiStepCheck;
    expect(check.code).toEqual({ entrypoint: './__fixtures__/scripts/orders.spec.ts' });
    expect(check.scriptEntrypoints()).toEqual([
      { field: 'script', entrypoint: './__fixtures__/scripts/orders.spec.ts', path: `${FIXTURE_ROOT}/scripts/orders.spec.ts`, propPath: 'code.entrypoint' },
    ]);
    check.setBundledScript('script', 'bundled orders');
    const { payload } = specOf(project, 'multistep-check.checkout');
    expect(payload.script).toBe('bundled orders');
    expect(payload.scriptPath).toBe('scripts/orders.spec.ts');
  });

  it('synthesises a script handed over after an earlier validate, not the cached result', async () => {
    const project = await load(() => {
      new MultiStepCheck('checkout', { ...base, code: { entrypoint: './__fixtures__/scripts/orders.spec.ts' } });
    });
    const check = project.constructs()[0] as MultiStepCheck;
    expect(project.validate().map((d) => d.path)).toEqual(['code.entrypoint']);
    check.setBundledScript('script', 'bundled later');
    expect(project.validate()).toEqual([]);
    expect(project.synth()[0]!.payload.script).toBe('bundled later');
  });

  it('lists secret environment variables by payload path', async () => {
    const project = await load(() => {
      new MultiStepCheck('checkout', {
        ...base,
        environmentVariables: [
          { key: 'USER', value: 'bot' },
          { key: 'TOKEN', value: 't0ken', secret: true },
          { key: 'PIN', value: '1234', secret: true, locked: true },
        ],
        dependencies: [{ path: 'lib/helpers.js', content: 'export {}' }],
      });
    });
    const { payload, secrets } = specOf(project, 'multistep-check.checkout');
    expect(payload.environmentVariables).toEqual([
      { key: 'USER', value: 'bot', locked: false, secret: false },
      { key: 'TOKEN', value: 't0ken', locked: false, secret: true },
      { key: 'PIN', value: '1234', locked: true, secret: true },
    ]);
    expect(payload.dependencies).toEqual([{ path: 'lib/helpers.js', content: 'export {}' }]);
    expect(secrets).toEqual(['environmentVariables[1].value', 'environmentVariables[2].value']);
  });

  it('refuses a bundled script for a field it does not have, as a loader bug', async () => {
    const project = await load(() => {
      new MultiStepCheck('checkout', base);
    });
    const check = project.constructs()[0] as MultiStepCheck;
    expect(() => check.setBundledScript('localSetupScript', 'x')).toThrow(
      `setBundledScript("localSetupScript") on a construct without that script (this is a bug in vigil's loader)`,
    );
  });
});
