import { describe, expect, it } from 'vitest';
import { load, markerLocation } from './__fixtures__/load.js';
import { AgenticCheck } from './agentic-check.js';
import { Frequency } from './frequency.js';
import { TcpMonitor } from './tcp-monitor.js';

describe('AgenticCheck', () => {
  it('is refused at the line that creates it, naming why, beside the other constructs\' problems', async () => {
    const project = await load(() => {
      new AgenticCheck('homepage-agent', { name: 'Homepage works', prompt: 'Open the homepage and check the cart', frequency: Frequency.EVERY_30M }); // @at:agent
      new TcpMonitor('db', { name: 'Database', request: { hostname: 'db.example.com', port: 70000 } });
    });
    const diagnostics = project.validate();
    expect(diagnostics[0]).toEqual({
      severity: 'error',
      message: 'AgenticCheck "homepage-agent" cannot run in vigil: an agentic check is a prompt carried out by Checkly\'s hosted AI agent, which vigil does not have',
      hint: 'Keep this check in Checkly (remove it from this project), or write what the prompt verifies as a BrowserCheck, MultiStepCheck or PlaywrightCheck.',
      source: markerLocation(import.meta.url, 'agent'),
    });
    expect(diagnostics.map((d) => d.message)).toContain('"request.port" must be less than or equal to 65535');
  });
});
