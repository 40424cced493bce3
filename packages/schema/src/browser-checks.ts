/**
 * Browser checks: POST /v1/checks/browser, PUT /v1/checks/browser/{id} (the real service's
 * ChecksV1BrowserCheckCreate / ChecksV1BrowserCheckUpdate / ChecksV1BrowserCheck): a Playwright
 * spec run in Chromium. Same pattern as ./checks.ts: a defaults-free shape, `Create` with the
 * documented defaults, `Update` all optional, and the response.
 *
 * `playwrightConfig` is not in the real service's v1 document; Checkly's CLI sends it with every
 * browser check (its `BrowserCheck` construct), so Vigil stores it as an extension.
 */
import { z } from 'zod';
import { Dependencies, EnvironmentVariableResponse, type EnvironmentVariable, EnvironmentVariables } from './embedded.js';
import { checkResponseFields, commonCheckDefaults, commonCheckFields, refineFrequencyOffset } from './checks.js';
import { allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { SCRIPT_MAX_LENGTH } from './limits.js';
import { MultiStepFrequency } from './values.js';

/**
 * What Checkly's `playwrightConfig` carries (its PlaywrightConfig type): `use` options of the
 * browser context, `expect` options and the test timeout. Nested options are Playwright's own,
 * passed through as given.
 */
export const PlaywrightConfig = z.object({
  use: z.record(z.string(), z.unknown()).optional(),
  expect: z.record(z.string(), z.unknown()).optional(),
  /** Per-test timeout in milliseconds; the run's own deadline still applies. */
  timeout: z.number().int().positive().optional(),
});
export type PlaywrightConfig = z.infer<typeof PlaywrightConfig>;

const browserCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('BROWSER').optional(),
  // Browser checks cannot run sub-minute: the real document's frequency enum has no 0.
  frequency: MultiStepFrequency.optional(),
  script: z.string().min(1).max(SCRIPT_MAX_LENGTH),
  scriptPath: z.string().nullable().optional(),
  environmentVariables: EnvironmentVariables.optional(),
  dependencies: Dependencies.nullable().optional(),
  sslCheckDomain: z.string().nullable().optional(),
  playwrightConfig: PlaywrightConfig.nullable().optional(),
};

const browserCheckCreateShape = withDefaults(browserCheckFields, {
  ...commonCheckDefaults,
  checkType: 'BROWSER',
  environmentVariables: [] as EnvironmentVariable[],
  sslCheckDomain: null,
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/browser`; required `name`, `script`; frequency without 0. */
export const BrowserCheckCreate = z.object(browserCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type BrowserCheckCreate = z.infer<typeof BrowserCheckCreate>;
export type BrowserCheckCreateInput = z.input<typeof BrowserCheckCreate>;

/** Body of `PUT /v1/checks/browser/{id}`: merge semantics, nothing defaulted. */
export const BrowserCheckUpdate = z.object(allOptional(browserCheckFields)).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type BrowserCheckUpdate = z.infer<typeof BrowserCheckUpdate>;

/** A browser check as the service returns it (secret variables with `value: null`). */
export const BrowserCheck = z.object({
  ...browserCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('BROWSER'),
  frequencyOffset: z.number().int(),
  environmentVariables: z.array(EnvironmentVariableResponse).nullable(),
});
export type BrowserCheck = z.infer<typeof BrowserCheck>;
