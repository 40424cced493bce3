import { describe, expect, it } from 'vitest';
import { maskChannel, maskUrl } from './masking.js';

describe('maskUrl', () => {
  it.each([
    ['Slack: the secret segment', 'https://hooks.slack.com/services/T000/B000/XXXX', 'https://hooks.slack.com/services/T000/B000/*****'],
    ['a query parameter value', 'https://hooks.example.com/x?token=abc&team=ops', 'https://hooks.example.com/x?token=*****&team=*****'],
    ['a bare query', 'https://hooks.example.com/x?abc123', 'https://hooks.example.com/x?*****'],
    ['user info and a fragment', 'https://user:pass@hooks.example.com/x#frag', 'https://*****:*****@hooks.example.com/x#*****'],
    ['a path segment that looks like a token', 'https://discord.com/api/webhooks/123456789012345678/AbCdEf1234567890xyz', 'https://discord.com/api/webhooks/123456789012345678/*****'],
    ['nothing in a plain URL', 'https://hooks.example.com/alerts', 'https://hooks.example.com/alerts'],
    ['all of what is not a URL', 'not a url with a token', '*****'],
  ])('masks %s', (_what, url, masked) => {
    expect(maskUrl(url).masked).toBe(masked);
  });
});

describe('maskChannel', () => {
  const channel = maskChannel({
    name: 'hook',
    url: 'https://hooks.example.com/x?token=Sup3r%2Fsecret',
    webhookSecret: 'signing-key',
    headers: [{ key: 'Authorization', value: 'Bearer header-token' }],
    queryParameters: [{ key: 'apikey', value: 'param-secret' }],
    template: '{}',
  });

  it('masks key fields, header and query parameter values and the URL\'s credentials, leaving the rest', () => {
    expect(channel.config).toEqual({
      name: 'hook',
      url: 'https://hooks.example.com/x?token=*****',
      webhookSecret: '*****',
      headers: [{ key: 'Authorization', value: '*****' }],
      queryParameters: [{ key: 'apikey', value: '*****' }],
      template: '{}',
    });
  });

  it('redacts the same credentials, in any spelling, from a delivery error or a receiver\'s answer', () => {
    expect(channel.redact('POST https://hooks.example.com/x?token=Sup3r%2Fsecret&apikey=param-secret answered 401: {"token":"sup3r\\/secret"}')).toBe(
      'POST https://hooks.example.com/x?token=*****&apikey=***** answered 401: {"token":"*****"}',
    );
    expect(channel.redact(null)).toBeNull();
  });
});
