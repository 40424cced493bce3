'use strict';
/**
 * Loaded first in the warm Playwright worker (./warm-host.cjs): before each run the host sends the
 * run's environment (the check's variables and what the runner sets, as a cold run gets), which
 * replaces the previous run's. What the worker itself added since it started (Playwright's
 * TEST_WORKER_INDEX, the policy proxy's address) stays. Playwright's worker ignores messages it
 * does not know, and Node delivers them in order, so the environment is in place before the run's
 * tests start.
 */
const startingKeys = new Set(Object.keys(process.env));
let previousRunKeys = new Set();
process.on('message', (message) => {
  if (!message || message.method !== '__vigil_env__') return;
  const kept = Object.fromEntries(Object.entries(process.env).filter(([key]) => !startingKeys.has(key) && !previousRunKeys.has(key)));
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, message.params, kept);
  previousRunKeys = new Set(Object.keys(message.params));
});
