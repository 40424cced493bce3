import { describe, expect, it } from 'vitest';
import { exportedVariableAt } from './managed.js';

describe('exportedVariableAt', () => {
  const cases: Array<{ name: string; text: string; line: number; column: number; want: string | undefined }> = [
    { name: 'an exported const', text: "export const oncall = new EmailAlertChannel('oncall', {});", line: 1, column: 23, want: 'oncall' },
    { name: 'an exported const with a type', text: "export const oncall: AlertChannel = new EmailAlertChannel('oncall', {});", line: 1, column: 37, want: 'oncall' },
    { name: 'a declaration broken over two lines', text: "import x from 'y';\nexport const pager =\n  new PagerdutyAlertChannel('pager', {});", line: 3, column: 3, want: 'pager' },
    { name: 'a const exported in a list', text: "const hook = new WebhookAlertChannel('hook', {});\nexport { hook };", line: 1, column: 14, want: 'hook' },
    { name: 'a const exported under another name', text: "const hook = new WebhookAlertChannel('hook', {});\nexport { other, hook as ops };", line: 1, column: 14, want: 'ops' },
    { name: 'a const never exported', text: "const hook = new WebhookAlertChannel('hook', {});", line: 1, column: 14, want: undefined },
    { name: 'a construct not assigned to anything', text: "new EmailAlertChannel('oncall', {});", line: 1, column: 1, want: undefined },
    { name: 'a construct inside a call', text: "export const all = [new EmailAlertChannel('a', {})];", line: 1, column: 21, want: undefined },
    { name: 'a line past the end of the file', text: 'export {};', line: 4, column: 1, want: undefined },
  ];
  for (const { name, text, line, column, want } of cases) {
    it(`${name} → ${String(want)}`, () => expect(exportedVariableAt(text, line, column)).toBe(want));
  }
});
