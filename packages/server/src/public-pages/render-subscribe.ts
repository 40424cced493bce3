/**
 * The HTML of e-mail subscriptions on a public page: the form, and the small pages its POST and the
 * e-mailed links answer with. Plain forms, no script; every value (the typed address above all)
 * through `escapeMarkup`. Each page links back to its status page by a fixed path, never to an
 * address taken from the request, so none of them can redirect a visitor elsewhere.
 */
import { ASSET_PREFIX } from './assets.js';
import { escapeMarkup as e } from './escape.js';
import { basePath, document } from './render-html.js';
import { ADDRESS_MAX } from './subscription-tokens.js';

/** What the subscription pages show of their status page. */
export interface SubscribePageInfo {
  readonly slug: string;
  readonly name: string;
  readonly theme: string;
  readonly favicon?: string;
}

/** The form, as a section of the status page (and again, with the error, when an address is refused). */
export function subscribeForm(slug: string, options: { error?: string; value?: string } = {}): string {
  const error = options.error === undefined ? '' : `<p id="subscribe-error" class="error" role="alert">${e(options.error)}</p>\n`;
  const described = options.error === undefined ? 'subscribe-help' : 'subscribe-error subscribe-help';
  return `<section class="subscribe" aria-labelledby="subscribe"><h2 id="subscribe">Get incident e-mails</h2>
${error}<form method="post" action="${basePath(slug)}/subscribe">
<label for="subscribe-address">E-mail address</label>
<input id="subscribe-address" name="address" type="email" autocomplete="email" required maxlength="${ADDRESS_MAX}" aria-describedby="${described}" value="${e(options.value ?? '')}">
<button type="submit">Subscribe</button>
</form>
<p id="subscribe-help" class="meta">We send one e-mail to confirm the address. Every e-mail has a link to unsubscribe.</p>
</section>
`;
}

/** A small page about the status page's subscription: a heading, paragraphs (markup, already escaped) and a link back. */
export function subscribePage(info: SubscribePageInfo, heading: string, paragraphs: readonly string[], action?: { url: string; label: string }): string {
  const button = action ? `<form method="post" action="${e(action.url)}"><button type="submit">${e(action.label)}</button></form>\n` : '';
  return document({
    title: `${heading} · ${info.name} status`,
    theme: info.theme,
    favicon: info.favicon ?? `${ASSET_PREFIX}favicon.svg`,
    body: `<main id="main" class="wrap subscribe"><h1>${e(heading)}</h1>
${paragraphs.map((text) => `<p>${text}</p>`).join('\n')}
${button}<p><a href="${basePath(info.slug)}">Back to ${e(info.name)} status</a></p></main>`,
  });
}

/** The page re-shown with what is wrong with the address typed. */
export function addressRefusedPage(info: SubscribePageInfo, message: string, value: string): string {
  return document({
    title: `Subscribe · ${info.name} status`,
    theme: info.theme,
    favicon: info.favicon ?? `${ASSET_PREFIX}favicon.svg`,
    body: `<main id="main" class="wrap"><h1>${e(info.name)}</h1>
${subscribeForm(info.slug, { error: message, value })}<p><a href="${basePath(info.slug)}">Back to ${e(info.name)} status</a></p></main>`,
  });
}
