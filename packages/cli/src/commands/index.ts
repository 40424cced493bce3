import type { Command } from 'commander';
import { registerAgent } from './agent.js';
import { registerApply } from './apply.js';
import { registerDestroy } from './destroy.js';
import { registerImport } from './import.js';
import { registerInit } from './init.js';
import { registerPlan } from './plan.js';
import { registerServer } from './server.js';
import { registerShow } from './show.js';
import { registerState } from './state.js';
import { registerStatus } from './status.js';
import { registerSynth } from './synth.js';
import { registerTest } from './test.js';
import { registerValidate } from './validate.js';
import { registerWhoami } from './whoami.js';

/**
 * Every `vigil` subcommand, in the order `vigil --help` lists them. Each module only declares its
 * flags here; the heavy imports (server, engine, esbuild) happen inside the action, so `vigil --help`
 * and `vigil validate` never pay for what they do not use.
 */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerInit,
  registerValidate,
  registerSynth,
  registerTest,
  registerPlan,
  registerApply,
  registerDestroy,
  registerShow,
  registerImport,
  registerState,
  registerStatus,
  registerWhoami,
  registerServer,
  registerAgent,
];
