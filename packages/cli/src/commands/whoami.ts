/**
 * `vigil whoami`: which account the configured API key acts on (GET /v1/accounts).
 */
import type { Command } from 'commander';
import { CliError, oneLine, registerSecrets } from '../errors.js';

export function registerWhoami(program: Command): void {
  program
    .command('whoami')
    .description('print the account the configured API key acts on (GET /v1/accounts)')
    .option('--json', 'print the account as JSON')
    .addHelpText('after', '\nTarget: VIGIL_API_URL and VIGIL_API_KEY; VIGIL_ACCOUNT_ID picks one account of a key that has several.')
    .action(async (options: { json?: boolean }) => {
      // The embedded local service only ever has the built-in account, so asking it "who am I" would
      // answer nothing useful; whoami is about a real target and says how to name one.
      if (!process.env['VIGIL_API_URL']) {
        throw new CliError('no API target configured: set VIGIL_API_URL (e.g. http://127.0.0.1:4010, where `vigil server` listens) and VIGIL_API_KEY, and optionally VIGIL_ACCOUNT_ID');
      }
      const { resolveTarget } = await import('../target.js');
      const target = await resolveTarget({ root: process.cwd() });
      registerSecrets([target.apiKey]);
      const { createClient, ApiError } = await import('@vigil/client');
      const { VERSION } = await import('../version.js');
      const client = createClient({
        baseUrl: target.baseUrl,
        apiKey: target.apiKey,
        accountId: target.accountId || undefined,
        userAgent: `vigil/${VERSION}`,
        ...(target.pacing === undefined ? {} : { pacing: target.pacing }),
      });
      let accounts;
      try {
        accounts = await client.accounts.list();
      } catch (error) {
        const { unreachableService } = await import('../errors.js');
        if (error instanceof ApiError) throw unreachableService(error) ?? new CliError(`cannot read the account at ${target.baseUrl}: ${error.message}`, { cause: error });
        throw error;
      } finally {
        await target.close();
      }
      // The service lists every account of the key; VIGIL_ACCOUNT_ID (sent as x-service-account) picks one.
      const account = target.accountId ? accounts.find((candidate) => candidate.id === target.accountId) : accounts[0];
      if (!account) {
        const which = target.accountId ? `account "${target.accountId}"` : 'account';
        throw new CliError(`the API key has no ${which} at ${target.baseUrl}`);
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ ...account, baseUrl: target.baseUrl }, null, 2)}\n`);
        return;
      }
      // The account's name is the service's text: escaped, so it cannot carry terminal sequences.
      process.stdout.write(`account  ${oneLine(account.name)} (${oneLine(account.id)})\napi      ${target.baseUrl}\n`);
    });
}
