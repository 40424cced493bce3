/**
 * The local backend's step log: `state.json.wal` beside `state.json`, one JSON line per journal step
 * (see `JournalStep`), appended and flushed before the call the step guards. `state.json` is the
 * checkpoint; the document is the checkpoint with the log's steps applied.
 *
 * Each line names the lineage and the serial of the checkpoint it extends (`base`). A checkpoint gets
 * a new serial, so lines left from before it (a crash between writing the checkpoint and emptying the
 * log) no longer match and are skipped. The last line may be cut short by a crash mid-append: that
 * step was never acknowledged, so its call was never made, and it is dropped. A malformed line
 * anywhere else means the file was damaged, and reading stops with an error naming the line.
 */
import { z } from 'zod';
import { applyJournalStep } from './journal.js';
import { journalEntrySchema, resourceSchema } from './document.js';
import { StateError } from './errors.js';
import type { JournalStep, StateDocument } from './types.js';

export const STEP_LOG_SUFFIX = '.wal';

const stepSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('begin'), entry: journalEntrySchema }),
  z.strictObject({ type: z.literal('complete'), id: z.string().min(1), address: z.string().optional(), resource: resourceSchema.nullable().optional() }),
]);

const recordSchema = z.strictObject({ lineage: z.string(), base: z.int().nonnegative(), step: stepSchema });

/** The lines that append `steps` to the checkpoint of `lineage` at serial `base`. */
export function encodeSteps(lineage: string, base: number, steps: readonly JournalStep[]): string {
  return steps.map((step) => `${JSON.stringify({ lineage, base, step })}\n`).join('');
}

/**
 * Applies the log's steps that extend `document` (the checkpoint just read, owned by the caller) in
 * place, and returns how many it applied. `location` names the log in errors.
 */
export function replaySteps(document: StateDocument, logText: string, location: string): number {
  const untouched = 'vigil left it untouched: fix or remove it (removing it forgets the steps it holds)';
  const lines = logText.split('\n');
  // Text after the last newline is a line whose append never completed.
  lines.pop();
  let applied = 0;
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let record: z.output<typeof recordSchema>;
    try {
      record = recordSchema.parse(JSON.parse(line));
    } catch (error) {
      throw new StateError('state-invalid', `state log ${location} line ${index + 1} is not a journal step (${firstProblem(error)}); ${untouched}`, {
        cause: error,
      });
    }
    if (record.lineage !== document.lineage || record.base !== document.serial - applied) continue;
    try {
      applyJournalStep(document, record.step as JournalStep);
    } catch (error) {
      throw new StateError('state-invalid', `state log ${location} line ${index + 1} does not follow the state: ${(error as Error).message}; ${untouched}`, {
        cause: error,
      });
    }
    applied += 1;
    document.serial += 1;
  }
  return applied;
}

function firstProblem(error: unknown): string {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0]!;
    return `${issue.path.join('.') || 'line'}: ${issue.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
