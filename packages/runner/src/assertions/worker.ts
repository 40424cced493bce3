/**
 * The assertion worker thread (see pool.ts): evaluates the assertions it is handed one by one and
 * posts each outcome as soon as it has it, so the pool knows which assertion a stopped worker was
 * on and keeps the outcomes of those before it.
 */
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { AssertionOutcome } from '../types.js';
import { evaluateOne, lazyJson, type AssertedResponse, type AssertionInput } from './evaluate.js';

/** nice(1)'s scale: below the service's thread, as user scripts are. */
const ASSERTION_NICENESS = 10;

export interface EvaluateMessage {
  id: number;
  assertions: AssertionInput[];
  response: AssertedResponse;
}

export type WorkerReply = { type: 'ready' } | { type: 'outcome'; id: number; outcome: AssertionOutcome };

// On Linux a thread has a CPU priority of its own (setpriority on "this process" means this thread):
// a user's pattern that runs to its deadline then takes the CPU the service's own thread does not need.
try {
  os.setPriority(ASSERTION_NICENESS);
} catch {
  // not permitted here: the deadline still bounds it
}

const port = parentPort;
if (port !== null) {
  port.on('message', (message: EvaluateMessage) => {
    const parsedBody = lazyJson(message.response);
    for (const assertion of message.assertions) {
      let outcome: AssertionOutcome;
      try {
        outcome = evaluateOne(assertion, message.response, parsedBody);
      } catch (error) {
        // evaluateOne turns every user mistake into an outcome; what reaches here is a fault of ours,
        // and it fails this assertion, not the worker and the assertions after it.
        outcome = {
          source: assertion.source,
          comparison: assertion.comparison,
          property: assertion.property ?? '',
          target: assertion.target ?? '',
          regex: assertion.regex ?? null,
          actual: undefined,
          passed: false,
          error: `this is a bug in vigil: evaluating the assertion threw ${String((error as Error)?.message ?? error)}`,
        };
      }
      port.postMessage({ type: 'outcome', id: message.id, outcome } satisfies WorkerReply);
    }
  });
  port.postMessage({ type: 'ready' } satisfies WorkerReply);
}
