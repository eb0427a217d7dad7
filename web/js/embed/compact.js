// The compact answer used by embed.html and <vram-fit>: model, headline, total, bar, legend, link.
import { el, breakdownLines, headline, fillBar, totalRange } from '../render/view.js';
import { stateCodec, unknownChoice, ownedCards, gpuFields, MAX_CARDS } from '../state.js';

// Attributes of the element that are no part of the scenario.
const NOT_STATE = new Set(['id', 'class', 'style', 'slot', 'part', 'title', 'hidden', 'lang', 'unit']);

/** Without the calculator (its .wasm refused by the browser): a short text and a link to the full page with the
 * scenario the element's attributes name; returns the answer it stands for. */
export function renderUnavailable(root, attributes, { t, siteBase }) {
  const params = new URLSearchParams();
  for (const { name, value } of attributes) if (value !== '' && !NOT_STATE.has(name)) params.set(name, value);
  const href = new URL(`index.html?${params}`, siteBase).href;
  root.replaceChildren(el('p', { class: 'c-error', role: 'alert' }, `${t('embed.unavailable')} `,
    el('a', { class: 'c-link', href, target: '_blank', rel: 'noopener', text: t('embed.open') })));
  return { ok: false, error: { field: 'calculator', message: t('embed.unavailable') } };
}

/** Evaluates the state with the core and renders the compact view into root; returns the core's answer. */
export function renderCompact(root, calculator, state, { t, f, siteBase }) {
  const codec = stateCodec(calculator.catalog);
  const link = el('a', { class: 'c-link', href: new URL(`index.html?${codec.query(state)}`, siteBase).href,
    target: '_blank', rel: 'noopener', text: t('embed.open') });
  const refuse = (field, text) => {
    root.replaceChildren(el('p', { class: 'c-error', role: 'alert', text: `${t(`field.${field}`)}: ${text}` }), link);
    return { ok: false, error: { field } };
  };
  const unknown = unknownChoice(state);
  if (unknown) return refuse(unknown.field, t('error.choice', unknown));
  const cards = ownedCards(state);
  if (cards?.error) return refuse(cards.error.field, t(cards.error.key, { max: f.count(MAX_CARDS) }));
  // On the chosen GPU (or cards), as the main page shows it (vLLM sizes its defaults by the GPU).
  const request = codec.request(state);
  const report = calculator.answer({ ...request, question: 'estimate', ...gpuFields(state, cards) });
  if (!report.ok) {
    refuse(report.error.field, t.message(report.error.message, f));
    return report;
  }
  const { text, fit } = headline(report, { t, f, gpu: state.gpu });
  const lines = breakdownLines(report.breakdown);
  const range = totalRange(report);
  const bar = el('div', { class: 'bar' });
  fillBar(bar, lines, report.breakdown.total, t, f);
  root.replaceChildren(
    el('p', { class: 'c-model', text: `${report.model.name} · ${report.inputs.weights ?? t(`mode.${report.inputs.mode}`)} · ${f.count(report.inputs.context ?? report.inputs.sequence)} ${t('inputs.context.unit').replace(/[()]/g, '')} · ×${f.count(report.inputs.batch ?? report.inputs.micro_batch)}` }),
    el('p', { class: `c-headline fit-${fit}`, 'data-testid': 'headline', text }),
    el('p', { class: 'c-total' }, `${t('line.total')}: `, el('strong', { 'data-testid': 'total', text: f.bytes(report.breakdown.total) }),
      range ? ` (${t('total.range', { low: f.bytes(range.low), high: f.bytes(range.high) })})` : ''),
    bar,
    el('ul', { class: 'c-legend' }, ...lines.map((l) => el('li', { 'data-line': l.key },
      el('span', { class: `swatch ${l.colour}`, 'aria-hidden': 'true' }), `${l.within ? t('breakdown.within', { label: t(`line.${l.key}`) }) : t(`line.${l.key}`)} ${f.bytes(l.bytes)} (${f.share(l.bytes, report.breakdown.total)})`))),
    link,
  );
  return report;
}
