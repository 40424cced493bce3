/**
 * The frame of every dashboard page: head, skip link, navigation, the signed-in account with its
 * switch and sign-out, and the footer. The theme follows the visitor's `prefers-color-scheme`.
 */
import { DASHBOARD_ASSET_PREFIX } from './assets.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';

export type Section = 'checks' | 'incidents' | 'maintenance-windows' | 'alert-channels' | 'status-pages' | 'account';

export interface Viewer {
  readonly accountName: string;
  /** More than one account to choose from: the header offers the switch. */
  readonly canSwitch: boolean;
  readonly csrfToken: string;
}

export interface PageOptions {
  readonly title: string;
  readonly body: SafeHtml;
  readonly viewer?: Viewer | undefined;
  readonly section?: Section | undefined;
  /** Loads uPlot and the chart script (the check page). */
  readonly charts?: boolean;
}

const NAV: ReadonlyArray<{ section: Section; href: string; label: string }> = [
  { section: 'checks', href: '/dashboard/checks', label: 'Checks' },
  { section: 'incidents', href: '/dashboard/incidents', label: 'Incidents' },
  { section: 'maintenance-windows', href: '/dashboard/maintenance-windows', label: 'Maintenance' },
  { section: 'alert-channels', href: '/dashboard/alert-channels', label: 'Alert channels' },
  { section: 'status-pages', href: '/dashboard/status-pages', label: 'Status pages' },
];

/** A hidden field with the session's CSRF token; every form of a signed-in page has one. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

function header(viewer: Viewer | undefined, section: Section | undefined): SafeHtml {
  if (!viewer) return html`<header class="top"><div class="wrap"><a class="brand" href="/">Vigil</a></div></header>`;
  const links = NAV.map(
    (item) => html`<li><a href="${item.href}"${item.section === section ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
  );
  return html`<header class="top"><div class="wrap">
<a class="brand" href="/dashboard/checks">Vigil</a>
<nav aria-label="Main"><ul>${links}</ul></nav>
<div class="who"><span class="meta">Account: <strong>${viewer.accountName}</strong></span>
${viewer.canSwitch ? html`<a href="/dashboard/account"${section === 'account' ? html` aria-current="page"` : ''}>Switch account</a>` : ''}
<form method="post" action="/dashboard/sign-out">${csrfField(viewer.csrfToken)}<button type="submit">Sign out</button></form></div>
</div></header>`;
}

export function renderPage(options: PageOptions): string {
  const charts: HtmlValue = options.charts
    ? html`<link rel="stylesheet" href="${DASHBOARD_ASSET_PREFIX}uplot.css">
<script src="${DASHBOARD_ASSET_PREFIX}uplot.js" defer></script>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${options.title} · Vigil</title>
<link rel="icon" href="/status-assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${DASHBOARD_ASSET_PREFIX}dashboard.css">
${charts}
<script src="${DASHBOARD_ASSET_PREFIX}dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(options.viewer, options.section)}
<main id="main" class="wrap" tabindex="-1">
${options.body}
</main>
<footer class="wrap">Vigil dashboard</footer>
</body>
</html>
`.text;
}

/** A page that only says what went wrong and where to go next (403, 404, 429). */
export function messagePage(title: string, message: string, viewer?: Viewer): string {
  return renderPage({
    title,
    viewer,
    body: html`<h1>${title}</h1><p class="notice" role="alert">${message}</p><p><a href="${viewer ? '/dashboard/checks' : '/'}">${viewer ? 'Back to the checks' : 'Back to sign in'}</a></p>`,
  });
}
