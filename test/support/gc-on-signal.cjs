/**
 * Preloaded into a `vigil server` child by tests that measure its memory (`node --expose-gc
 * --require …`). On SIGUSR2 it runs a full collection and prints `collected rss=BYTES` on stderr,
 * so a test compares what the server keeps, not how much garbage V8 let pile up before its next
 * mark-compact (V8 grows the heap to ~130 MB of garbage before collecting, whatever the server
 * retains). Test-only: the product never loads it.
 */
'use strict';
process.on('SIGUSR2', () => {
  // Twice: the first collection can leave objects whose finalizers free more on the second.
  globalThis.gc();
  globalThis.gc();
  process.stderr.write(`collected rss=${process.memoryUsage().rss}\n`);
});
