/**
 * A decoded DNS response as a DNS monitor's assertions see it: the JSON answer (the shape Checkly
 * documents for `JSON_ANSWER`: `{ Status, TC, RD, RA, AD, CD, Question, Answer }`, the layout of
 * Google's DNS-over-HTTPS JSON with names and types as text) and the text answer (`dig`'s layout).
 * Record data is written in presentation format, so `$.Answer[0].data` of an MX record reads
 * `10 mail.example.com.` in both.
 */
import type { Answer, Packet, Question } from 'dns-packet';

/** dns-packet has no HTTPS (SVCB-form) codec: it reads such records as `UNKNOWN_65` with raw data. */
export const HTTPS_TYPE = 'UNKNOWN_65';

export interface DnsJsonAnswer {
  Status: string;
  TC: boolean;
  RD: boolean;
  RA: boolean;
  AD: boolean;
  CD: boolean;
  Question: Array<{ name: string; type: string }>;
  Answer: Array<{ name: string; type: string; TTL: number; data: string }>;
}

const FLAG = { TC: 1 << 9, RD: 1 << 8, RA: 1 << 7, AD: 1 << 5, CD: 1 << 4 } as const;

export function typeName(type: string): string {
  return type === HTTPS_TYPE ? 'HTTPS' : type;
}

/** A domain name as presentation format writes it: absolute, with its trailing dot. */
function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

export function jsonAnswer(packet: Packet): DnsJsonAnswer {
  const flags = packet.flags ?? 0;
  return {
    Status: responseCodeOf(packet),
    TC: (flags & FLAG.TC) !== 0,
    RD: (flags & FLAG.RD) !== 0,
    RA: (flags & FLAG.RA) !== 0,
    AD: (flags & FLAG.AD) !== 0,
    CD: (flags & FLAG.CD) !== 0,
    Question: (packet.questions ?? []).map((question: Question) => ({ name: absolute(question.name), type: typeName(question.type) })),
    Answer: (packet.answers ?? []).map((answer) => ({ name: absolute(answer.name), type: typeName(answer.type), TTL: ttlOf(answer), data: recordData(answer) })),
  };
}

export function responseCodeOf(packet: Packet): string {
  return (packet as Packet & { rcode?: string }).rcode ?? 'NOERROR';
}

function ttlOf(answer: Answer): number {
  return 'ttl' in answer && typeof answer.ttl === 'number' ? answer.ttl : 0;
}

/** `dig`'s output: header, question and answer sections, one record a line. */
export function textAnswer(packet: Packet, json: DnsJsonAnswer): string {
  const flags = packet.flags ?? 0;
  const flagNames = ['qr', ...(['AA', 'TC', 'RD', 'RA', 'AD', 'CD'] as const).filter((name) => (flags & (name === 'AA' ? 1 << 10 : FLAG[name])) !== 0).map((name) => name.toLowerCase())];
  const lines = [
    `;; ->>HEADER<<- opcode: QUERY, status: ${json.Status}, id: ${packet.id ?? 0}`,
    `;; flags: ${flagNames.join(' ')}; QUERY: ${json.Question.length}, ANSWER: ${json.Answer.length}, AUTHORITY: ${packet.authorities?.length ?? 0}, ADDITIONAL: ${packet.additionals?.length ?? 0}`,
    '',
    ';; QUESTION SECTION:',
    ...json.Question.map((question) => `;${question.name}\t\tIN\t${question.type}`),
  ];
  if (json.Answer.length > 0) {
    lines.push('', ';; ANSWER SECTION:', ...json.Answer.map((answer) => `${answer.name}\t${answer.TTL}\tIN\t${answer.type}\t${answer.data}`));
  }
  return lines.join('\n');
}

/** One record's data in presentation format. */
export function recordData(answer: Answer): string {
  const data = (answer as { data?: unknown }).data;
  switch (answer.type as string) {
    case 'A':
    case 'AAAA':
      return String(data);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return absolute(String(data));
    case 'MX': {
      const mx = data as { preference?: number; exchange: string };
      return `${mx.preference ?? 0} ${absolute(mx.exchange)}`;
    }
    case 'TXT':
      // The strings of one record joined, as Checkly shows "v=spf1 include:… ~all".
      return (Array.isArray(data) ? data : [data]).map((part) => (Buffer.isBuffer(part) ? part.toString('utf8') : String(part))).join('');
    case 'SOA': {
      const soa = data as { mname: string; rname: string; serial?: number; refresh?: number; retry?: number; expire?: number; minimum?: number };
      return [absolute(soa.mname), absolute(soa.rname), soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum].map((part) => String(part ?? 0)).join(' ');
    }
    case HTTPS_TYPE:
      return Buffer.isBuffer(data) ? svcbText(data) : String(data);
    default:
      return Buffer.isBuffer(data) ? `\\# ${data.length} ${data.toString('hex')}` : JSON.stringify(data) ?? '';
  }
}

/**
 * SVCB/HTTPS record data (RFC 9460 §2.2) in presentation format: `1 . alpn="h3,h2" port=8443`.
 * The keys Checkly's examples assert on are spelled out; any other is `keyN` with its hex value.
 */
export function svcbText(data: Buffer): string {
  if (data.length < 3) return `\\# ${data.length} ${data.toString('hex')}`;
  const priority = data.readUInt16BE(0);
  const labels: string[] = [];
  let offset = 2;
  while (offset < data.length) {
    const length = data[offset]!;
    offset += 1;
    if (length === 0) break;
    labels.push(data.subarray(offset, offset + length).toString('latin1'));
    offset += length;
  }
  const parts = [String(priority), labels.length === 0 ? '.' : `${labels.join('.')}.`];
  while (offset + 4 <= data.length) {
    const key = data.readUInt16BE(offset);
    const length = data.readUInt16BE(offset + 2);
    const value = data.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    parts.push(svcParam(key, value));
  }
  return parts.join(' ');
}

function svcParam(key: number, value: Buffer): string {
  switch (key) {
    case 1: {
      const ids: string[] = [];
      for (let offset = 0; offset < value.length; ) {
        const length = value[offset]!;
        ids.push(value.subarray(offset + 1, offset + 1 + length).toString('latin1'));
        offset += 1 + length;
      }
      return `alpn="${ids.join(',')}"`;
    }
    case 2:
      return 'no-default-alpn';
    case 3:
      return value.length >= 2 ? `port=${value.readUInt16BE(0)}` : 'port=';
    case 4:
      return `ipv4hint=${chunks(value, 4).map((bytes) => [...bytes].join('.')).join(',')}`;
    case 6:
      return `ipv6hint=${chunks(value, 16).map(ipv6Text).join(',')}`;
    default:
      return `key${key}=${value.toString('hex')}`;
  }
}

function chunks(value: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let offset = 0; offset + size <= value.length; offset += size) out.push(value.subarray(offset, offset + size));
  return out;
}

function ipv6Text(bytes: Buffer): string {
  const groups: string[] = [];
  for (let offset = 0; offset < 16; offset += 2) groups.push(bytes.readUInt16BE(offset).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}
