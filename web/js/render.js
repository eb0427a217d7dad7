// Renders a core report into the full page. Text goes in with textContent only.
import { el, breakdownLines, totalRange, headlineGpu, headlineText, fillBar, FIT_ORDER, sortHeader } from './view.js';

// A number that opens its explanation (formula, inputs, source from report.explanations).
function explainButton(key, text, t) {
  return el('button', { type: 'button', class: 'number', 'data-explain': key,
    'aria-label': `${text}: ${t('explain.open', { label: t(`line.${key}`) })}` }, text);
}

export function renderSummary(dom, report, view) {
  const { t, f } = view;
  const { breakdown } = report;
  const lines = breakdownLines(breakdown);
  const row = headlineGpu(report.gpus, view);
  dom.headline.textContent = headlineText(row, t, f);
  dom.headline.className = `headline fit-${row?.fit ?? 'none'}`;
  dom.totalGb.textContent = f.bytes(breakdown.total);
  const range = totalRange(report);
  dom.totalRange.textContent = range ? `(${t('total.range', { low: f.bytes(range.low), high: f.bytes(range.high) })})` : '';
  const m = report.model;
  const facts = [
    m.params_active !== m.params_total ? t('facts.active', { n: f.billions(m.params_active) }) : null,
    m.layers ? t('facts.layers', { n: f.count(m.layers) }) : null,
    m.kv_heads ? t('facts.heads', { heads: m.attention_heads, kv: m.kv_heads, dim: m.head_dim }) : null,
    report.kv_cache ? t('facts.kv', { n: f.count(report.kv_cache.bytes_per_token) }) : null,
  ].filter(Boolean);
  // The core names configs and files; the fallbacks only guard against an empty name. The parameter count
  // opens how it was counted and where the architecture came from.
  const params = t('facts.params', { n: f.billions(m.params_total) });
  // A figure is a button only where the core explains it: never a button that opens nothing.
  const explained = (key, text) => (report.explanations.some((x) => x.key === key) ? explainButton(key, text, t) : text);
  dom.modelFacts.replaceChildren(`${m.name || m.architecture || m.id}: `, explained('params', params),
    ...facts.map((fact) => ` · ${fact}`));
  fillBar(dom.bar, lines, breakdown.total, t, f);
  dom.memoryCol.textContent = t('breakdown.memory', { unit: f.unit });

  const rows = lines.map((line) => el('tr', { 'data-line': line.key, class: line.within ? 'part' : null },
    el('th', { scope: 'row' }, el('span', { class: `swatch ${line.colour}`, 'aria-hidden': 'true' }),
      line.within ? t('breakdown.within', { label: t(`line.${line.key}`) }) : t(`line.${line.key}`)),
    el('td', { class: 'num' }, explained(line.key, f.amount(line.bytes))),
    el('td', { class: 'num', text: f.share(line.bytes, breakdown.total) })));
  rows.push(el('tr', { class: 'total', 'data-line': 'total' },
    el('th', { scope: 'row', text: t('line.total') }),
    el('td', { class: 'num', 'data-testid': 'total-gb-cell' }, explained('total', f.amount(breakdown.total))),
    el('td', { class: 'num', text: f.share(1, 1) })));
  dom.breakdown.replaceChildren(...rows);
  dom.notes.replaceChildren(...report.notes.map((n) => el('li', { text: n })));
}

export const GPU_COLUMNS = [
  { key: 'name', label: 'gpus.name', value: (g) => g.name, text: true },
  { key: 'segment', label: 'gpus.segment', value: (g) => g.segment, text: true },
  { key: 'memory', label: 'gpus.memory', value: (g) => g.usable_bytes, num: true },
  { key: 'verdict', label: 'gpus.verdict', value: (g) => FIT_ORDER[g.fit] ?? 3 },
  { key: 'needed', label: 'gpus.needed', value: (g) => (g.gpus_needed > 0 ? g.gpus_needed : Infinity), num: true },
  { key: 'free', label: 'gpus.free', value: (g) => g.free_bytes, num: true },
];

/** The GPU rows in view order: segment filter, then the chosen column (verdict, then memory, by default). */
export function gpuRows(report, { segment, sort, direction }) {
  const column = GPU_COLUMNS.find((c) => c.key === sort) ?? GPU_COLUMNS[3];
  const sign = direction === 'descending' ? -1 : 1;
  const compare = (a, b) => {
    const x = column.value(a); const y = column.value(b);
    const primary = column.text ? String(x).localeCompare(String(y)) : x - y;
    return sign * primary || FIT_ORDER[a.fit] - FIT_ORDER[b.fit] || a.usable_bytes - b.usable_bytes;
  };
  return report.gpus.filter((g) => segment === 'all' || g.segment === segment).sort(compare);
}

export function renderGpuTable(dom, report, view) {
  const { t, f } = view;
  dom.gpuHead.replaceChildren(...sortHeader(GPU_COLUMNS, view.sort, view.direction, t));
  const rows = gpuRows(report, view);
  dom.gpuCount.textContent = t('gpus.count', { shown: f.count(rows.length), total: f.count(report.gpus.length) });
  dom.gpus.replaceChildren(...rows.map((g) => el('tr', { class: `fit-${g.fit}${g.id === view.gpu ? ' chosen' : ''}`, 'data-gpu': g.id },
    el('th', { scope: 'row', text: g.name }),
    el('td', { text: t(`segment.${g.segment}`) }),
    el('td', { class: 'num', text: f.bytesShort(g.usable_bytes) }),
    el('td', {}, el('span', { class: `badge badge-${g.fit}`, text: t(`fit.${g.fit}`) })),
    el('td', { class: 'num', text: g.gpus_needed > 0 ? f.count(g.gpus_needed) : '—' }),
    el('td', { class: 'num', text: f.signedShort(g.free_bytes) }))));
  dom.gpusLegend.textContent = t('gpus.legend', { share: f.share(1 - report.inputs.headroom, 1) });
}

export function showExplanation(dialog, report, key, t) {
  const x = report.explanations.find((e) => e.key === key);
  return x ? openExplanation(dialog, t('explain.open', { label: t(`line.${key}`) }), x) : false;
}

/** The dialog for one {formula, values, source} from the core, under `title`. */
export function openExplanation(dialog, title, x) {
  dialog.querySelector('#explain-title').textContent = title;
  dialog.querySelector('#explain-formula').textContent = x.formula;
  dialog.querySelector('#explain-values').textContent = x.values;
  dialog.querySelector('#explain-source').textContent = x.source;
  dialog.showModal();
  return true;
}
