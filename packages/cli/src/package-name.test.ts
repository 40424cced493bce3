import { readFileSync } from 'node:fs';
import { LEGACY_PACKAGE_NAME, PACKAGE_NAME, tarballName } from '@vigil/constructs/package-name';
import { describe, expect, it } from 'vitest';
import { cliModuleAliases } from './commands/validate.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string };

describe('the package name', () => {
  it('is the one packages/cli/package.json publishes', () => {
    expect(manifest.name).toBe(PACKAGE_NAME);
  });

  it('is scoped, never the bare `vigil` that names an unrelated package on the npm registry', () => {
    expect(PACKAGE_NAME).toBe('@vigil-mon/cli');
    expect(tarballName('0.1.0')).toBe('vigil-mon-cli-0.1.0.tgz');
  });

  it('and its pre-rename name both resolve, in user code, to the modules the CLI runs', () => {
    const aliases = cliModuleAliases();
    expect(aliases[PACKAGE_NAME]).toBe(aliases[LEGACY_PACKAGE_NAME]);
    expect(aliases[`${PACKAGE_NAME}/constructs`]).toBe(aliases[`${LEGACY_PACKAGE_NAME}/constructs`]);
    expect(aliases[PACKAGE_NAME]).toMatch(/index\.(ts|mjs)$/);
    expect(aliases[`${PACKAGE_NAME}/constructs`]).toMatch(/constructs\.(ts|mjs)$/);
  });
});
