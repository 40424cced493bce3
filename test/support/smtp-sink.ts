/**
 * A loopback SMTP server (the `smtp-server` package) that keeps every message it receives, with
 * just enough MIME reading to find a mail's headers and the links in its text.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly to: string[];
  readonly raw: string;
  /** Header value by lower-case name, unfolded. */
  header(name: string): string | undefined;
  /** The text part, quoted-printable decoded. */
  readonly text: string;
}

export interface SmtpSink {
  readonly url: string;
  readonly mails: ReceivedMail[];
  close(): Promise<void>;
}

function parse(to: string[], raw: string): ReceivedMail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const quoted = /quoted-printable/i.test(headers.get('content-transfer-encoding') ?? '');
  const text = quoted ? body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : body;
  return { to, raw, header: (name) => headers.get(name.toLowerCase()), text };
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        mails.push(parse(session.envelope.rcptTo.map((recipient) => recipient.address), raw));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
