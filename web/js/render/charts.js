// Draws the two charts from the core's curves (one answer per axis, every point a full estimate by the core, in
// every mode and for a model file); the page only lays the numbers out.
import { chartSvg, fillFigure, standaloneSvg, pngBlob } from './chart-svg.js';
import { breakdownLines, stackedLines, headline } from './view.js';
import { download } from './export.js';

export const POINTS = 64;

/** The curve question for one axis: POINTS log-spaced x values over the core's chart range. */
export const curveQuestion = (axis) => ({ question: 'curve', axis, points: POINTS, spacing: 'log' });

/** Columnar series from a curve answer: xs, one column per stacked breakdown line, totals; null without one. */
export function series(curve) {
  if (!curve?.ok || curve.xs.length < 2) return null;
  // The core names the columns; the page gives each its colour, in the breakdown's order.
  const byKey = Object.fromEntries(curve.lines.map((l) => [l.key, l.values]));
  // Each column's largest value stands in for the line, so a line the model does not have (0 throughout) stays out.
  const lines = stackedLines(breakdownLines(Object.fromEntries(curve.lines.map((l) => [l.key, Math.max(0, ...l.values)]))))
    .map((l) => ({ ...l, values: byKey[l.key] }));
  return { xs: curve.xs, lines, totals: curve.totals };
}

export function renderCharts(figures, curves, report, view) {
  const { t, f } = view;
  const row = headline(report, view).row ?? report.gpus[0];
  // The curves are the whole deployment's totals: over n GPUs they are drawn against n cards' memory, not one's.
  const n = report.per_gpu?.gpus ?? 1;
  const cards = n > 1 && report.gpus.length === n;  // different cards together: each its own row
  const capacities = !row ? [] : cards
    ? [{ label: report.gpus.map((g) => t.gpu(g.name, f)).join(' + '), bytes: report.gpus.reduce((sum, g) => sum + g.usable_bytes, 0) }]
    : [{ label: n > 1 ? `${f.count(n)} × ${t.gpu(row.name, f)}` : t.gpu(row.name, f), bytes: row.usable_bytes * n }];
  const axes = [
    { key: 'context', figure: figures.context, caption: t('charts.context'), xLabel: t('charts.x.context') },
    { key: 'batch', figure: figures.batch, caption: t('charts.batch'), xLabel: t('charts.x.batch') },
  ];
  for (const axis of axes) {
    const data = series(curves[axis.key]);
    if (!data) { axis.figure.replaceChildren(); continue; }
    const desc = t('charts.desc', { from: f.count(data.xs[0]), to: f.count(data.xs[data.xs.length - 1]) });
    const chart = chartSvg(data, { xLabel: axis.xLabel, title: axis.caption, desc, capacities, f, t, width: view.chartWidth });
    chart.setAttribute('aria-label', `${axis.caption}. ${desc}`);
    fillFigure(axis.figure, axis.caption, chart, t);
    const name = `vramfit-${report.model.id || 'model'}-${axis.key}`;
    axis.figure.querySelector('[data-download="svg"]').addEventListener('click', () =>
      download(`${name}.svg`, new Blob([standaloneSvg(chart)], { type: 'image/svg+xml' })));
    axis.figure.querySelector('[data-download="png"]').addEventListener('click', async () =>
      download(`${name}.png`, await pngBlob(standaloneSvg(chart))));
  }
}
