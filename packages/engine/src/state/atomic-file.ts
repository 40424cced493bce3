/**
 * Crash-safe file replacement: whatever moment the process dies at, the path holds either the old
 * content or the new, never a mix. The new content goes to a temporary file in the same directory
 * (rename is only atomic within one file system), is flushed to disk, then renamed over the old one;
 * flushing the directory makes the rename itself survive a power loss.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

function tempPrefix(path: string): string {
  return `.${basename(path)}.`;
}

export async function writeFileAtomically(path: string, content: string): Promise<void> {
  const directory = dirname(path);
  const temp = join(directory, `${tempPrefix(path)}${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(directory);
}

export async function syncDirectory(directory: string): Promise<void> {
  // Windows cannot open a directory for fsync; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Removes temporary files a killed writer left behind. Only called while holding the state lock,
 * when no other writer can be midway through a write.
 */
export async function removeLeftoverTempFiles(path: string): Promise<void> {
  const prefix = tempPrefix(path);
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
      .map((name) => unlink(join(dirname(path), name)).catch(() => undefined)),
  );
}
