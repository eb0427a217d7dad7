// Pieces shared by the full page, embed.html and <vram-fit>: DOM building with textContent only (names from
// a URL or a config file never become markup), the breakdown lines a report carries, and the headline.
const KNOWN_ORDER = ['weights', 'vision_encoder', 'gradients', 'optimizer', 'master_weights', 'kv_cache', 'state_cache', 'activations',
  'temporary', 'overhead'];
const KNOWN_COLOURS = new Set(['weights', 'kv_cache', 'state_cache', 'activations', 'overhead', 'gradients',
  'optimizer', 'master_weights', 'temporary', 'system_ram', 'in_use']);
// Lines only some answers have, left out at 0: a vision model's encoder, the per-sequence state of linear-attention
// and Mamba layers, what an engine keeps in system RAM (then the other lines are the GPU's share), and memory other
// programs hold.
const ONLY_WHEN_USED = new Set(['vision_encoder', 'state_cache', 'system_ram', 'in_use']);
// Off the GPU: after every line on it.
const LAST = 'system_ram';

/** A table's header of sort buttons; `sort` / `direction` say which column is active and how (aria-sort). */
export function sortHeader(columns, sort, direction, t) {
  return columns.map((c) => {
    const active = c.key === sort;
    return el('th', { scope: 'col', class: c.num ? 'num' : null, 'aria-sort': active ? direction : null },
      el('button', { type: 'button', class: 'sort', 'data-sort': c.key, 'aria-label': t('gpus.sort', { column: t(c.label) }) },
        t(c.label), el('span', { class: 'sort-mark', 'aria-hidden': 'true', text: active ? (direction === 'descending' ? ' ▼' : ' ▲') : '' })));
  });
}

// Verdicts best first, for every table that sorts by them.
export const FIT_ORDER = { fits: 0, tight: 1, does_not_fit: 2 };

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// Lines that are a part of another line (the fp32 master copy is inside the optimizer states): shown as
// "of which" under their parent, never stacked or summed a second time.
const WITHIN = { master_weights: 'optimizer' };

/**
 * Every numeric line of report.breakdown except the total, known ones in a fixed order and new ones after
 * (as the core adds lines they appear without a page change). Each carries its colour class; a line that is
 * part of another carries `within` (the parent's key) and follows its parent.
 */
export function breakdownLines(breakdown) {
  const keys = Object.keys(breakdown).filter((k) => k !== 'total' && Number.isFinite(breakdown[k])
    && !(ONLY_WHEN_USED.has(k) && breakdown[k] === 0));
  keys.sort((a, b) => rank(a) - rank(b));
  let extra = 0;
  const lines = keys.map((key) => ({
    key, bytes: breakdown[key], colour: KNOWN_COLOURS.has(key) ? `seg-${key}` : `seg-extra-${extra++ % 4}`,
    within: WITHIN[key] && keys.includes(WITHIN[key]) ? WITHIN[key] : null,
  }));
  const parts = lines.filter((l) => l.within);
  const out = [];
  for (const line of lines.filter((l) => !l.within)) out.push(line, ...parts.filter((p) => p.within === line.key));
  return out;
}

/** The lines that stack up to the total (bar, charts): no "of which" parts. */
export const stackedLines = (lines) => lines.filter((l) => !l.within);
const rank = (key) => {
  if (key === LAST) return KNOWN_ORDER.length + 1;
  const i = KNOWN_ORDER.indexOf(key); return i < 0 ? KNOWN_ORDER.length : i;
};

/** Whether the core gave both ends of a range ({low, high}). */
export const isRange = (r) => r && Number.isFinite(r.low) && Number.isFinite(r.high);

/** "23.9–48.1" (or one number when both ends agree); `fixed` keeps every decimal on both ends, as prices
 * do ("0.33–0.50", not "0.33–0.5"). */
export function rangeText(r, f, digits, fixed = false) {
  // A speed below one (a model mostly in system RAM) keeps two significant digits at its smaller end: 0.04 t/s
  // must not read 0.
  const smaller = Math.min(Math.abs(r.low), Math.abs(r.high));
  const places = !fixed && smaller > 0 && smaller < 1 ? Math.max(digits, 1 - Math.floor(Math.log10(smaller))) : digits;
  const text = (x) => (fixed ? f.fixed(x, digits) : f.number(x, places));
  const low = text(r.low); const high = text(r.high);
  return low === high ? low : `${low}–${high}`;
}

/** The uncertainty range of the total, when the report carries one: {low, high} in bytes. */
export function totalRange(report) {
  const r = report.range;
  return r && Number.isFinite(r.low) && Number.isFinite(r.high) ? r : null;
}

/**
 * The headline of a report as the page, its exports and the embeds show it: the core's verdict, rendered in the
 * page's language. {row: the GPU list's row it speaks of (or null), text, fit: its colour}.
 */
export function headline(report, { t, f }) {
  const v = report.verdict;
  const row = v.gpu ? report.gpus.find((g) => g.id === v.gpu) ?? null : null;
  // A Mac's clause follows the sentence: how much of its RAM the verdict counted; where an input it depends on is not
  // known, a lead before it says how sure it is ("Unknown: ") and the reasons say why.
  const text = (v.lead ? t.message(v.lead, f) : '') + t.message(v.message, f) + (v.wired ? t.message(v.wired, f) : '');
  const reasons = t.messages(v.certainty_reasons, f);
  return { row, text, fit: v.fit, certainty: v.certainty ?? 'certain', reasons };
}

/** The verdict's words for its GPU's row in a table, where the row's fit says less (part of it in system RAM). */
export function verdictLabel(report, row, t, f) {
  const v = report.verdict;
  return v?.label && row.id === v.gpu ? t.message(v.label, f) : null;
}

export function verdictText(row, t, f) {
  if (row.one_per_machine) return t('fit.onePerMachine');
  if (row.fit === 'does_not_fit' && row.gpus_needed > 1) return t('fit.needs', { n: f.count(row.gpus_needed) });
  return t(`fit.${row.fit}`);
}

/** The stacked bar: one segment per line, widths proportional to bytes (flex-grow set through CSSOM). */
export function fillBar(bar, lines, total, t, f) {
  const stacked = stackedLines(lines);
  bar.replaceChildren(...stacked.filter((l) => l.bytes > 0).map((line) => {
    const seg = el('span', { class: `seg ${line.colour}`, title: `${t(`line.${line.key}`)}: ${f.bytes(line.bytes)}` });
    seg.style.flexGrow = String(line.bytes);
    return seg;
  }));
  bar.setAttribute('role', 'img');
  bar.setAttribute('aria-label', `${t('breakdown.bar')}: ${stacked.map((l) => `${t(`line.${l.key}`)} ${f.bytes(l.bytes)} (${f.share(l.bytes, total)})`).join(', ')}`);
}

/**
 * The layer summary from the core's counts (report.model.layer_mixers, layer_mlps): "40 layers: 30 linear attention,
 * 10 full attention · mixture of experts in every layer"; null without layers.
 */
export function layerSummary(model, t, f) {
  const { layer_mixers: mixers, layer_mlps: mlps } = model;
  if (!mixers.length) return null;
  const list = (counts, key, prefix) => (counts.length === 1 ? t('layers.every', { kind: t(`${prefix}.${counts[0][key]}`) })
    : counts.map((c) => `${f.count(c.count)} ${t(`${prefix}.${c[key]}`)}`).join(', '));
  return `${t('layers.mixers', { n: f.count(model.layers), kinds: list(mixers, 'mixer', 'mixer') })} · ${list(mlps, 'mlp', 'mlp')}`;
}
