// Feeds the two charts. Every point is a full estimate by the core, asked for one GPU so the answer stays small;
// the page only lays the numbers out. The core's curve gives every point in one call; a request it does not
// answer (training) falls back to one estimate per x. `answer` asks the core one question (about the preset, the
// config.json or the loaded model file).
import { chartSvg, fillFigure, logSpace, standaloneSvg, pngBlob } from './chart-svg.js';
import { breakdownLines, stackedLines, headlineGpu } from './view.js';
import { download } from './export.js';

export const POINTS = 64;

/** Columnar series: xs, one column per breakdown line, totals. Points the core refuses are skipped. */
export function series(answer, request, key, xs, gpuId) {
  const base = { ...request, gpu: gpuId };
  const curve = answer({ ...base, question: 'curve', axis: key, values: xs });
  if (curve.ok && curve.xs.length >= 2) {
    // The core names the columns; the page gives each its colour, in the breakdown's order.
    const byKey = Object.fromEntries(curve.lines.map((l) => [l.key, l.values]));
    const lines = stackedLines(breakdownLines(Object.fromEntries(curve.lines.map((l) => [l.key, 1]))))
      .map((l) => ({ ...l, values: byKey[l.key] }));
    return { xs: curve.xs, lines, totals: curve.totals };
  }
  const keptXs = []; const reports = [];
  for (const x of xs) {
    const r = answer({ ...base, question: 'estimate', [key]: x });
    if (r.ok) { keptXs.push(x); reports.push(r); }
  }
  if (reports.length < 2) return null;
  const lines = stackedLines(breakdownLines(reports[0].breakdown)).map((l) => ({ ...l, values: reports.map((r) => r.breakdown[l.key] ?? 0) }));
  return { xs: keptXs, lines, totals: reports.map((r) => r.breakdown.total) };
}

export function renderCharts(figures, answer, request, report, view) {
  const { t, f } = view;
  const row = headlineGpu(report.gpus, view) ?? report.gpus[0];
  const capacities = [row].filter(Boolean).map((g) => ({ label: g.name, bytes: g.usable_bytes }));
  const maxContext = Math.max(report.model.max_context || (report.inputs.context ?? report.inputs.sequence), 2048);
  const axes = [
    { key: 'context', figure: figures.context, xs: logSpace(Math.min(256, maxContext / 8), maxContext, POINTS),
      caption: t('charts.context'), xLabel: t('charts.x.context') },
    { key: 'batch', figure: figures.batch, xs: logSpace(1, 256, POINTS), caption: t('charts.batch'), xLabel: t('charts.x.batch') },
  ];
  for (const axis of axes) {
    const data = series(answer, request, axis.key, axis.xs, row?.id);
    if (!data) { axis.figure.replaceChildren(); continue; }
    const desc = t('charts.desc', { from: f.count(data.xs[0]), to: f.count(data.xs[data.xs.length - 1]) });
    const chart = chartSvg(data, { xLabel: axis.xLabel, title: axis.caption, desc, capacities, f, t });
    chart.setAttribute('aria-label', `${axis.caption}. ${desc}`);
    fillFigure(axis.figure, axis.caption, chart, t);
    const name = `vramfit-${report.model.id || 'model'}-${axis.key}`;
    axis.figure.querySelector('[data-download="svg"]').addEventListener('click', () =>
      download(`${name}.svg`, new Blob([standaloneSvg(chart)], { type: 'image/svg+xml' })));
    axis.figure.querySelector('[data-download="png"]').addEventListener('click', async () =>
      download(`${name}.png`, await pngBlob(standaloneSvg(chart))));
  }
}
