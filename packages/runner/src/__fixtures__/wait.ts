/**
 * Polls `condition` until it holds. The limit is generous (a loaded 2-core machine is slow; only a
 * broken build waits it out) and the failure names what was awaited.
 */
export async function waitUntil(what: string, condition: () => boolean, limitMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`gave up after ${limitMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
