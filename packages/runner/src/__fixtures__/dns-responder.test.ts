import dgram from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { startDnsResponder } from './dns-responder.js';

const query = dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'A', name: 'slow.test' }] });

describe('the DNS responder fixture', () => {
  it('drops a delayed answer when closed before it is due, instead of sending on a closed socket', async () => {
    const responder = await startDnsResponder({ records: [{ name: 'slow.test', type: 'A', data: '192.0.2.1' }], delayMs: 200 });
    const client = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => client.bind(0, '127.0.0.1', resolve));
    try {
      await new Promise<void>((resolve, reject) => client.send(query, responder.port, responder.host, (error) => (error ? reject(error) : resolve())));
      for (let turn = 0; responder.asked.length === 0; turn++) {
        if (turn > 1000) throw new Error('the responder never received the question');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await responder.close();
      // Past the delay: the dropped reply's timer would have fired (and thrown) by now.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(responder.asked).toEqual(['udp A slow.test']);
    } finally {
      client.close();
    }
  });
});
