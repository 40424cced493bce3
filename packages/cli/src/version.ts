import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The CLI's version, read from its package.json so there is one place to bump it. */
export const VERSION: string = (require('../package.json') as { version: string }).version;
