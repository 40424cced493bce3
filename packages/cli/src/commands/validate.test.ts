import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@vigil/engine';
import { maskSecrets } from './synth.js';
import { formatDiagnostic, summaryLine } from './validate.js';

const error: Diagnostic = { severity: 'error', message: 'boom' };
const warning: Diagnostic = { severity: 'warning', message: 'hmm' };

describe('summaryLine', () => {
  it.each([
    { diagnostics: [], resources: 12, want: '✔ 12 resources valid' },
    { diagnostics: [], resources: 1, want: '✔ 1 resource valid' },
    { diagnostics: [warning], resources: 3, want: '✔ 3 resources valid, 1 warning' },
    { diagnostics: [error, error, warning], resources: 3, want: '2 errors, 1 warning' },
    { diagnostics: [error], resources: 3, want: '1 error' },
  ])('$want', ({ diagnostics, resources, want }) => {
    expect(summaryLine(diagnostics, resources)).toBe(want);
  });
});

describe('formatDiagnostic', () => {
  it.each([
    {
      name: 'location, severity, message, address and field, then the hint',
      diagnostic: {
        severity: 'error',
        message: '"frequency" must be one of 0, 1, 2',
        hint: 'Use a Frequency builder.',
        address: 'api-check.home',
        path: 'frequency',
        source: { file: 'checks/home.monitor.ts', line: 12, column: 5 },
      } satisfies Diagnostic,
      want: 'checks/home.monitor.ts:12:5  error  "frequency" must be one of 0, 1, 2  (api-check.home.frequency)\n  hint: Use a Frequency builder.',
    },
    {
      name: 'an address without a field',
      diagnostic: { severity: 'warning', message: 'deprecated', address: 'check-group.web' } satisfies Diagnostic,
      want: 'warning  deprecated  (check-group.web)',
    },
    { name: 'a bare message', diagnostic: error, want: 'error  boom' },
  ])('prints $name', ({ diagnostic, want }) => {
    expect(formatDiagnostic(diagnostic)).toBe(want);
  });
});

describe('maskSecrets', () => {
  it('replaces the value at each secret path, leaving the payload itself untouched', () => {
    const payload = { config: { apiKey: 'k-123', region: 'EU' }, environmentVariables: [{ key: 'A', value: 'v' }, { key: 'B', value: 's' }] };
    expect(maskSecrets(payload, ['config.apiKey', 'environmentVariables[1].value', 'missing.path'])).toEqual({
      config: { apiKey: '(sensitive)', region: 'EU' },
      environmentVariables: [{ key: 'A', value: 'v' }, { key: 'B', value: '(sensitive)' }],
    });
    expect(payload.config.apiKey).toBe('k-123');
  });
});
