/**
 * The dashboard's only script, served as `/dashboard/assets/dashboard.js`: it draws the check page's
 * charts with uPlot from `analytics.json` (one request per range, shared by the charts), and redraws
 * them at the container's width when the window changes size. Pages are complete without it: the
 * same numbers are in the table under the charts. Plain ES2020 in a string, because the server
 * serves it as it is (no bundler between this file and the browser); it writes no HTML, only
 * uPlot's canvas and the text of labels, so nothing it shows can become markup.
 */
export const CHART_SCRIPT = `(() => {
  'use strict';
  const charts = [...document.querySelectorAll('[data-chart][data-src]')];
  if (charts.length === 0 || typeof window.uPlot !== 'function') return;
  const css = getComputedStyle(document.documentElement);
  const colour = (name, fallback) => (css.getPropertyValue(name).trim() || fallback);
  const palette = [colour('--link', '#0a58ad'), colour('--warn', '#9a6700'), colour('--bad', '#c21b27'), colour('--ok', '#1a7f37'), colour('--muted', '#4b5563'), colour('--maint', '#0a58ad')];
  const axis = { stroke: colour('--fg', '#1f2328'), grid: { stroke: colour('--border', '#c9d1d9'), width: 1 }, ticks: { stroke: colour('--border', '#c9d1d9') } };
  const loads = new Map();
  const load = (src) => {
    if (!loads.has(src)) loads.set(src, fetch(src, { credentials: 'same-origin', headers: { accept: 'application/json' } }).then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status))))));
    return loads.get(src);
  };
  const metricsOf = (kind, data) => {
    const names = Object.keys(data.series);
    if (kind === 'percentiles') return names.filter((n) => /_p(50|95|99)$/.test(n));
    if (kind === 'availability') return names.filter((n) => n === 'availability');
    return names.filter((n) => /_avg$/.test(n));
  };
  const made = [];
  const size = (el) => ({ width: Math.max(200, el.clientWidth), height: 200 });
  for (const el of charts) {
    load(el.dataset.src).then((data) => {
      const metrics = metricsOf(el.dataset.chart, data);
      if (data.timestamps.length === 0 || metrics.length === 0) {
        el.textContent = 'No results in this range.';
        el.removeAttribute('role');
        return;
      }
      const unit = el.dataset.chart === 'availability' ? ' %' : ' ms';
      const series = [{}].concat(metrics.map((name, i) => ({
        label: data.labels[name] || name,
        stroke: palette[i % palette.length],
        width: 2,
        spanGaps: false,
        value: (u, v) => (v == null ? '—' : v.toFixed(el.dataset.chart === 'availability' ? 2 : 0) + unit),
      })));
      const options = Object.assign(size(el), {
        series,
        scales: el.dataset.chart === 'availability' ? { y: { range: [0, 100] } } : {},
        axes: [Object.assign({}, axis), Object.assign({}, axis, { size: 56 })],
        legend: { live: true },
      });
      made.push({ el, plot: new window.uPlot(options, [data.timestamps].concat(metrics.map((name) => data.series[name])), el) });
    }).catch(() => {
      el.textContent = 'The chart could not be loaded; the numbers are in the table below.';
      el.removeAttribute('role');
    });
  }
  let pending = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => { for (const { el, plot } of made) plot.setSize(size(el)); });
  });
})();
`;
