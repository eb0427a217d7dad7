// Markdown and CSV forms of what the page shows: the same formatted figures, as text for docs and sheets.
import { breakdownLines, headline, verdictText, verdictLabel } from './view.js';

const mdCell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdownTable(report, view, link) {
  const { t, f } = view;
  const lines = breakdownLines(report.breakdown);
  const out = [
    `**${mdCell(report.model.name)}** — ${mdCell(headline(report, view).text)}`,
    '',
    `| ${t('breakdown.component')} | ${t('breakdown.memory', { unit: f.unit })} | ${t('breakdown.share')} |`,
    '| --- | ---: | ---: |',
    ...lines.map((l) => `| ${mdCell(t(`line.${l.key}`))} | ${f.amount(l.bytes)} | ${f.share(l.bytes, report.breakdown.total)} |`),
    `| **${t('line.total')}** | **${f.amount(report.breakdown.total)}** | ${f.share(1, 1)} |`,
  ];
  if (link) out.push('', `[vramfit](${link})`);
  return `${out.join('\n')}\n`;
}

// RFC 4180: numbers bare, so a sheet reads them as numbers (negative free bytes too); every text quoted with inner
// quotes doubled, a leading = + - @ defused against spreadsheet formulas.
const csvField = (value) => {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  let s = String(value);
  if (/^[=+\-@]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
};

/** Raw bytes (exact integers from the core) plus the verdicts; one table per section. */
export function csvText(report, view) {
  const { t, f } = view;
  const rows = [['section', 'key', 'name', 'bytes', 'share_or_verdict', 'gpus_needed', 'free_bytes']];
  for (const l of breakdownLines(report.breakdown)) {
    rows.push(['breakdown', l.key, t(`line.${l.key}`), l.bytes, Number((l.bytes / report.breakdown.total).toFixed(6)), '', '']);
  }
  rows.push(['breakdown', 'total', t('line.total'), report.breakdown.total, 1, '', '']);
  for (const g of report.gpus) {
    rows.push(['gpu', g.id, t.gpu(g.name, f), g.usable_bytes, verdictLabel(report, g, t, f) ?? verdictText(g, t, f), g.gpus_needed,
      g.one_per_machine ? '' : g.free_bytes]);
  }
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

export function download(filename, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
