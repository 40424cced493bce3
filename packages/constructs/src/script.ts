import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BuildContext } from './build-context.js';


/**
 * Code for a check: a file to bundle (resolved against the file that created the construct), or
 * the code itself.
 */
export type ScriptSource = { entrypoint: string; content?: never } | { content: string; entrypoint?: never };

/** Payload fields that hold code. */
export type ScriptField = 'script' | 'localSetupScript' | 'localTearDownScript';

/** One entrypoint the loader must bundle before validate/synth. */
export interface ScriptBundleRequest {
  field: ScriptField;
  /** The entrypoint as the user wrote it. */
  entrypoint: string;
  /** Absolute path of the entrypoint. */
  path: string;
  /** Prop that holds it, for diagnostics: `code.entrypoint`, `setupScript.entrypoint`. */
  propPath: string;
}

/** A construct with script entrypoints for the loader to bundle. */
export interface ScriptOwner {
  /** The entrypoints to bundle, with absolute paths. */
  scriptEntrypoints(): ScriptBundleRequest[];
  /** Hands over the bundled code of one field; synth puts it in the payload. */
  setBundledScript(field: ScriptField, code: string): void;
}

/** Whether `value` has script entrypoints (structural, so it works across package copies). */
export function isScriptOwner(value: unknown): value is ScriptOwner {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<ScriptOwner>).scriptEntrypoints === 'function' &&
    typeof (value as Partial<ScriptOwner>).setBundledScript === 'function'
  );
}

/**
 * The scripts of one construct: where each comes from and, for entrypoints, the code the loader
 * bundled. Entrypoints resolve with the construct's `resolveUserPath` (from the file being loaded),
 * only when an entrypoint is asked for.
 */
export class ScriptSlots {
  readonly #slots = new Map<ScriptField, { source: ScriptSource; propPath: string }>();
  readonly #bundled = new Map<ScriptField, string>();

  constructor(
    private readonly resolvePath: (file: string) => string,
  ) {}

  /** Records the source of `field`; `propPath` names the prop in diagnostics (`code`, `setupScript`). */
  add(field: ScriptField, source: ScriptSource | undefined, propPath: string): void {
    if (source !== undefined) this.#slots.set(field, { source, propPath });
  }

  has(field: ScriptField): boolean {
    return this.#slots.has(field);
  }

  entrypoints(): ScriptBundleRequest[] {
    const requests: ScriptBundleRequest[] = [];
    for (const [field, { source, propPath }] of this.#slots) {
      if (typeof source?.entrypoint !== 'string') continue;
      requests.push({ field, entrypoint: source.entrypoint, path: this.#resolve(source.entrypoint), propPath: `${propPath}.entrypoint` });
    }
    return requests;
  }

  setBundled(field: ScriptField, code: string): void {
    if (!this.#slots.has(field)) {
      throw new Error(`setBundledScript("${field}") on a construct without that script (this is a bug in vigil's loader)`);
    }
    this.#bundled.set(field, code);
  }

  /** The code for `field`'s payload, or `undefined` (with a diagnostic when something is wrong). */
  resolve(context: BuildContext, field: ScriptField): string | undefined {
    const slot = this.#slots.get(field);
    if (slot === undefined) return undefined;
    const { source, propPath } = slot;
    const hasEntrypoint = typeof source?.entrypoint === 'string';
    const hasContent = typeof source?.content === 'string';
    if (hasEntrypoint === hasContent) {
      context.error(
        propPath,
        `"${propPath}" must have exactly one of "entrypoint" (a file to bundle) or "content" (the code itself)`,
        `For example \`${propPath}: { entrypoint: './login.spec.ts' }\`.`,
      );
      return undefined;
    }
    if (hasContent) return source.content;
    const bundled = this.#bundled.get(field);
    if (bundled !== undefined) return bundled;
    const resolved = this.#resolve(source.entrypoint!);
    if (!existsSync(resolved)) {
      context.error(
        `${propPath}.entrypoint`,
        `"${propPath}.entrypoint" file not found: ${resolved}`,
        'Entrypoints are resolved relative to the file being loaded (the monitor or check file), as in Checkly.',
      );
    } else {
      context.error(
        `${propPath}.entrypoint`,
        `"${propPath}.entrypoint" (${resolved}) was not bundled before validation (this is a bug in vigil's loader)`,
      );
    }
    return undefined;
  }

  /**
   * The payload value of a setup/teardown field that can be given inline (`localSetupScript`) or as
   * a script source (`setupScript`); setting both is reported.
   */
  resolveWithInline(context: BuildContext, field: ScriptField, inline: string | null | undefined): string | null | undefined {
    const slot = this.#slots.get(field);
    if (slot === undefined) return inline;
    if (inline !== undefined) {
      context.error(slot.propPath, `"${slot.propPath}" and "${field}" set the same script; set only one`, `Prefer "${slot.propPath}".`);
    }
    return this.resolve(context, field);
  }

  /** The prop that holds `field`'s script source, when it has one. */
  propPathOf(field: ScriptField): string | undefined {
    return this.#slots.get(field)?.propPath;
  }

  #resolve(entrypoint: string): string {
    return this.resolvePath(entrypoint);
  }
}
