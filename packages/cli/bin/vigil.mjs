#!/usr/bin/env node
// The workspace ships TypeScript sources; tsx compiles them on the fly (esbuild, cached), so the CLI,
// the tests and the benchmarks all run the very same files without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv);
