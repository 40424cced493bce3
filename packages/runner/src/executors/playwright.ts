/**
 * PLAYWRIGHT checks (Playwright check suites): the suite's bundled files (`codeBundle`, by their
 * paths from the project root) are laid out in a fresh directory and Playwright's own test runner
 * runs them with a generated config beside the user's that imports it and replaces only what the
 * runner owns: the reporter (ours), the output directory, the deadline, the Chromium (the one the
 * runner finds, for specs that open a page) and `webServer` (dropped: the runner starts no servers).
 * Child processes, deadline, network policy and the report's reading are the multi-step machinery
 * (../multi-step/playwright-process.ts); the result is the multi-step result (tests, steps,
 * requests, errors at the user's file:line).
 *
 * Under a network policy the Node side (the `request` fixture, fetch) is guarded in each process
 * (../network-policy-preload.ts), and the browsers' traffic goes through the policy proxy
 * (../multi-step/policy-proxy.ts), started by a global setup ahead of the suite's own: every
 * browser the fixtures launch gets it as `launchOptions.proxy`, replacing any proxy the suite sets
 * (`use.proxy`, Chromium's proxy switches). Browser-level, not `use.proxy`: that would send the
 * `request` fixture through the proxy too, which a policy denying loopback would refuse.
 *
 * What runs: never a shell. `testCommand` must be a form of `playwright test` (see
 * `playwrightTestArguments` in @vigil/schema); its arguments, then `--project`/`--grep` from
 * `pwProjects`/`pwTags`, go to the runner's own Playwright. `installCommand` is not run (the suite
 * uses the runner's `@playwright/test`; other npm packages are not available), and the job log says
 * so. The environment is the check's variables only; the working directory is the bundle's root.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PLAYWRIGHT_DEFAULT_TEST_COMMAND, PlaywrightCodeBundle, playwrightTestArguments } from '@vigil/schema';
import { explainFileRefusal } from '../multi-step/file-guard.js';
import { endPlaywrightTurn, playwrightReporterFile, playwrightTurn, playwrightWorkspace, runPlaywrightProcess } from '../multi-step/playwright-process.js';
import { multiStepVerdict } from '../multi-step/result.js';
import { CHROMIUM_PROXY_SWITCH, POLICY_PROXY_ENV, explainRefusal } from '../multi-step/policy-proxy.js';
import { chromiumExecutable, policyProxyFile, type SpecRun } from '../multi-step/run-spec.js';
import type { Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { variableLookup } from '../variables.js';

const WRAPPER_NAME = '.vigil-suite.config.ts';

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '') : [];
}

/** The generated config: the user's, with what the runner owns replaced. */
function wrapperSource(input: {
  userConfig: string;
  reportFile: string;
  outputDir: string;
  timeoutMs: number;
  executablePath: string | undefined;
  /** The policy proxy's global setup, when the run is under a network policy. */
  policySetup: string | undefined;
}): string {
  const json = JSON.stringify;
  const policed = input.policySetup !== undefined;
  return [
    '// @ts-nocheck',
    `import * as loaded from ${json(`./${input.userConfig}`)};`,
    'const user = loaded.default ?? loaded;',
    `const executablePath = ${json(input.executablePath ?? null)};`,
    `const policed = ${json(policed)};`,
    // Set in the workers (forked after the global setup); Playwright's main process loads this
    // config before the proxy runs, and launches no browser of the fixtures.
    `const policyProxy = policed ? process.env[${json(POLICY_PROXY_ENV)}] : undefined;`,
    "if (policed && process.env.TEST_WORKER_INDEX !== undefined && !policyProxy) throw new Error('vigil: the network policy proxy is not running, so no browser may start');",
    `const PROXY_SWITCH = ${String(CHROMIUM_PROXY_SWITCH)};`,
    'const launch = (use) => {',
    '  if (!executablePath && !policed) return use;',
    '  const { proxy: _replaced, ...rest } = use ?? {};',
    '  const launchOptions = { ...(rest.launchOptions ?? {}) };',
    '  if (executablePath) launchOptions.executablePath = executablePath;',
    '  if (policed) {',
    "    if (Array.isArray(launchOptions.args)) launchOptions.args = launchOptions.args.filter((arg) => typeof arg !== 'string' || !PROXY_SWITCH.test(arg));",
    '    if (policyProxy) launchOptions.proxy = { server: policyProxy };',
    '    else delete launchOptions.proxy;',
    '  }',
    '  return { ...(policed ? rest : use ?? {}), launchOptions };',
    '};',
    'const setups = user.globalSetup === undefined ? [] : [user.globalSetup].flat();',
    'export default {',
    '  ...user,',
    `  ...(policed ? { globalSetup: [${json(input.policySetup ?? '')}, ...setups] } : {}),`,
    `  reporter: [[${json(playwrightReporterFile())}, { outputFile: ${json(input.reportFile)} }]],`,
    `  outputDir: ${json(input.outputDir)},`,
    "  preserveOutput: 'never',",
    `  globalTimeout: ${input.timeoutMs},`,
    '  webServer: undefined,',
    '  use: launch(user.use),',
    '  ...(Array.isArray(user.projects) ? { projects: user.projects.map((project) => ({ ...project, use: launch(project.use) })) } : {}),',
    '};',
    '',
  ].join('\n');
}

export const playwrightExecutor: Executor = {
  checkType: 'PLAYWRIGHT',
  async run(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
    const startedAt = new Date();
    const started = performance.now();
    const timeoutMs = context.options.multiStepTimeoutMs;
    const base = { isDegraded: false, overMaxResponseTime: false, startedAt: startedAt.toISOString(), apiCheckResult: null };
    const refuse = (message: string): TryResult => ({
      ...base,
      hasFailures: true,
      hasErrors: false,
      responseTime: 0,
      stoppedAt: new Date().toISOString(),
      multiStepCheckResult: null,
      failure: { kind: 'SCRIPT', message: context.redact(message) },
    });
    const bundle = PlaywrightCodeBundle.safeParse(check.codeBundle);
    if (!bundle.success) return refuse(`the Playwright check has no valid code bundle: ${bundle.error.issues[0]?.message ?? 'invalid'}`);
    const configPath = typeof check.playwrightConfigPath === 'string' ? check.playwrightConfigPath : '';
    if (!bundle.data.some((file) => file.path === configPath)) return refuse(`the Playwright check's bundle has no ${configPath || 'Playwright config'}`);
    const testCommand = typeof check.testCommand === 'string' && check.testCommand !== '' ? check.testCommand : PLAYWRIGHT_DEFAULT_TEST_COMMAND;
    const extraArgs = playwrightTestArguments(testCommand);
    if (extraArgs === undefined) return refuse(`testCommand ${JSON.stringify(testCommand)} does not run Playwright's test runner (e.g. "npx playwright test"), so vigil does not run it`);

    if (!(await playwrightTurn(context.signal))) {
      return { ...refuse('the run was cancelled before the suite started'), failure: { kind: 'ABORTED', message: 'the run was cancelled before the suite started' } };
    }
    const workspace = await playwrightWorkspace();
    const dir = await mkdtemp(path.join(workspace, 'suite-'));
    try {
      for (const file of bundle.data) {
        const target = path.join(dir, ...file.path.split('/'));
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, file.content);
      }
      const configDir = path.posix.dirname(configPath);
      const wrapper = path.posix.join(configDir, WRAPPER_NAME);
      const reportFile = path.join(dir, '.vigil-report.json');
      await writeFile(
        path.join(dir, ...wrapper.split('/')),
        wrapperSource({
          userConfig: path.posix.basename(configPath),
          reportFile,
          outputDir: path.join(dir, '.vigil-test-results'),
          timeoutMs,
          executablePath: chromiumExecutable(),
          policySetup: context.options.networkPolicy.rules.length > 0 ? policyProxyFile() : undefined,
        }),
      );
      const projects = stringList(check.pwProjects).flatMap((project) => ['--project', project]);
      const tags = stringList(check.pwTags);
      const args = [...extraArgs, '--config', wrapper, ...projects, ...(tags.length > 0 ? ['--grep', tags.map(escapeRegExp).join('|')] : [])];
      const run: SpecRun = await runPlaywrightProcess({
        dir,
        args,
        reportFile,
        env: Object.fromEntries(variableLookup(context.variables)),
        timeoutMs,
        signal: context.signal,
        denyNetworks: context.options.networkPolicy.rules,
        tenant: context.tenant,
        started,
      });
      const verdict = multiStepVerdict(run, timeoutMs, startedAt.getTime());
      if (typeof check.installCommand === 'string' && check.installCommand.trim() !== '') {
        verdict.result.jobLog.unshift({ time: startedAt.getTime(), level: 'WARN', msg: `installCommand ${JSON.stringify(check.installCommand)} was not run: vigil runs suites with its own @playwright/test` });
      }
      let failure: { kind: FailureKind; message: string } | null = explainFileRefusal(explainRefusal(verdict.failure, run.output, verdict.result.jobLog), run.output, verdict.result.jobLog);
      if (check.shouldFail === true && !verdict.hasErrors && (failure === null || failure.kind === 'ASSERTION')) {
        failure = failure === null ? { kind: 'ASSERTION', message: 'every test passed, but the check has shouldFail: true' } : null;
      }
      return {
        ...base,
        hasFailures: failure !== null,
        hasErrors: verdict.hasErrors,
        responseTime: Math.round(run.durationMs),
        stoppedAt: new Date().toISOString(),
        multiStepCheckResult: verdict.result,
        failure: failure ? { kind: failure.kind, message: context.redact(failure.message.replaceAll('the spec', 'the suite')) } : null,
      };
    } finally {
      endPlaywrightTurn();
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  },
};

/** A tag is matched literally (`@smoke` may hold no RegExp syntax, but `@a.b` must not match `@aXb`). */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
