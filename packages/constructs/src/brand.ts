/**
 * Brands recognised across copies of this package. Bundled user code may carry its own copy of
 * `@vigil/constructs`, and `instanceof` fails across copies; `Symbol.for` returns the same symbol
 * in every copy (and every realm), so a brand check works where `instanceof` does not.
 */
export const CONSTRUCT_BRAND: unique symbol = Symbol.for('vigil.construct');

/** Brand of `X.fromId(id)` references to resources Vigil does not manage. */
export const EXTERNAL_REF_BRAND: unique symbol = Symbol.for('vigil.external-ref');

/** Brand of what `construct.ref()` returns. */
export const CONSTRUCT_REF_BRAND: unique symbol = Symbol.for('vigil.construct-ref');

/** Key on `globalThis` of the AsyncLocalStorage that scopes construct creation to a Project. */
export const PROJECT_SCOPE_KEY: unique symbol = Symbol.for('vigil.project-scope');

/** Key under which `defineConfig` records where the config was written. */
export const CONFIG_SOURCE_KEY: unique symbol = Symbol.for('vigil.config-source');
