// Speed and cost on the chosen GPU (the report's `speed` / `cost`) and the core's ranking of GPU type × count
// (its "gpu_ranking" question). A figure the core could not give shows "n/a" with the core's reason, never a
// blank or NaN.
import { el, FIT_ORDER, sortHeader } from './view.js';

const isRange = (r) => r && Number.isFinite(r.low) && Number.isFinite(r.high);

/** "23.9–48.1" (or one number when both ends agree). */
function rangeText(r, f, digits) {
  const low = f.number(r.low, digits); const high = f.number(r.high, digits);
  return low === high ? low : `${low}–${high}`;
}

/** [label, value] pairs for the chosen GPU; empty when the report has no serving figures (no GPU chosen). */
export function speedFigures(report, t, f) {
  if (!report.cost && !report.speed_unavailable && !report.speed) return [];
  const na = (reason) => t('speed.na', { reason });
  const speed = report.speed;
  const noSpeed = report.speed_unavailable ?? t('speed.noSpeed');
  const decode = report.decode_tokens_per_second;
  const prefill = report.prefill_tokens_per_second;
  const cost = report.cost ?? {};
  const hasPrice = Number.isFinite(cost.usd_per_hour);
  const rows = [
    ['speed.decode', isRange(decode) ? t('speed.tps', { value: rangeText(decode, f, 1) }) : na(noSpeed)],
    // Without any speed figure the core's reason is about decoding (an encoder has none): prefill says less.
    ['speed.prefill', isRange(prefill) ? t('speed.tps', { value: rangeText(prefill, f, 0) })
      : na(speed ? (speed.prefill_unavailable ?? noSpeed) : t('speed.noSpeed'))],
    ['speed.per_hour', hasPrice ? t('speed.usd', { value: f.number(cost.usd_per_hour, 2) }) : na(t('speed.noPrice'))],
    ['speed.per_million', isRange(cost.usd_per_million_tokens)
      ? t('speed.usd', { value: rangeText(cost.usd_per_million_tokens, f, 2) })
      : na(hasPrice ? noSpeed : t('speed.noPrice'))],
  ];
  if (hasPrice && cost.price_source) rows.push(['speed.price_source', `${cost.price_source}${cost.price_date ? ` (${cost.price_date})` : ''}`]);
  if (speed?.note) rows.push(['speed.note', speed.note]);
  return rows;
}

export function renderSpeed(dom, report, t, f) {
  const rows = speedFigures(report, t, f);
  dom.speed.hidden = rows.length === 0;
  dom.speedFigures.replaceChildren(...rows.flatMap(([label, value]) => [
    el('dt', { text: t(label) }), el('dd', { 'data-figure': label.slice(label.indexOf('.') + 1), text: value })]));
}

export const PICKS = ['cheapest_per_hour', 'cheapest_per_million_tokens', 'fastest'];
const SHOWN = 12;

const finite = (x) => (Number.isFinite(x) ? x : null);
// Sortable columns of the ranking. `rank` is the core's own order (fitting first, by $/1M tokens, then
// speed); the others sort by the core's figures, a missing figure always last.
export const RECOMMEND_COLUMNS = [
  { key: 'rank', label: 'recommend.config', value: (r) => r.index },
  { key: 'verdict', label: 'gpus.verdict', value: (r) => FIT_ORDER[r.fit] ?? 3 },
  { key: 'free', label: 'gpus.free', value: (r) => r.free_bytes, num: true },
  { key: 'tps', label: 'recommend.tps', value: (r) => finite(r.tokens_per_second?.low), num: true },
  { key: 'per_hour', label: 'recommend.per_hour', value: (r) => finite(r.usd_per_hour), num: true },
  { key: 'per_million', label: 'recommend.per_million', value: (r) => finite(r.usd_per_million_tokens?.high), num: true },
];

/**
 * The ranking in the chosen column's order (the core's by default): the first rows, plus every pick further
 * down. Each row carries the picks it is (by the core's index).
 */
export function recommendRows(answer, all = false, { sort = 'rank', direction = 'ascending' } = {}) {
  const picks = new Map();
  for (const key of PICKS) {
    const pick = answer[key];
    if (pick && Number.isInteger(pick.index)) picks.set(pick.index, [...(picks.get(pick.index) ?? []), key]);
  }
  const column = RECOMMEND_COLUMNS.find((c) => c.key === sort) ?? RECOMMEND_COLUMNS[0];
  const sign = direction === 'descending' ? -1 : 1;
  const compare = (a, b) => {
    const x = column.value(a); const y = column.value(b);
    if (x === null || y === null) return (x === null) - (y === null) || a.index - b.index;
    return sign * (x - y) || a.index - b.index;
  };
  return answer.recommendations
    .map((r, index) => ({ ...r, index, picks: picks.get(index) ?? [] }))
    .sort(compare)
    .filter((r, i) => all || i < SHOWN || r.picks.length > 0);
}

export function renderRecommendations(dom, answer, view) {
  const { t, f } = view;
  if (!answer?.ok) {
    dom.recommendSection.hidden = true;
    return;
  }
  const rows = recommendRows(answer, view.recommendAll, { sort: view.recommendSort, direction: view.recommendDirection });
  dom.recommendHead.replaceChildren(...sortHeader(RECOMMEND_COLUMNS, view.recommendSort, view.recommendDirection, t));
  const na = t('recommend.na');
  const money = (x) => (Number.isFinite(x) ? f.number(x, 2) : na);
  dom.recommend.replaceChildren(...rows.map((r) => el('tr', {
    class: `fit-${r.fit}${r.picks.length ? ' pick' : ''}`, 'data-config': `${r.gpu}x${r.count}`,
    'data-picks': r.picks.join(' ') || null,
  },
  el('th', { scope: 'row' }, `${f.count(r.count)} × ${r.name}`,
    ...r.picks.map((p) => el('span', { class: 'pick-tag', text: t(`recommend.${p}`) }))),
  el('td', {}, el('span', { class: `badge badge-${r.fit}`, text: t(`fit.${r.fit}`) })),
  el('td', { class: 'num', text: f.signedShort(r.free_bytes) }),
  el('td', { class: 'num', text: isRange(r.tokens_per_second) ? rangeText(r.tokens_per_second, f, 1) : (r.note ?? na) }),
  el('td', { class: 'num', text: money(r.usd_per_hour) }),
  el('td', { class: 'num', text: isRange(r.usd_per_million_tokens) ? rangeText(r.usd_per_million_tokens, f, 2) : na }))));
  const picks = PICKS.map((key) => (answer[key]
    ? t(`recommend.pick.${key}`, { config: `${f.count(answer[key].count)} × ${answer[key].name}` }) : null)).filter(Boolean);
  dom.recommendPicks.textContent = picks.join(' · ');
  dom.recommendCount.replaceChildren(t('recommend.count', { shown: f.count(rows.length), total: f.count(answer.recommendations.length) }),
    answer.recommendations.length > SHOWN
      ? el('button', { type: 'button', id: 'recommend-all', class: 'link', 'aria-expanded': String(Boolean(view.recommendAll)),
        text: t(view.recommendAll ? 'recommend.fewer' : 'recommend.all') }) : null);
  dom.recommendNotes.replaceChildren(...answer.notes.map((n) => el('li', { text: n })));
  dom.recommendSection.hidden = false;
}
