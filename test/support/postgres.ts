/**
 * Embedded PostgreSQL for tests outside the server package (the engine's postgres state backend, the
 * e2e tests): the server's helper, reached through this module so that no package imports another
 * package's test code by a path of its own. Test files only.
 */
export { useTestPostgres, type TestPostgres } from '../../packages/server/src/store/postgres/test-database.js';
export { startEmbeddedPostgres, type RunningPostgres } from '../../packages/server/src/store/postgres/embedded.js';
