/**
 * `vigil server migrate-data --from DIR --to postgres://…`: copies an embedded server's SQLite
 * database into an empty PostgreSQL database, then prints the rows of every kind on both sides.
 */
import { Option, type Command } from 'commander';
import { CliError, usageError } from '../errors.js';
import { loadServerPart } from '../server-module.js';

interface MigrateDataFlags {
  from?: string;
  to?: string;
}

const MIGRATE_HELP = `
The source is opened read-only and never changed; stop the server using it first. The target must
be empty: its schema is brought up to date, every kind is copied in one transaction, and the rows of
each kind are counted on both sides before it commits. Any difference, or any failure, rolls the
whole copy back (exit 1) and leaves the target empty, so the command can simply run again.
Idempotency keys, rate-limit windows and the change feed are not copied (they are short-lived or
rebuilt); a source holding rows of a kind PostgreSQL cannot keep yet is refused, naming them.
The password in the URL is never printed: messages name host:port/database.

Example:
  vigil server migrate-data --from .vigil/server --to postgres://vigil:secret@127.0.0.1:5432/vigil
`;

const thousands = (value: number) => Math.round(value).toLocaleString('en-US');

export function registerMigrateData(server: Command): void {
  server
    .command('migrate-data')
    .description("Copy a server's SQLite data (--data DIR) into an empty PostgreSQL database, and verify the copy.")
    .option('--from <path>', 'the --data directory of the server to copy (its vigil.db), or the database file')
    .addOption(new Option('--to <url>', 'the PostgreSQL database to copy into: postgres://user:password@host:port/database').env('VIGIL_DATABASE_URL'))
    .addHelpText('after', MIGRATE_HELP)
    .action(async (flags: MigrateDataFlags) => {
      if (flags.from === undefined || flags.from.trim() === '') throw usageError('vigil server migrate-data needs --from DIR: the --data directory of the server to copy (or its vigil.db)');
      if (flags.to === undefined || flags.to.trim() === '') throw usageError('vigil server migrate-data needs --to postgres://user:password@host:port/database (or VIGIL_DATABASE_URL)');
      // Its own chunk: the PostgreSQL driver is loaded by this command only.
      const server = await loadServerPart(() => import('@vigil/server/migrate-data'));
      try {
        server.checkTargetUrl(flags.to);
      } catch (error) {
        throw usageError((error as Error).message);
      }
      let report: Awaited<ReturnType<typeof server.migrateData>>;
      try {
        report = await server.migrateData({ from: flags.from, to: flags.to, progress: (line) => process.stderr.write(`${line}\n`) });
      } catch (error) {
        if (error instanceof server.MigrateDataError) throw new CliError(error.message, { cause: error });
        throw error;
      }
      const width = Math.max(...report.counts.map((count) => count.kind.length), 4);
      const lines = [
        `copied into ${report.target} in ${(report.ms / 1000).toFixed(1)} s; rows of each kind:`,
        `  ${'kind'.padEnd(width)}  ${'SQLite'.padStart(10)}  ${'PostgreSQL'.padStart(10)}`,
        ...report.counts.map((count) => `  ${count.kind.padEnd(width)}  ${String(count.source).padStart(10)}  ${String(count.target).padStart(10)}`),
      ];
      if (report.results.rows > 0 && report.results.ms > 0) {
        lines.push(`results: ${thousands(report.results.rows)} rows in ${(report.results.ms / 1000).toFixed(1)} s (${thousands((report.results.rows * 1000) / report.results.ms)} rows/s)`);
      }
      for (const skipped of report.skipped) lines.push(`not copied: ${skipped.table} (${skipped.rows} row${skipped.rows === 1 ? '' : 's'}): ${skipped.reason}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
