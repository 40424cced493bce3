'use strict';
/**
 * The warm Playwright host: one long-lived process of one tenant, started inside that tenant's
 * sandbox by ./warm-workers.ts. Plain CommonJS so it runs as it is, from sources and from the CLI
 * bundle alike.
 *
 * It does the part of Playwright's test runner a run needs from its main process — load the config
 * once, load each run's spec to list its tests, hand them to a Playwright worker and turn the
 * worker's events into our report (./report.ts) the way ./reporter.ts does — and keeps one real
 * Playwright worker process (playwright/lib/worker/workerProcessEntry.js) alive across runs. So a
 * run pays neither for starting Node and loading Playwright twice nor for launching Chromium: the
 * worker's `browser` is a worker-scoped fixture, while `context`, `page` and `request` are made
 * fresh for every test, as in a cold run.
 *
 * argv: node warm-host.cjs PLAYWRIGHT_PACKAGE_DIR CONFIG_FILE
 * Messages from the parent: {type:'run', id, file, runDir, env}. To the parent:
 * {type:'ready', pid, workerPid}, {type:'report', id, report, output}, {type:'fatal', message}.
 */
const path = require('node:path');
const { fork } = require('node:child_process');

const [playwrightDir, configFile] = process.argv.slice(2);
const common = require(path.join(playwrightDir, 'lib', 'common', 'index.js'));
const { iso } = require(require.resolve('playwright-core/lib/coreBundle', { paths: [playwrightDir] }));
const workerEntry = path.join(playwrightDir, 'lib', 'worker', 'workerProcessEntry.js');
const envPreload = path.join(__dirname, 'warm-worker-env.cjs');

const MAX_STEPS = 2000;
const MAX_PARAM_CHARS = 2000;
const MAX_OUTPUT_CHARS = 64 * 1024;

let config;
let project;
let worker;
let output = '';
let current = null;
let nextDispatchId = 0;

function send(message) {
  if (process.send) process.send(message);
}

function fatal(message) {
  send({ type: 'fatal', message });
  process.exit(1);
}

function collectOutput(chunk) {
  if (output.length < MAX_OUTPUT_CHARS) output += chunk.toString('utf8');
}

function errorOf(error) {
  let location = error.location ? { file: error.location.file, line: error.location.line, column: error.location.column } : null;
  // As Playwright's runner does before its reporters see an error: a position from the stack.
  if (!location && error.stack) location = locationFromStack(error.stack);
  return { message: error.message ?? error.value ?? 'unknown error', stack: error.stack ?? null, location };
}

function locationFromStack(stack) {
  for (const line of stack.split('\n')) {
    const match = /\(?((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!match || /[\\/]node_modules[\\/]/.test(match[1])) continue;
    return { file: match[1].replace(/^file:\/\//, ''), line: Number(match[2]), column: Number(match[3]) };
  }
  return null;
}

function paramsOf(step) {
  if (step.category !== 'pw:api' || !step.params) return null;
  const params = {};
  for (const [key, value] of Object.entries(step.params)) {
    if (typeof value === 'string') params[key] = value.length > MAX_PARAM_CHARS ? `${value.slice(0, MAX_PARAM_CHARS)}…` : value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[key] = value;
  }
  return params;
}

function chunkText(params) {
  if (typeof params.text === 'string') return params.text;
  if (typeof params.buffer === 'string') return Buffer.from(params.buffer, 'base64').toString('utf8');
  return '';
}

/** Steps depth-first, as ./reporter.ts lists them. */
function flattenSteps(run, steps, depth, out) {
  for (const step of steps) {
    if (run.stepCount >= MAX_STEPS) return;
    run.stepCount += 1;
    out.push({
      title: step.title,
      category: step.category,
      depth,
      startTime: step.startTime,
      durationMs: step.duration,
      error: step.error ? errorOf(step.error) : null,
      location: step.location ? { file: step.location.file, line: step.location.line, column: step.location.column } : null,
      params: paramsOf(step),
    });
    flattenSteps(run, step.steps, depth + 1, out);
  }
}

function onWorkerEvent(method, params) {
  const run = current;
  if (method === 'stdOut' || method === 'stdErr') {
    const text = chunkText(params);
    if (run && run.running) (method === 'stdOut' ? run.running.stdout : run.running.stderr).push(text);
    else collectOutput(text);
    return;
  }
  if (!run) return;
  if (method === 'testBegin') {
    const test = run.tests.get(params.testId);
    if (!test) return;
    run.running = { test, startTime: params.startWallTime, steps: [], byId: new Map(), stdout: [], stderr: [] };
    run.byTestId.set(params.testId, run.running);
  } else if (method === 'stepBegin') {
    const data = run.byTestId.get(params.testId);
    if (!data) return;
    const parent = params.parentStepId ? data.byId.get(params.parentStepId) : undefined;
    const step = { title: params.title, category: params.category, params: params.params, startTime: params.wallTime, duration: -1, steps: [], location: params.location, error: null };
    data.byId.set(params.stepId, step);
    (parent ? parent.steps : data.steps).push(step);
  } else if (method === 'stepEnd') {
    const data = run.byTestId.get(params.testId);
    const step = data && data.byId.get(params.stepId);
    if (!step) return;
    step.duration = params.wallTime - step.startTime;
    if (params.error) step.error = params.error;
    data.byId.delete(params.stepId);
  } else if (method === 'testEnd') {
    const data = run.byTestId.get(params.testId);
    if (!data) return;
    run.byTestId.delete(params.testId);
    run.remaining.delete(params.testId);
    const steps = [];
    flattenSteps(run, data.steps, 0, steps);
    run.report.tests.push({
      title: data.test.title,
      titlePath: run.titlePaths.get(params.testId),
      status: params.status,
      expectedStatus: params.expectedStatus,
      startTime: data.startTime,
      durationMs: params.duration,
      errors: params.errors.map(errorOf),
      steps,
      stdout: data.stdout,
      stderr: data.stderr,
    });
    if (params.status !== 'skipped' && params.status !== params.expectedStatus) run.failed = true;
    if (run.running === data) run.running = null;
  } else if (method === 'done') {
    for (const error of params.fatalErrors ?? []) run.report.errors.push(errorOf(error));
    if ((params.fatalUnknownTestIds ?? []).length > 0) run.report.errors.push({ message: 'Test not found in the worker process. Make sure test title does not change.', stack: null, location: null });
    finish(run, params.fatalErrors && params.fatalErrors.length > 0);
  }
}

function finish(run, workerBroken) {
  if (current !== run) return;
  current = null;
  // Tests the worker never ended (it stopped on a fatal error): failed, as Playwright's runner reports them.
  for (const testId of run.remaining) {
    const test = run.tests.get(testId);
    run.report.tests.push({ title: test.title, titlePath: run.titlePaths.get(testId), status: 'skipped', expectedStatus: test.expectedStatus, startTime: Date.now(), durationMs: 0, errors: [], steps: [], stdout: [], stderr: [] });
  }
  const failed = run.failed || run.report.errors.length > 0;
  run.report.status = failed ? 'failed' : 'passed';
  run.report.durationMs = Date.now() - run.report.startTime;
  send({ type: 'report', id: run.id, report: run.report, output, workerBroken: Boolean(workerBroken) });
  output = '';
}

async function startWorker() {
  worker = fork(workerEntry, [], {
    env: process.env,
    execArgv: [...process.execArgv, '--require', envPreload],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  worker.stdout.on('data', collectOutput);
  worker.stderr.on('data', collectOutput);
  worker.on('exit', (code, signal) => {
    if (current) {
      current.report.errors.push({ message: `Error: worker process exited unexpectedly (code=${code}, signal=${signal})`, stack: null, location: null });
      finish(current, true);
    }
    // The parent replaces the whole host: a worker of ours never comes back half-initialised.
    fatal(`the Playwright worker exited (code=${code}, signal=${signal})`);
  });
  await new Promise((resolve) => {
    worker.on('message', function onReady(message) {
      if (message && message.method === 'ready') {
        worker.off('message', onReady);
        resolve();
      }
    });
  });
  worker.on('message', (message) => {
    if (!message || message.method !== '__dispatch__') return;
    const { id, method, params } = message.params;
    if (id) return;
    onWorkerEvent(method, params);
  });
  const outputDir = project.project.outputDir;
  worker.send({
    method: '__init__',
    params: {
      processParams: { timeOrigin: iso.timeOrigin() },
      runnerParams: {
        workerIndex: 0,
        parallelIndex: 0,
        repeatEachIndex: 0,
        projectId: project.id,
        config: common.ipc.serializeConfig(config, false),
        artifactsDir: path.join(outputDir, '.playwright-artifacts-0'),
        pauseOnError: false,
        pauseAtEnd: false,
      },
    },
  });
}

const startingKeys = new Set(Object.keys(process.env));

/** The run's environment replaces the previous run's; what this process added since it started (the policy proxy's address) stays. */
let previousRunKeys = new Set();
function replaceEnv(env) {
  const kept = Object.fromEntries(Object.entries(process.env).filter(([key]) => !startingKeys.has(key) && !previousRunKeys.has(key)));
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env, kept);
  previousRunKeys = new Set(Object.keys(env));
}

async function run(message) {
  const runState = {
    id: message.id,
    tests: new Map(),
    titlePaths: new Map(),
    remaining: new Set(),
    byTestId: new Map(),
    running: null,
    failed: false,
    stepCount: 0,
    report: { status: 'passed', startTime: Date.now(), durationMs: 0, tests: [], errors: [] },
  };
  current = runState;
  // The spec's top level reads the check's variables while it is listed, as in Playwright's own runner.
  replaceEnv(message.env);
  worker.send({ method: '__vigil_env__', params: message.env });
  const loadErrors = [];
  const fileSuite = await common.testLoader.loadTestFile(message.file, config, loadErrors);
  for (const error of loadErrors) runState.report.errors.push(errorOf(error));
  const suite = common.suiteUtils.bindFileSuiteToProject(project, fileSuite);
  const tests = suite.allTests();
  const onlyTests = tests.filter((test) => test._only || hasOnlyParent(test));
  const chosen = onlyTests.length > 0 ? onlyTests : tests;
  for (const test of chosen) {
    runState.tests.set(test.id, test);
    runState.remaining.add(test.id);
    // As a cold run names it: the file relative to the run's directory, then the titles.
    const [, ...titles] = test.titlePath();
    runState.titlePaths.set(test.id, [path.relative(message.runDir, message.file), ...titles].filter((part) => part !== ''));
  }
  if (loadErrors.length > 0 || chosen.length === 0) {
    if (chosen.length === 0 && loadErrors.length === 0) runState.report.errors.push({ message: 'Error: No tests found', stack: null, location: null });
    runState.remaining.clear();
    finish(runState, false);
    return;
  }
  worker.send({
    method: '__dispatch__',
    params: {
      id: ++nextDispatchId,
      method: 'runTestGroup',
      params: { file: message.file, entries: chosen.map((test) => ({ testId: test.id, retry: 0, planAnnotations: test._planAnnotations ?? [] })) },
    },
  });
}

function hasOnlyParent(test) {
  for (let suite = test.parent; suite; suite = suite.parent) if (suite._only) return true;
  return false;
}

async function main() {
  try {
    config = await common.configLoader.loadConfig({ resolvedConfigFile: configFile, configDir: path.dirname(configFile) });
    project = config.projects[0];
    if (!project) fatal('the warm config has no project');
    await startWorker();
  } catch (error) {
    fatal(`the warm Playwright host did not start: ${error && error.stack ? error.stack : error}`);
  }
  process.on('message', (message) => {
    if (message && message.type === 'run') {
      run(message).catch((error) => {
        if (current) {
          current.report.errors.push(errorOf({ message: String(error && error.message ? error.message : error), stack: error && error.stack }));
          current.remaining.clear();
          finish(current, true);
        }
      });
    }
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', pid: process.pid, workerPid: worker.pid });
}

void main();
