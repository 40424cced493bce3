/**
 * Messages between the script pool (the runner's process) and a script worker (a child process).
 * Plain JSON over the IPC channel; the worker imports only these types, so it stays free of the
 * runner's modules.
 */
import type { JobLogLine, ScriptRequest } from '../types.js';

/** The response as a teardown script sees it: Checkly's names, plus `status`/`statusText` aliases. */
export interface WorkerResponse {
  statusCode: number;
  statusMessage: string;
  headers: Record<string, string>;
  body: string;
  timings: Record<string, number>;
  timingPhases: Record<string, number>;
}

export interface RunMessage {
  type: 'run';
  id: number;
  kind: 'setup' | 'teardown';
  code: string;
  /** Names the code in stack traces when it carries no source map ("setup script"). */
  label: string;
  /** The check's variables: the script's whole `process.env`. */
  env: Record<string, string>;
  request: ScriptRequest;
  response: WorkerResponse | null;
  /** Where `require` resolves packages from first (the project's node_modules). */
  projectRoot: string | null;
}

/** The script's error, with its location mapped back to the user's own file. */
export interface WorkerError {
  message: string;
  /** `scripts/setup.ts:4:7`, or `setup script:4:7` for code without a source map. */
  location: string | null;
  /** The mapped stack, only frames of user code and its packages. */
  stack: string;
}

export interface DoneMessage {
  type: 'done';
  id: number;
  request: ScriptRequest;
  response: WorkerResponse | null;
  env: Record<string, string>;
  logs: JobLogLine[];
  error: WorkerError | null;
  /** CPU time the process has used so far (user + system): the pool retires it before its CPU limit. */
  cpuMs: number;
}

export interface ReadyMessage {
  type: 'ready';
}

export type WorkerMessage = DoneMessage | ReadyMessage;
