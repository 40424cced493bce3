import type { ResourceSpec } from '@vigil/constructs';
import { ApiCheckCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { createPlan } from '../plan/plan.js';
import type { Change, Plan } from '../plan/types.js';
import { emptyState } from '../state/index.js';
import { MARKDOWN_LIMIT, renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

const target = { baseUrl: 'test', accountId: 'a' };
const source = { file: 'monitors/a.monitor.ts', line: 3, column: 1 };

function apiCheck(index: number): ResourceSpec {
  const logicalId = `check-${String(index).padStart(3, '0')}`;
  const payload = ApiCheckCreate.parse({
    name: `Check ${index}`,
    tags: ['prod', 'web'],
    request: { url: `https://example.com/${index}`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
  });
  return { address: `api-check.${logicalId}`, kind: 'api-check', logicalId, payload, refs: [], source, protect: false, secrets: [] };
}

function createsPlan(count: number): Plan {
  const specs = Array.from({ length: count }, (_, index) => apiCheck(index + 1));
  return createPlan({ project: 'shop', target, specs, state: emptyState({ project: 'shop', target }), remote: new Map() }).plan;
}

function update(address: string, fields: number, valueLength: number): Change {
  const diff = Array.from({ length: fields }, (_, index) => ({
    path: `request.headers[${index}].value`,
    before: 'a'.repeat(valueLength),
    after: 'b'.repeat(valueLength),
  }));
  return { address, kind: 'api-check', logicalId: address.slice(10), action: 'update', reason: 'field-changed', remoteId: address, dependsOn: [], diff, drift: [], payloadHash: 'h' };
}

function updatesPlan(changes: Change[]): Plan {
  return {
    formatVersion: 1,
    project: 'shop',
    target,
    state: { lineage: 'l', serial: 1 },
    summary: { create: 0, update: changes.length, delete: 0, replace: 0, noop: 0 },
    changes,
    forget: [],
    diagnostics: [],
  };
}

describe('the markdown plan', () => {
  it('fits a plan of 300 new checks in 60,000 characters, naming what it left out and how to see it', () => {
    const markdown = renderMarkdown(createsPlan(300));
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown).toContain('**Plan: 300 to add, 0 to change, 0 to destroy.**');
    expect(markdown).toContain('| `api-check` | 300 |  |  |  |');
    const shown = markdown.match(/<details>/g)!.length;
    expect(shown).toBeGreaterThan(50);
    expect(shown).toBeLessThan(300);
    expect(markdown.trimEnd().split('\n').at(-1)).toBe(
      `_Not shown: fields of new resources left at their defaults; ${300 - shown} of 300 resources (to stay under 60,000 characters). To see everything, run \`vigil plan --out plan.json\` and \`vigil show plan.json\`._`,
    );
  });

  it('shows a new check as only the fields that differ from the defaults', () => {
    const markdown = renderMarkdown(createsPlan(1));
    expect(markdown).toContain(
      [
        '```diff',
        '+ name                             = "Check 1"',
        '+ request.assertions[0].comparison = "EQUALS"',
        '+ request.assertions[0].source     = "STATUS_CODE"',
        '+ request.assertions[0].target     = "200"',
        '+ request.url                      = "https://example.com/1"',
        '+ tags                             = ["prod","web"]',
        '```',
      ].join('\n'),
    );
    expect(markdown).not.toContain('basicAuth');
  });

  it('names the saved plan to open when there is one', () => {
    expect(renderMarkdown(createsPlan(1), { savedPlan: 'out/plan.json' })).toContain('To see everything, run `vigil show out/plan.json`._');
  });

  it.each([
    ['2,000 updates of long values', Array.from({ length: 2000 }, (_, index) => update(`api-check.u${index}`, 20, 2000))],
    ['one update of 5,000 fields', [update('api-check.huge', 5000, 50)]],
  ])('fits %s in 60,000 characters', (_name, changes) => {
    const markdown = renderMarkdown(updatesPlan(changes));
    expect(markdown.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown.trimEnd().split('\n').at(-1)).toMatch(/^_Not shown: .+\. To see everything, run `vigil plan --out plan.json` and `vigil show plan.json`\._$/);
    expect(markdown.match(/<details>/g)!.length).toBe(markdown.match(/<\/details>/g)!.length);
  });

  it('cuts one huge resource after the fields that fit and says how many lines are missing', () => {
    const markdown = renderMarkdown(updatesPlan([update('api-check.huge', 5000, 50)]));
    expect(markdown).toMatch(/\n… \d+ more lines not shown\n```\n/);
    expect(markdown).toContain('_Not shown: part of one resource.');
  });

  it('quotes plan warnings (a likely rename) and names what state will forget', () => {
    const plan: Plan = {
      ...updatesPlan([update('api-check.home-page', 1, 1)]),
      forget: ['check-group.gone'],
      diagnostics: [{ severity: 'warning', message: 'api-check.home would be destroyed and api-check.home-page created, both named "Home": was the logical id renamed?', hint: 'To keep the existing resource (id c-1) under its new id, run: vigil state mv api-check.home api-check.home-page' }],
    };
    const markdown = renderMarkdown(plan);
    expect(markdown).toContain(
      '> **Note:** api-check.home would be destroyed and api-check.home-page created, both named "Home": was the logical id renamed? To keep the existing resource (id c-1) under its new id, run: vigil state mv api-check.home api-check.home-page\n',
    );
    expect(markdown).toContain('Deleted outside vigil and no longer in code, so only removed from state: `check-group.gone` (1).');
  });

  it('keeps a value holding backticks inside its code block', () => {
    const change = { ...update('api-check.tricky', 1, 1), diff: [{ path: 'name', before: 'a', after: 'x```</details>' }] };
    const markdown = renderMarkdown(updatesPlan([change]));
    expect(markdown).toContain('````diff\n- name = "a"\n+ name = "x```</details>"\n````');
  });
});

describe('the text plan of a new resource', () => {
  it('prints only the fields that differ from the defaults, names aligned', () => {
    expect(renderText(createsPlan(1), { color: false })).toBe(
      [
        'Vigil will perform the following actions:',
        '',
        '  # api-check.check-001 will be created',
        '  + api-check.check-001',
        '      + name                             = "Check 1"',
        '      + request.assertions[0].comparison = "EQUALS"',
        '      + request.assertions[0].source     = "STATUS_CODE"',
        '      + request.assertions[0].target     = "200"',
        '      + request.url                      = "https://example.com/1"',
        '      + tags                             = ["prod","web"]',
        '',
        'Plan: 1 to add, 0 to change, 0 to destroy.',
        '',
      ].join('\n'),
    );
  });

  it('prints every field, defaults included, when asked (vigil show)', () => {
    const text = renderText(createsPlan(1), { color: false, allFields: true });
    expect(text).toContain('      + request.basicAuth.password                                = ""');
    expect(text).toContain('      + alertSettings.timeBasedEscalation.minutesFailingThreshold = 5');
  });
});
