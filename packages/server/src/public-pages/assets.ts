/**
 * The public pages' assets, served by the service itself under `/status-assets/` so a page makes no
 * request to anyone else (and its Content-Security-Policy can stay `'self'`). No script: the page
 * is complete as HTML, so there is nothing to hash or to allow.
 *
 * Colours: text and links reach 4.5:1 against their background in both themes, and the state
 * colours of bars and dots 3:1 (what non-text content needs). `data-theme="auto"` follows the
 * visitor's `prefers-color-scheme`; `light` and `dark` are the page's `defaultTheme`.
 */

export const ASSET_PREFIX = '/status-assets/';

export const LIGHT = `
  color-scheme: light;
  --bg: #ffffff; --fg: #1f2328; --muted: #4b5563; --card: #f6f8fa; --border: #c9d1d9; --link: #0a58ad; --focus: #0a58ad;
  --ok: #1a7f37; --warn: #9a6700; --bad: #c21b27; --maint: #0a58ad; --none: #6e7781;`;
export const DARK = `
  color-scheme: dark;
  --bg: #0d1117; --fg: #e6edf3; --muted: #a4adb8; --card: #161b22; --border: #3b434d; --link: #6cb6ff; --focus: #6cb6ff;
  --ok: #3fb950; --warn: #d29922; --bad: #ff6a61; --maint: #6cb6ff; --none: #7d8590;`;

const CSS = `
:root, :root[data-theme="light"] {${LIGHT} }
:root[data-theme="dark"] {${DARK} }
@media (prefers-color-scheme: dark) { :root[data-theme="auto"] {${DARK} } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; overflow-wrap: anywhere; }
a { color: var(--link); }
a:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.wrap { max-width: 56rem; margin: 0 auto; padding: 0 1rem; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; }
.skip:focus { left: 1rem; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { border-bottom: 1px solid var(--border); padding: 1rem 0; }
header.top .wrap { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; }
header.top img { max-height: 3rem; max-width: 12rem; display: block; }
h1 { font-size: 1.5rem; margin: 0; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
h3 { font-size: 1.05rem; margin: 0 0 .5rem; }
.banner { margin-top: 1.5rem; padding: 1rem; border-radius: .5rem; border: 2px solid var(--ok); }
.banner h2 { margin: 0; }
.banner.minor { border-color: var(--warn); } .banner.major, .banner.critical { border-color: var(--bad); } .banner.maintenance { border-color: var(--maint); }
.card { background: var(--card); border: 1px solid var(--border); border-radius: .5rem; padding: 1rem; margin: 1rem 0; }
.card > ul { list-style: none; margin: 0; padding: 0; }
.service { padding: .75rem 0; border-top: 1px solid var(--border); }
.service:first-child { border-top: 0; }
.service-head { display: flex; justify-content: space-between; gap: .5rem; flex-wrap: wrap; }
.service-name { font-weight: 600; }
.state::before { content: ""; display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; margin-right: .4rem; background: currentColor; }
.state.operational { color: var(--ok); } .state.degraded { color: var(--warn); } .state.outage { color: var(--bad); } .state.maintenance { color: var(--maint); }
.state span { color: var(--fg); }
.bars { display: flex; gap: 1px; list-style: none; margin: .5rem 0 .25rem; padding: 0; height: 2rem; }
.bars li { flex: 1 1 0; min-width: 0; display: flex; }
.bars li > span { flex: 1; border-radius: 1px; background: var(--none); }
.bars .up > span { background: var(--ok); } .bars .partial > span { background: var(--warn); } .bars .down > span { background: var(--bad); }
.bars .nodata > span { background: var(--border); }
.bars-legend { display: flex; justify-content: space-between; color: var(--muted); font-size: .85rem; }
.short { display: none; }
@media (max-width: 40rem) {
  .bars li:nth-child(-n+60) { display: none; }
  .long { display: none; } .short { display: inline; }
}
.incident { border-left: 4px solid var(--warn); padding: .25rem 0 .25rem 1rem; margin: 1rem 0; }
.incident.major, .incident.critical { border-left-color: var(--bad); } .incident.resolved { border-left-color: var(--border); }
.updates { list-style: none; margin: 0; padding: 0; }
.updates li { margin: .5rem 0; }
.updates p { margin: 0; }
.meta { color: var(--muted); font-size: .9rem; }
.empty { color: var(--muted); }
.subscribe form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; }
.subscribe label { flex-basis: 100%; font-weight: 600; }
input, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--border); border-radius: .375rem; padding: .5rem .75rem; }
input { flex: 1 1 14rem; min-width: 0; }
button { background: var(--card); cursor: pointer; }
input:focus-visible, button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.error { color: var(--bad); font-weight: 600; }
footer { margin: 3rem auto 2rem; color: var(--muted); font-size: .9rem; }
footer a { margin-right: 1rem; }
`;

/** A neutral round icon for pages without their own favicon. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="#1a7f37"/><path d="M9 16.5l4.5 4.5L23 11.5" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export const ASSETS: Readonly<Record<string, { readonly type: string; readonly body: string }>> = {
  'status.css': { type: 'text/css; charset=utf-8', body: CSS },
  'favicon.svg': { type: 'image/svg+xml', body: FAVICON },
};
