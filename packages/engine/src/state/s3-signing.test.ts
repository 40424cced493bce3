import { describe, expect, it } from 'vitest';
import { encodeRfc3986, signRequest } from './s3-signing.js';

describe('signRequest', () => {
  it("computes AWS's published example signature (GET Object with a Range header)", () => {
    const headers = signRequest({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { Range: 'bytes=0-9' },
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      region: 'us-east-1',
      now: new Date('2013-05-24T00:00:00Z'),
    });
    expect(headers['authorization']).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(headers['x-amz-content-sha256']).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(headers['host']).toBeUndefined();
  });

  it('signs and sends a session token', () => {
    const headers = signRequest({
      method: 'PUT',
      url: new URL('https://b.s3.eu-west-1.amazonaws.com/k'),
      headers: { 'If-None-Match': '*' },
      body: '{}',
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'TOKEN' },
      region: 'eu-west-1',
      now: new Date('2026-01-01T00:00:00Z'),
    });
    expect(headers['x-amz-security-token']).toBe('TOKEN');
    expect(headers['authorization']).toContain('SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date;x-amz-security-token,');
  });

  it('encodes what RFC 3986 reserves, including the characters encodeURIComponent leaves', () => {
    expect(encodeRfc3986("a b/c!'()*~.-_")).toBe('a%20b%2Fc%21%27%28%29%2A~.-_');
  });
});
