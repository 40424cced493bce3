import { AlertChannelCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { Code } from '../import/code.js';
import { planImport } from '../import/plan-import.js';
import { displayName, type Candidate } from '../import/select.js';
import { emptyState } from '../state/index.js';

const STATE = emptyState({ project: 'shop', target: { baseUrl: 'http://127.0.0.1:1', accountId: '' } });

function channel(id: number, body: Record<string, unknown>): Candidate {
  const remote = { ...AlertChannelCreate.parse(body), id, subscriptions: [], created_at: '2030-01-01T00:00:00.000Z', updated_at: null };
  return { kind: 'alert-channel', remoteId: id, remote, name: displayName('alert-channel', remote) };
}

/** Code as compact text, enough to compare what was written. */
function text(code: Code): string {
  switch (code.type) {
    case 'object':
      return `{${code.entries.map(([key, value]) => `${key}: ${text(value)}`).join(', ')}}`;
    case 'array':
      return `[${code.items.map(text).join(', ')}]`;
    case 'literal':
      return JSON.stringify(code.value);
    default:
      return code.type;
  }
}

const plan = (candidates: Candidate[]) => planImport({ candidates, state: STATE, projectAddresses: [], env: {}, existingFiles: [] });

describe('importing a Slack App channel', () => {
  it('writes a SlackAppAlertChannel named after its Slack channels, with only the switches that differ, and no secret', () => {
    const imported = plan([channel(7, { type: 'SLACK_APP', config: { slackChannels: ['#alerts', '@oncall'] }, sendDegraded: true })]);
    const [resource] = imported.resources;
    expect([resource!.construct, resource!.address, resource!.name]).toEqual(['SlackAppAlertChannel', 'alert-channel.alerts-oncall', '#alerts, @oncall']);
    expect(text(resource!.props)).toBe('{slackChannels: ["#alerts", "@oncall"], sendDegraded: true}');
    expect(resource!.applied).toMatchObject({ type: 'SLACK_APP', config: { slackChannels: ['#alerts', '@oncall'] }, sendDegraded: true });
    expect(imported.variables).toEqual([]);
  });
});
