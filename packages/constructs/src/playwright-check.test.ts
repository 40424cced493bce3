import { playwrightTestArguments } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, problems, specOf } from './__fixtures__/load.js';
import { Engine } from './engine.js';
import { Frequency } from './frequency.js';
import { PlaywrightCheck, playwrightBundleHash, type PlaywrightCheckProps } from './playwright-check.js';
import { RetryStrategyBuilder } from './retry-strategy.js';

const FILES = [
  { path: 'e2e/playwright.config.ts', content: 'export default {};' },
  { path: 'e2e/tests/a.spec.ts', content: "test('a', () => {});" },
];

/** A check as the loader leaves it: its suite bundled. */
function suite(props: Partial<PlaywrightCheckProps> & Record<string, unknown> = {}): PlaywrightCheck {
  const check = new PlaywrightCheck('suite', { name: 'Suite', playwrightConfigPath: './__fixtures__/e2e/playwright.config.ts', ...props } as PlaywrightCheckProps);
  check.setSuiteBundle({ files: FILES });
  return check;
}

describe('PlaywrightCheck payload', () => {
  it('synthesises the create body of POST /v1/checks/playwright: the config path from the root, the bundle and its hash, lists for pwProjects and pwTags', async () => {
    const project = await load(() => {
      suite({ frequency: Frequency.EVERY_5M, pwProjects: 'api', pwTags: ['@smoke', '@critical'], installCommand: 'npm ci', testCommand: 'pnpm playwright test --workers 1' });
    });
    const payload = specOf(project, 'playwright-check.suite').payload;
    expect(payload).toMatchObject({
      checkType: 'PLAYWRIGHT',
      name: 'Suite',
      frequency: 5,
      doubleCheck: false,
      playwrightConfigPath: 'e2e/playwright.config.ts',
      pwProjects: ['api'],
      pwTags: ['@smoke', '@critical'],
      installCommand: 'npm ci',
      testCommand: 'pnpm playwright test --workers 1',
      codeBundle: FILES,
      cacheHash: playwrightBundleHash(FILES),
    });
    expect(payload).not.toHaveProperty('retryStrategy');
  });

  it('takes no retry strategy from the config, as Checkly leaves it out of a suite’s defaults', async () => {
    const project = await load(() => void suite(), { config: { projectName: 'p', logicalId: 'p', checks: { retryStrategy: RetryStrategyBuilder.fixedStrategy({ maxRetries: 2 }) } } });
    expect(specOf(project, 'playwright-check.suite').payload).not.toHaveProperty('retryStrategy');
  });

  it('hashes a bundle independently of the order of its files', () => {
    expect(playwrightBundleHash([...FILES].reverse())).toBe(playwrightBundleHash(FILES));
    expect(playwrightBundleHash([FILES[0]!, { ...FILES[1]!, content: 'changed' }])).not.toBe(playwrightBundleHash(FILES));
  });
});

describe('PlaywrightCheck rules', () => {
  const hint = 'Playwright retries inside the suite: set `retries` in the Playwright config instead.';
  it.each([
    ['refuses a retryStrategy', { retryStrategy: RetryStrategyBuilder.noRetries() }, { path: 'retryStrategy', message: '"retryStrategy" is not available in Playwright checks', hint }],
    ['refuses doubleCheck', { doubleCheck: true }, { path: 'doubleCheck', message: '"doubleCheck" is not available in Playwright checks', hint }],
    [
      'refuses a testCommand with shell syntax',
      { testCommand: 'npx playwright test && rm -rf /' },
      {
        path: 'testCommand',
        message: '"testCommand" must run Playwright\'s test runner, not "npx playwright test && rm -rf /"',
        hint: 'Use e.g. `npx playwright test --grep @checkly` (also pnpm/yarn/bunx playwright test); no shell syntax such as ; && | $().',
      },
    ],
    [
      'refuses a config outside the project root',
      { playwrightConfigPath: '../../playwright.config.ts' },
      { path: 'playwrightConfigPath', message: expect.stringMatching(/^"playwrightConfigPath" \(.*\) is outside the project root, so the suite cannot be bundled into the check$/) },
    ],
    ['refuses sub-minute frequencies', { frequency: 0 }, { path: 'frequency', message: '"frequency" must be one of [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]' }],
  ])('%s', async (_name, props, expected) => {
    const project = await load(() => void suite(props));
    expect(problems(project)).toEqual([expect.objectContaining({ severity: 'error', address: 'playwright-check.suite', ...expected })]);
  });

  it('names a missing Playwright config, resolved from the file that creates the check', async () => {
    const project = await load(() => void new PlaywrightCheck('suite', { name: 'Suite', playwrightConfigPath: './__fixtures__/nowhere.config.ts' }));
    expect(problems(project)).toEqual([
      expect.objectContaining({ path: 'playwrightConfigPath', message: expect.stringMatching(/^"playwrightConfigPath" file not found: .*__fixtures__\/nowhere\.config\.ts$/) }),
    ]);
  });
});

describe('testCommand', () => {
  it.each([
    ['npx playwright test', []],
    ['npx playwright test --grep @checkly --workers=2', ['--grep', '@checkly', '--workers=2']],
    ['pnpm playwright test', []],
    ['pnpm exec playwright test "a b"', ['a b']],
    ['yarn playwright test', []],
    ['bunx playwright test', []],
    ['npm exec -- playwright test', []],
    ['playwright test tests/login.spec.ts', ['tests/login.spec.ts']],
  ])('runs Playwright for %j with arguments %j', (command, args) => {
    expect(playwrightTestArguments(command)).toEqual(args);
  });

  it.each(['npm test', 'npx playwright test; curl x', 'npx playwright test $(id)', 'npx playwright test > out', 'npx playwright test "unclosed', 'npx playwright-test', 'node x.js'])(
    'refuses %j',
    (command) => {
      expect(playwrightTestArguments(command)).toBeUndefined();
    },
  );
});

describe('PlaywrightCheck props of Checkly\'s that vigil takes', () => {
  it('accepts include and a Node engine, as the Checkly CLI does', async () => {
    const project = await load(() => {
      const check = suite({ include: ['fixtures/**/*.json'], engine: Engine.node('22') });
      expect(check.suiteInclude()).toEqual(['fixtures/**/*.json']);
    });
    expect(project.validate()).toEqual([]);
    expect(specOf(project, 'playwright-check.suite').payload).not.toHaveProperty('engine');
  });

  it('warns that a Bun engine runs with Node.js', async () => {
    const project = await load(() => {
      suite({ engine: Engine.bun('1.3') });
    });
    expect(project.validate().map((d) => [d.severity, d.path, d.message, d.hint])).toEqual([
      ['warning', 'engine', '"engine" bun is not available: vigil runs Playwright suites with Node.js', 'Remove it, or use Engine.node(...) (vigil uses its own Node.js version).'],
    ]);
  });
});
