/**
 * A loopback server speaking the part of the S3 protocol the s3 state backend uses — GET, HEAD, PUT
 * and DELETE of objects addressed path-style (`/<bucket>/<key>`) — with conditional writes as AWS
 * documents them: PUT with `If-None-Match: *` fails with 412 PreconditionFailed when the object
 * exists, PUT or DELETE with `If-Match: <etag>` fails with 412 when the object is missing or its ETag
 * differs. s3rver, the S3 server on npm, ignores both headers on PUT, so the lock is tested here.
 *
 * It checks that each request is signed with the expected access key (not the signature itself:
 * s3rver's tests of the backend do that) and records every request for assertions.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3Request {
  method: string;
  path: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  status: number;
}

export interface S3ConditionalServer {
  url: string;
  requests: S3Request[];
  /** The object's text, if any. */
  object(bucket: string, key: string): string | undefined;
  putObject(bucket: string, key: string, text: string): void;
  /** Holds every PUT of a state object (not a `.lock`) until the returned function is called, to keep a holder inside its apply. */
  holdStateWrites(): () => void;
  close(): Promise<void>;
}

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

export async function startS3ConditionalServer(options: { accessKeyId: string; buckets: string[] }): Promise<S3ConditionalServer> {
  const objects = new Map<string, { text: string; etag: string }>();
  const requests: S3Request[] = [];
  let writesHeld: Promise<void> | undefined;
  const etagOf = (text: string) => `"${createHash('md5').update(text).digest('hex')}"`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const send = (status: number, text = '', headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': text.startsWith('<?xml') ? 'application/xml' : 'application/octet-stream', ...headers });
      response.end(request.method === 'HEAD' ? undefined : text);
      return status;
    };
    const credential = /Credential=([^/]+)\//.exec(request.headers.authorization ?? '')?.[1];
    if (credential !== options.accessKeyId) return send(403, errorXml('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'));
    const url = new URL(request.url ?? '/', 'http://localhost');
    const [, bucket, ...keyParts] = url.pathname.split('/');
    if (bucket === undefined || !options.buckets.includes(decodeURIComponent(bucket))) return send(404, errorXml('NoSuchBucket', 'The specified bucket does not exist'));
    const name = `${decodeURIComponent(bucket)}/${keyParts.map(decodeURIComponent).join('/')}`;
    const existing = objects.get(name);
    const ifMatch = request.headers['if-match'];
    const ifNoneMatch = request.headers['if-none-match'];
    const failed = () => send(412, errorXml('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold'));
    switch (request.method) {
      case 'GET':
      case 'HEAD':
        if (!existing) return send(404, errorXml('NoSuchKey', 'The specified key does not exist.'));
        return send(200, existing.text, { etag: existing.etag });
      case 'PUT': {
        if (!name.endsWith('.lock')) await writesHeld;
        const current = objects.get(name);
        if (ifNoneMatch === '*' && current) return failed();
        if (ifMatch !== undefined && (!current || current.etag !== ifMatch)) return failed();
        const etag = etagOf(body);
        objects.set(name, { text: body, etag });
        return send(200, '', { etag });
      }
      case 'DELETE':
        if (ifMatch !== undefined && existing && existing.etag !== ifMatch) return failed();
        objects.delete(name);
        return send(204);
      default:
        return send(405, errorXml('MethodNotAllowed', 'The specified method is not allowed against this resource.'));
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).then(
      (status) =>
        requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          ...(typeof request.headers['if-match'] === 'string' ? { ifMatch: request.headers['if-match'] } : {}),
          ...(typeof request.headers['if-none-match'] === 'string' ? { ifNoneMatch: request.headers['if-none-match'] } : {}),
          status,
        }),
      () => {
        response.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    object: (bucket, key) => objects.get(`${bucket}/${key}`)?.text,
    putObject: (bucket, key, text) => objects.set(`${bucket}/${key}`, { text, etag: etagOf(text) }),
    holdStateWrites() {
      let release!: () => void;
      writesHeld = new Promise<void>((resolve) => (release = resolve));
      return () => {
        writesHeld = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
