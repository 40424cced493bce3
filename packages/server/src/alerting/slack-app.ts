/**
 * SLACK_APP: one Slack Web API `chat.postMessage` per entry of the channel's `slackChannels`, sent
 * as written (`#alerts`, a channel id, `@handle`), at the `slack` provider's base URL
 * (`https://slack.com/api` unless `--provider-url slack=URL`). The bearer token is the bot token of
 * the Slack App installed for the notification's account (`slackAppToken` of `--accounts FILE`),
 * never part of the channel, so it is in no stored config or notification; it is also cut out of
 * every note, reason and error this module returns or throws.
 *
 * Slack answers most failures with HTTP 200 and `{"ok": false, "error": …}`: a rate limit or an
 * outage on Slack's side is thrown (the outbox retries), anything else (`channel_not_found`,
 * `not_in_channel`, `invalid_auth`, …) is the configuration's fault and resolves `failed`. The Slack
 * channels already posted to are remembered per notification in this process, so a retry after a
 * partial delivery posts only to the rest.
 */
import { BoundedMap } from '../bounded-map.js';
import { providerUrl, send, type AlertContext, type SendOptions, type SendOutcome } from './delivery.js';
import { MASK } from './masking.js';

/** `error` codes of an `ok: false` answer that a later attempt may not get. */
const TRANSIENT_ERRORS = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);
/** Slack's limit on the text of one block. */
const BLOCK_TEXT_MAX = 3000;
/** Slack's advice for a message's `text`; it cuts longer ones. */
const TEXT_MAX = 4000;
/** Enough of an answer to parse it: Slack echoes the whole message it posted. */
const ANSWER_LIMIT = 256 * 1024;

const NO_INSTALLATION =
  'no Slack App is installed for this account on this service (slackAppToken in vigil server --accounts FILE), so Slack App messages cannot be sent';

/** Slack channels posted to, by notification id. */
const postedTo = new BoundedMap<string, Set<string>>(1000);

export interface AlertMessage {
  title: string;
  /** Where, how slow, the error: shown under the title. */
  details: string[];
}

export async function sendSlackApp(config: Record<string, unknown>, message: AlertMessage, context: AlertContext, options: SendOptions): Promise<SendOutcome> {
  const token = options.slackAppToken;
  if (!token) return { kind: 'undeliverable', reason: NO_INSTALLATION };
  const hide = (text: string) => text.split(token).join(MASK);
  const channels = Array.isArray(config.slackChannels) ? config.slackChannels.filter((entry): entry is string => typeof entry === 'string' && entry !== '') : [];
  if (channels.length === 0) return { kind: 'failed', reason: 'the channel names no Slack channel to post to' };
  const posted = postedTo.get(context.notificationId) ?? new Set<string>();
  postedTo.set(context.notificationId, posted);
  const refused: string[] = [];
  for (const channel of channels) {
    if (posted.has(channel)) continue;
    let answer: Awaited<ReturnType<typeof postMessage>>;
    try {
      answer = await postMessage(channel, message, token, context, options);
    } catch (error) {
      // The rest wait for the retry: Slack being down would otherwise cost each of them a timeout.
      throw new Error(hide((error as Error).message ?? String(error)), { cause: error });
    }
    if (answer.kind === 'undeliverable') return { kind: 'undeliverable', reason: hide(answer.reason) };
    if (answer.kind === 'refused') refused.push(`${channel} (${answer.error})`);
    else posted.add(channel);
  }
  if (refused.length > 0) {
    const sent = channels.filter((channel) => posted.has(channel));
    return { kind: 'failed', reason: hide(`Slack refused to post to ${refused.join(', ')}${sent.length > 0 ? `; posted to ${sent.join(', ')}` : ''}`) };
  }
  return { kind: 'sent', result: hide(`chat.postMessage ok: ${channels.join(', ')}`) };
}

/** One message to one Slack channel: posted, refused for good (Slack's error code), or not allowed out. */
async function postMessage(
  channel: string,
  message: AlertMessage,
  token: string,
  context: AlertContext,
  options: SendOptions,
): Promise<{ kind: 'posted' } | { kind: 'refused'; error: string } | { kind: 'undeliverable'; reason: string }> {
  const body = JSON.stringify({ channel, ...messageContent(message), unfurl_links: false, unfurl_media: false });
  const headers = { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${token}` };
  const answer = await send({ url: providerUrl('slack', '/chat.postMessage', options), method: 'POST', headers, body, answerLimit: ANSWER_LIMIT }, context, options);
  if (answer.kind === 'undeliverable') return answer;
  const excerpt = answer.text.slice(0, 200);
  if (answer.status < 200 || answer.status >= 300) throw new Error(`Slack answered HTTP ${answer.status}${excerpt ? `: ${excerpt}` : ''}`);
  let result: { ok?: unknown; error?: unknown };
  try {
    result = JSON.parse(answer.text) as typeof result;
  } catch {
    result = {};
  }
  if (result?.ok === true) return { kind: 'posted' };
  if (result?.ok !== false) throw new Error(`Slack answered HTTP ${answer.status} without a Web API result${excerpt ? `: ${excerpt}` : ''}`);
  const error = typeof result.error === 'string' ? result.error : 'unknown_error';
  if (TRANSIENT_ERRORS.has(error)) throw new Error(`Slack answered ${error} for ${channel}`);
  return { kind: 'refused', error };
}

/** `text` is what notifications and clients without blocks show; the blocks set the title apart. */
export function messageContent(message: AlertMessage): { text: string; blocks: unknown[] } {
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: escaped(`*${message.title}*`, BLOCK_TEXT_MAX) } }];
  if (message.details.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escaped(message.details.join(' · '), BLOCK_TEXT_MAX) }] });
  return { text: escaped([message.title, ...message.details].join(' · '), TEXT_MAX), blocks };
}

/**
 * Escaped, as Slack reads `&`, `<` and `>` as markup (links, mentions) and a check's name must not
 * be; then cut to `max`, as one block over Slack's limit makes it refuse the whole message.
 */
function escaped(text: string, max: number): string {
  const safe = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return safe.length <= max ? safe : `${safe.slice(0, max - 1).replace(/&[a-z]*$/, '')}…`;
}
