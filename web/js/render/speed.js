// Speed and cost on the chosen GPU (the report's `speed` / `cost`). A figure the core could not give shows "n/a"
// with the core's reason, never a blank or NaN.
import { el, isRange, rangeText } from './view.js';

// A price's offer as the catalogue writes it ("RunPod, community cloud, on demand"): the provider and instance names
// stay, the kinds of offer are said in the page's language.
const offerText = (offer, t) => offer.split(', ').map((part) => (t.has(`offer.${part}`) ? t(`offer.${part}`) : part)).join(', ');

/** [label, value] pairs for the chosen GPU; empty when the report has no serving figures (no GPU chosen). */
export function speedFigures(report, t, f) {
  if (!report.cost && !report.speed_unavailable && !report.speed) return [];
  // A speed or a price for a card the scenario does not fit on answers a question nobody asked.
  const row = report.gpus?.length === 1 ? report.gpus[0] : null;
  const kind = report.verdict?.kind;
  // An engine that would not start has no speed: the core's reason says so, as the headline does.
  if (kind === 'refuses' && report.speed_unavailable) {
    return [['speed.note', t.message(report.speed_unavailable, f)]];
  }
  // Run with part of the model in system RAM, the core's speed is that placement's, or its reason for none.
  const gpus = report.per_gpu?.gpus ?? 1;
  if (row?.fit === 'does_not_fit' && kind !== 'runs_split') {
    return [['speed.note', gpus > 1 ? t('speed.unfit_several', { gpu: t.gpu(row.name, f), count: f.count(gpus) })
      : t('speed.unfit', { gpu: t.gpu(row.name, f) })]];
  }
  const na = (reason) => t('speed.na', { reason });
  const speed = report.speed;
  const noSpeed = report.speed_unavailable ? t.message(report.speed_unavailable, f) : t('speed.noSpeed');
  const decode = report.decode_tokens_per_second;
  const prefill = report.prefill_tokens_per_second;
  const ttft = report.time_to_first_token_seconds;
  const cost = report.cost ?? {};
  const hasPrice = Number.isFinite(cost.usd_per_hour);
  const rows = [
    ['speed.decode', isRange(decode) ? t('speed.tps', { value: rangeText(decode, f, 1) }) : na(noSpeed)],
    // With a draft: γ draft steps and one model step give (1 − α^(γ+1)) / (1 − α) tokens (Leviathan et al. 2023).
    ...(speed?.draft ? [['speed.draft', t(speed.draft.acceptance_given ? 'speed.draft.given' : 'speed.draft.range', {
      value: rangeText(speed.draft.decode_tokens_per_second, f, 1),
      tokens: f.count(speed.draft.draft_tokens),
      low: f.number(speed.draft.acceptance_low, 2), high: f.number(speed.draft.acceptance_high, 2),
    })]] : []),
    // Without any speed figure the core's reason is about decoding (an encoder has none): prefill says less.
    ['speed.prefill', isRange(prefill) ? t('speed.tps', { value: rangeText(prefill, f, 0) })
      : na(speed ? (speed.prefill_unavailable ? t.message(speed.prefill_unavailable, f) : noSpeed)
        : t('speed.noSpeed'))],
    // Time to first token: the whole prompt prefilled from an empty cache in the engine's chunks; below a second in
    // milliseconds (a short prompt's first token comes in a few of them).
    ...(isRange(ttft) ? [['speed.ttft', ttft.high < 1
      ? t('speed.ttft_ms', { value: rangeText({ low: ttft.low * 1000, high: ttft.high * 1000 }, f, 0), tokens: f.count(speed.prompt_tokens) })
      : t('speed.ttft_value', { value: rangeText(ttft, f, ttft.high < 10 ? 2 : 1), tokens: f.count(speed.prompt_tokens) })]] : []),
    ['speed.per_hour', hasPrice ? t('speed.usd', { value: f.fixed(cost.usd_per_hour, 2) }) : na(t('speed.noPrice'))],
    ['speed.per_million', isRange(cost.usd_per_million_tokens)
      ? t('speed.usd', { value: rangeText(cost.usd_per_million_tokens, f, 2, true) })
      : na(hasPrice ? noSpeed : t('speed.noPrice'))],
  ];
  if (hasPrice && cost.price_source) rows.push(['speed.price_source', `${offerText(cost.price_source, t)}${cost.price_date ? ` (${cost.price_date})` : ''}`]);
  if (speed?.note) rows.push(['speed.note', t.message(speed.note, f)]);
  return rows;
}

/** [label, text] for each speed the core explains (decode, prefill), in the page's language. */
export function speedHow(report, t, f) {
  const speed = report.speed;
  if (!speed || (report.verdict?.kind === 'refuses' && report.speed_unavailable)) return [];
  const parts = [];
  if (speed.explanation) parts.push(['speed.decode', t.message(speed.explanation, f)]);
  if (speed.prefill_explanation) {
    parts.push(['speed.prefill', t.message(speed.prefill_explanation, f)]);
  }
  return parts;
}

export function renderSpeed(dom, report, t, f) {
  const rows = speedFigures(report, t, f);
  dom.speed.hidden = rows.length === 0;
  dom.speedFigures.replaceChildren(...rows.flatMap(([label, value]) => [
    el('dt', { text: t(label) }), el('dd', { 'data-figure': label.slice(label.indexOf('.') + 1), text: value })]));
  // The figures' arithmetic, folded: only beside figures the block shows (not for a setup that does not fit).
  const how = dom.speed.querySelector('#speed-how');
  if (!how) return;
  const shown = rows.some(([label]) => label === 'speed.decode');
  const parts = shown ? speedHow(report, t, f) : [];
  how.hidden = parts.length === 0;
  how.querySelector('#speed-how-text').replaceChildren(...parts.map(([label, text]) =>
    el('p', { 'data-how': label.slice(label.indexOf('.') + 1) }, el('strong', { text: `${t(label)}: ` }), text)));
}
