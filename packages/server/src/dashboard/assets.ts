/**
 * The dashboard's assets, all served by the service under `/dashboard/assets/` so a page makes no
 * request to anyone else and its Content-Security-Policy stays `'self'`: the stylesheet (the public
 * pages' colours, so both surfaces read alike and keep their contrast in both themes), the small
 * script that draws the check page's charts and enhances forms, and uPlot with its CSS, read once,
 * when first asked for (uplotFile).
 *
 * Pages work without the script: filters are a GET form, actions are POST forms, and the charts'
 * numbers are also in a table beside them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DARK, LIGHT } from '../public-pages/assets.js';
import { CHART_SCRIPT } from './chart-script.js';

export const DASHBOARD_ASSET_PREFIX = '/dashboard/assets/';

const CSS = `
:root {${LIGHT} }
@media (prefers-color-scheme: dark) { :root {${DARK} } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; overflow-wrap: anywhere; }
a { color: var(--link); }
a:focus-visible, input:focus-visible, button:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.wrap { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem; z-index: 10; }
.skip:focus { left: 1rem; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { border-bottom: 1px solid var(--border); padding: .75rem 0; }
header.top .wrap { display: flex; align-items: center; gap: .5rem 1.25rem; flex-wrap: wrap; }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
header.top nav a[aria-current="page"] { font-weight: 700; }
header.top .who { margin-left: auto; display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
h1 { font-size: 1.5rem; margin: 1.25rem 0 .75rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .75rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .5rem; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: .5rem; padding: 1rem; margin: 1rem 0; }
.narrow { max-width: 28rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-weight: 600; }
.scroll { overflow-x: auto; }
.state::before { content: ""; display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; margin-right: .4rem; background: currentColor; }
.state.passing, .state.resolved { color: var(--ok); } .state.degraded, .state.monitoring, .state.identified { color: var(--warn); }
.state.failing, .state.investigating { color: var(--bad); } .state.unknown { color: var(--none); }
.state span { color: var(--fg); }
.spark { width: 8rem; height: 1.75rem; display: block; }
.spark polyline { fill: none; stroke: var(--link); stroke-width: 1.5; }
.tag { display: inline-block; border: 1px solid var(--border); border-radius: 1rem; padding: 0 .5rem; margin: 0 .25rem .25rem 0; font-size: .85rem; }
.meta, .empty { color: var(--muted); }
.meta { font-size: .9rem; }
form.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; }
form.filters label { display: flex; flex-direction: column; font-size: .9rem; gap: .2rem; }
label { font-weight: 600; }
input, button, select, textarea { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--border); border-radius: .375rem; padding: .45rem .7rem; max-width: 100%; }
textarea { width: 100%; min-height: 5rem; }
button { background: var(--card); cursor: pointer; }
button.primary { background: var(--link); color: var(--bg); border-color: var(--link); }
.stack > * + * { margin-top: .75rem; }
.stack label { display: block; margin-bottom: .25rem; }
.stack input[type=password], .stack input[type=text] { width: 100%; }
.row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.pager { display: flex; gap: 1rem; align-items: center; margin: 1rem 0; flex-wrap: wrap; }
.ranges { display: flex; gap: .75rem; flex-wrap: wrap; margin: .5rem 0; }
.ranges a[aria-current="true"] { font-weight: 700; }
.chart { min-height: 12rem; margin: .5rem 0 1rem; }
.chart-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 28rem), 1fr)); gap: 1rem; }
pre { background: var(--card); border: 1px solid var(--border); border-radius: .375rem; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; font-size: .85rem; }
.error { color: var(--bad); font-weight: 600; }
.notice { border-left: 4px solid var(--bad); padding: .5rem 1rem; background: var(--card); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.passed { color: var(--ok); font-weight: 600; } .failed { color: var(--bad); font-weight: 600; }
.updates { list-style: none; padding: 0; margin: 0; }
.updates li { border-left: 3px solid var(--border); padding: .25rem 0 .25rem .75rem; margin: .5rem 0; }
.updates p { margin: 0; white-space: pre-wrap; }
footer { margin: 3rem auto 2rem; color: var(--muted); font-size: .9rem; }
@media (max-width: 40rem) {
  .wide { display: none; }
  header.top .who { margin-left: 0; }
}
`;

export interface Asset {
  readonly type: string;
  readonly body: string;
}

declare const __VIGIL_BUNDLED__: boolean | undefined;

/**
 * uPlot's files, read the first time they are asked for: in the CLI's bundle from the copy its build
 * puts beside it (dist/assets/uplot/), from the installed `uplot` package otherwise.
 */
function uplotFile(file: string): string {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) return readFileSync(new URL(`./assets/uplot/${file}`, import.meta.url), 'utf8');
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
}

const lazy: Record<string, () => Asset> = {
  'dashboard.css': () => ({ type: 'text/css; charset=utf-8', body: CSS }),
  'dashboard.js': () => ({ type: 'text/javascript; charset=utf-8', body: CHART_SCRIPT }),
  'uplot.js': () => ({ type: 'text/javascript; charset=utf-8', body: uplotFile('uPlot.iife.min.js') }),
  'uplot.css': () => ({ type: 'text/css; charset=utf-8', body: uplotFile('uPlot.min.css') }),
};
const loaded = new Map<string, Asset>();

/** The asset named `file`, or undefined when there is none. */
export function dashboardAsset(file: string): Asset | undefined {
  if (!Object.hasOwn(lazy, file)) return undefined;
  let asset = loaded.get(file);
  if (!asset) loaded.set(file, (asset = lazy[file]!()));
  return asset;
}
