import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleScript } from './scripts.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'vigil-bundle-script-'));
  mkdirSync(path.join(root, 'scripts/lib'), { recursive: true });
  writeFileSync(path.join(root, 'scripts/lib/sign.ts'), "import { createHash } from 'node:crypto';\nexport const sign = (v: string): string => createHash('sha1').update(v).digest('hex');\n");
  writeFileSync(
    path.join(root, 'scripts/setup.ts'),
    [
      "import lodash from 'lodash';",
      "import { sign } from './lib/sign';",
      'declare const request: { headers: Record<string, string> };',
      "const token = await Promise.resolve(sign('x'));",
      "request.headers['x-token'] = token + String(lodash === undefined);",
      '',
    ].join('\n'),
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function sourceMapOf(script: string): { sources: string[] } {
  const match = /\/\/# sourceMappingURL=data:application\/json;base64,(\S+)\s*$/.exec(script);
  if (!match?.[1]) throw new Error('the bundle has no inline source map');
  return JSON.parse(Buffer.from(match[1], 'base64').toString('utf8')) as { sources: string[] };
}

describe('bundleScript', () => {
  it('bundles a script with top-level await', async () => {
    const { script, diagnostics } = await bundleScript({ root, entrypoint: path.join(root, 'scripts/setup.ts') });
    expect(diagnostics).toEqual([]);
    expect(script).toContain('await Promise.resolve(sign("x"))');
  });

  it('turns imports of runtime packages and built-ins into require calls, so the bundle has no import statements', async () => {
    const { script } = await bundleScript({ root, entrypoint: path.join(root, 'scripts/setup.ts') });
    expect(script).toContain('__require("lodash")');
    expect(script).toContain('__require("node:crypto")');
    expect(script).not.toMatch(/^\s*import\b/m);
  });

  it('runs as the body of an async function with require in scope (how setup scripts run)', async () => {
    const { script } = await bundleScript({ root, entrypoint: path.join(root, 'scripts/setup.ts') });
    const request = { headers: {} as Record<string, string> };
    const fakeRequire = (name: string) => (name === 'lodash' ? { lodash: true } : createRequire(import.meta.url)(name));
    const body = new Function('require', 'request', `return (async () => {\n${script}\n})();`) as (r: unknown, q: unknown) => Promise<void>;
    await body(fakeRequire, request);
    expect(request.headers['x-token']).toMatch(/^[0-9a-f]{40}false$/);
  });

  it('carries an inline source map naming the files relative to the project root, without their content', async () => {
    const { script } = await bundleScript({ root, entrypoint: path.join(root, 'scripts/setup.ts') });
    const map = sourceMapOf(script ?? '');
    expect(map.sources).toEqual(expect.arrayContaining(['scripts/lib/sign.ts', 'scripts/setup.ts']));
    expect(map).not.toHaveProperty('sourcesContent');
  });
});
