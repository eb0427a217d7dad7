// The GPU table: one verdict per catalog GPU, filtered by segment and sorted by any column.
import { el, FIT_ORDER, sortHeader, verdictLabel, verdictText } from './view.js';

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
  dom.gpus.replaceChildren(...rows.map((g) => {
    // The headline's GPU, where the verdict says more than the row (it runs with part of the model in system RAM):
    // its words and colour, and no count of GPUs needed beside a yes.
    const label = verdictLabel(report, g, t, f);
    const fit = label ? report.verdict.fit : g.fit;
    return el('tr', { class: `fit-${fit}${g.id === view.gpu ? ' chosen' : ''}`, 'data-gpu': g.id },
      el('th', { scope: 'row', text: t.gpu(g.name, f) }),
      el('td', { text: t(`segment.${g.segment}`) }),
      el('td', { class: 'num', text: f.bytesShort(g.usable_bytes) }),
      el('td', {}, el('span', { class: `badge badge-${g.one_per_machine ? 'none' : fit}`, text: label ?? verdictText(g, t, f) })),
      el('td', { class: 'num', text: g.gpus_needed > 0 && !label ? f.count(g.gpus_needed) : '—' }),
      // A Mac asked for several times is not judged: no free memory to show.
      el('td', { class: 'num', text: g.one_per_machine ? '—' : f.signedShort(g.free_bytes) }));
  }));
  dom.gpusLegend.textContent = t('gpus.legend', { share: f.share(1 - report.inputs.headroom, 1) });
}
