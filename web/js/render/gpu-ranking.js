// The ranking of GPU type × count (the "gpu_ranking" question) as a sortable table with the picks (cheapest per
// hour, per 1M tokens, fastest, cheapest to buy) marked. A figure the core could not give shows "n/a" (or the core's note), never a blank or NaN.
import { el, FIT_ORDER, isRange, rangeText, sortHeader } from './view.js';

export const PICKS = ['cheapest_per_hour', 'cheapest_per_million_tokens', 'fastest', 'cheapest_to_buy'];
const SHOWN = 12;

const finite = (x) => (Number.isFinite(x) ? x : null);
// Sortable columns of the ranking. `rank` is the core's own order (fitting first, by $/1M tokens, then
// speed); the others sort by the core's figures, a missing figure always last.
export const RANKING_COLUMNS = [
  { key: 'rank', label: 'ranking.config', value: (r) => r.index },
  { key: 'verdict', label: 'gpus.verdict', value: (r) => FIT_ORDER[r.fit] ?? 3 },
  { key: 'free', label: 'gpus.free', value: (r) => r.free_bytes, num: true },
  { key: 'tps', label: 'ranking.tps', value: (r) => finite(r.tokens_per_second?.low), num: true },
  { key: 'per_hour', label: 'ranking.per_hour', value: (r) => finite(r.usd_per_hour), num: true },
  { key: 'per_million', label: 'ranking.per_million', value: (r) => finite(r.usd_per_million_tokens?.high), num: true },
  { key: 'buy', label: 'ranking.buy', value: (r) => finite(r.purchase_usd), num: true },
];

/**
 * The ranking in the chosen column's order (the core's by default): the first rows, plus every pick further
 * down. Each row carries the picks it is (by the core's index).
 */
export function rankingRows(answer, all = false, { sort = 'rank', direction = 'ascending' } = {}) {
  const picks = new Map();
  for (const key of PICKS) {
    const pick = answer[key];
    if (pick && Number.isInteger(pick.index)) picks.set(pick.index, [...(picks.get(pick.index) ?? []), key]);
  }
  const column = RANKING_COLUMNS.find((c) => c.key === sort) ?? RANKING_COLUMNS[0];
  const sign = direction === 'descending' ? -1 : 1;
  const compare = (a, b) => {
    const x = column.value(a); const y = column.value(b);
    if (x === null || y === null) return (x === null) - (y === null) || a.index - b.index;
    return sign * (x - y) || a.index - b.index;
  };
  return answer.ranking
    .map((r, index) => ({ ...r, index, picks: picks.get(index) ?? [] }))
    .sort(compare)
    .filter((r, i) => all || i < SHOWN || r.picks.length > 0);
}

export function renderGpuRanking(dom, answer, view) {
  const { t, f } = view;
  if (!answer?.ok) {
    dom.rankingSection.hidden = true;
    return;
  }
  const rows = rankingRows(answer, view.rankingAll, { sort: view.rankingSort, direction: view.rankingDirection });
  dom.rankingHead.replaceChildren(...sortHeader(RANKING_COLUMNS, view.rankingSort, view.rankingDirection, t));
  const na = t('ranking.na');
  const money = (x) => (Number.isFinite(x) ? f.fixed(x, 2) : na);
  dom.ranking.replaceChildren(...rows.map((r) => el('tr', {
    class: `fit-${r.fit}${r.picks.length ? ' pick' : ''}`, 'data-config': `${r.gpu}x${r.count}`,
    'data-picks': r.picks.join(' ') || null,
  },
  el('th', { scope: 'row' }, `${f.count(r.count)} × ${t.gpu(r.name, f)}`,
    ...r.picks.map((p) => el('span', { class: 'pick-tag', text: t(`ranking.${p}`) }))),
  el('td', {}, el('span', { class: `badge badge-${r.fit}`, text: t(`fit.${r.fit}`) })),
  el('td', { class: 'num', text: f.signedShort(r.free_bytes) }),
  el('td', { class: 'num', text: isRange(r.tokens_per_second) ? rangeText(r.tokens_per_second, f, 1) : (r.note ? t.message(r.note, f) : na) }),
  el('td', { class: 'num', text: money(r.usd_per_hour) }),
  el('td', { class: 'num', text: isRange(r.usd_per_million_tokens) ? rangeText(r.usd_per_million_tokens, f, 2, true) : na }),
  // The street price is one dated figure: its date in the cell's title.
  el('td', { class: 'num', text: Number.isFinite(r.purchase_usd) ? f.count(Math.round(r.purchase_usd)) : na,
    title: r.purchase_date ?? null }))));
  const picks = PICKS.map((key) => (answer[key]
    ? t(`ranking.pick.${key}`, { config: `${f.count(answer[key].count)} × ${t.gpu(answer[key].name, f)}` }) : null)).filter(Boolean);
  dom.rankingPicks.textContent = picks.join(' · ');
  dom.rankingCount.replaceChildren(t('ranking.count', { shown: f.count(rows.length), total: f.count(answer.ranking.length) }),
    answer.ranking.length > SHOWN
      ? el('button', { type: 'button', id: 'ranking-all', class: 'link', 'aria-expanded': String(Boolean(view.rankingAll)),
        text: t(view.rankingAll ? 'ranking.fewer' : 'ranking.all') }) : null);
  dom.rankingNotes.replaceChildren(...t.messages(answer.notes, f).map((n) => el('li', { text: n })));
  dom.rankingSection.hidden = false;
}
