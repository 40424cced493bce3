/**
 * For tests of what a replica does while its LISTEN connection (notifications-listener.ts) is away:
 * a login role of its own, so one replica's new connections can be refused while the others' go on,
 * and the end of that replica's listening connection as an administrator ends it. Test code only:
 * its SQL lives here because every statement lives in an engine's folder.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

async function asAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Creates the superuser `role` (a name of lower-case letters and underscores) and resolves to `adminUrl` logging in as it. */
export async function replicaRole(adminUrl: string, role: string): Promise<string> {
  if (!/^[a-z_]+$/.test(role)) throw new Error(`a test role is lower-case letters and underscores, not ${JSON.stringify(role)}`);
  const password = randomBytes(12).toString('hex');
  await asAdmin(adminUrl, (admin) => admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD '${password}'`));
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}

/** Refuses (or allows again) new connections of `role`; its open ones go on. */
export async function refuseLogins(adminUrl: string, role: string, refused: boolean): Promise<void> {
  await asAdmin(adminUrl, (admin) => admin.query(`ALTER ROLE ${role} ${refused ? 'NOLOGIN' : 'LOGIN'}`));
}

/** Ends `role`'s connections that last ran a LISTEN (an idle listener's) as an administrator does; resolves to how many. */
export async function terminateListening(adminUrl: string, role: string): Promise<number> {
  return asAdmin(adminUrl, async (admin) => {
    const { rows } = await admin.query<{ ended: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE usename = $1 AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()",
      [role],
    );
    return rows.filter((row) => row.ended).length;
  });
}
