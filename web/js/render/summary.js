// The summary of a core report on the full page (headline, total, model facts, bar, breakdown, notes) and the
// dialog that shows how a figure was computed. Text goes in with textContent only.
import { el, breakdownLines, totalRange, headline, fillBar, layerSummary } from './view.js';
import { showValidationLink } from './validation-link.js';

// A number that opens its explanation (formula, inputs, source from report.explanations).
function explainButton(key, text, t) {
  return el('button', { type: 'button', class: 'number', 'data-explain': key,
    'aria-label': `${text}: ${t('explain.open', { label: t(`line.${key}`) })}` }, text);
}

export function renderSummary(dom, report, view) {
  const { t, f } = view;
  const { breakdown } = report;
  const lines = breakdownLines(breakdown);
  const { text, fit, certainty, reasons } = headline(report, view);
  dom.headline.textContent = text;
  dom.headline.className = `headline fit-${fit} certainty-${certainty}`;
  // Why the verdict is not certain: the input not known and what its other values give.
  if (dom.certaintyReasons) {
    dom.certaintyReasons.replaceChildren(...reasons.map((r) => el('span', { class: 'reason' }, r)));
    dom.certaintyReasons.hidden = reasons.length === 0;
  }
  dom.totalGb.textContent = f.bytes(breakdown.total);
  // The range only where its ends differ as shown; where the engine keeps part of the model in system RAM, the
  // total's split between the GPU and the RAM, as the headline's placement says.
  const range = totalRange(report);
  const placement = report.verdict.placement;
  const ends = range && [f.bytes(range.low), f.bytes(range.high)];
  const parts = [
    ends && ends[0] !== ends[1] ? `(${t('total.range', { low: ends[0], high: ends[1] })})` : null,
    placement ? t(placement.gpus > 1 ? 'total.placement_gpus' : 'total.placement', {
      gpu: f.bytes(placement.gpu_bytes), ram: f.bytes(placement.ram_bytes), count: f.count(placement.gpus) }) : null,
  ].filter(Boolean);
  dom.totalRange.textContent = parts.join(' · ');
  showValidationLink(dom.validationLink, view);
  const m = report.model;
  const facts = [
    // Active as model cards count it (without the input embedding); the parameters' explanation says so.
    m.params_active !== m.params_total ? t('facts.active', { n: f.billions(m.params_active_excl_embedding) }) : null,
    m.layers && !m.layer_mixers?.length ? t('facts.layers', { n: f.count(m.layers) }) : null,
    m.kv_heads ? t('facts.heads', { heads: m.attention_heads, kv: m.kv_heads, dim: m.head_dim }) : null,
    report.kv_cache ? t('facts.kv', { n: f.count(report.kv_cache.bytes_per_token) }) : null,
  ].filter(Boolean);
  // The core names configs and files; the fallbacks only guard against an empty name. The parameter count
  // opens how it was counted and where the architecture came from.
  const params = t('facts.params', { n: f.billions(m.params_total) });
  // A figure is a button only where the core explains it: never a button that opens nothing.
  const explained = (key, text) => (report.explanations.some((x) => x.key === key) ? explainButton(key, text, t) : text);
  const layers = layerSummary(m, t, f);
  dom.modelFacts.replaceChildren(`${m.name || m.architecture || m.id}: `, explained('params', params),
    ...facts.map((fact) => ` · ${fact}`),
    layers ? el('span', { class: 'layer-kinds', 'data-testid': 'layer-kinds', text: layers }) : null);
  fillBar(dom.bar, lines, breakdown.total, t, f);
  dom.memoryCol.textContent = t('breakdown.memory', { unit: f.unit });

  // With both kinds of cache, each line says how it grows; system RAM says the lines above it are the GPU's.
  const twoCaches = lines.some((l) => l.key === 'state_cache');
  const hint = (key) => (key === 'system_ram' || (twoCaches && (key === 'kv_cache' || key === 'state_cache'))
    ? el('small', { class: 'line-hint', text: t(`breakdown.hint.${key}`) }) : null);
  const rows = lines.map((line) => el('tr', { 'data-line': line.key, class: line.within ? 'part' : null },
    el('th', { scope: 'row' }, el('span', { class: `swatch ${line.colour}`, 'aria-hidden': 'true' }),
      line.within ? t('breakdown.within', { label: t(`line.${line.key}`) }) : t(`line.${line.key}`), hint(line.key)),
    el('td', { class: 'num' }, explained(line.key, f.amount(line.bytes))),
    el('td', { class: 'num', text: f.share(line.bytes, breakdown.total) })));
  rows.push(el('tr', { class: 'total', 'data-line': 'total' },
    el('th', { scope: 'row', text: t('line.total') }),
    el('td', { class: 'num', 'data-testid': 'total-gb-cell' }, explained('total', f.amount(breakdown.total))),
    el('td', { class: 'num', text: f.share(1, 1) })));
  dom.breakdown.replaceChildren(...rows);
  dom.notes.replaceChildren(...t.messages(report.notes, f).map((n) => el('li', { text: n })));
  renderDevices(dom, report, view);
}

// Over several GPUs, each one's part (llama.cpp and transformers: its layers; vLLM: every GPU alike), and what the
// core says it leaves free on its card.
function renderDevices(dom, report, { t, f }) {
  const g = report.per_gpu;
  dom.devices.hidden = !g;
  if (!g) return;
  dom.devicesTitle.textContent = t('devices.title', { unit: f.unit });
  const devices = g.devices?.length ? g.devices : [{ ...g, layers: 0, output: false, each: true }];
  const layers = (d) => {
    if (d.each) return '—';
    const range = d.layers ? t('devices.layerRange', { from: f.count(d.first_layer), to: f.count(d.first_layer + d.layers - 1) }) : '';
    return [range, d.output ? t('devices.output') : ''].filter(Boolean).join(' + ') || '—';
  };
  const free = (d) => (Number.isFinite(d.free_bytes) ? f.amount(d.free_bytes) : '—');
  // Each figure carries its column's name: a narrow screen shows a GPU's figures under it, each labelled.
  const cell = (key, text, num = true) => el('td', { class: num ? 'num' : null, 'data-label': t(`devices.${key}`), text });
  dom.devicesRows.replaceChildren(...devices.map((d, i) => el('tr', { 'data-device': String(i) },
    el('th', { scope: 'row', text: d.each ? t('devices.each', { n: f.count(g.gpus) }) : t('devices.gpu', { n: f.count(i + 1) }) }),
    cell('layers', layers(d), false),
    cell('weights', f.amount(d.weights)),
    cell('cache', f.amount(d.kv_cache + d.state_cache)),
    cell('compute', f.amount(d.activations)),
    cell('total', f.amount(d.total)),
    cell('free', free(d)))));
}

export function showExplanation(dialog, report, key, t, f) {
  const x = report.explanations.find((e) => e.key === key);
  if (!x) return false;
  // The weights line lists each kind of tensor with the format it is stored in (the core's weights.groups), then
  // what the files hold beyond it: their multi-token-prediction layers, which engines load only to draft tokens.
  const w = key === 'weights' ? report.weights : undefined;
  const groups = w?.groups && [...w.groups, ...(w.mtp_layers?.groups ?? [])];
  return openExplanation(dialog, t('explain.open', { label: t(`line.${key}`) }), x, t, f, groups && { groups });
}

/** The dialog for one {formula, values, source} from the core, under `title`, in the page's language; `table`
 * adds the tensor groups. */
export function openExplanation(dialog, title, x, t, f, table) {
  dialog.querySelector('#explain-title').textContent = title;
  dialog.querySelector('#explain-formula').textContent = t.message(x.formula, f);
  dialog.querySelector('#explain-values').textContent = t.message(x.values, f);
  dialog.querySelector('#explain-source').textContent = t.message(x.source, f);
  const section = dialog.querySelector('#explain-groups');
  section.hidden = !table;
  if (table) section.querySelector('tbody').replaceChildren(...groupRows({ ...table, t, f }));
  dialog.showModal();
  return true;
}

function groupRows({ groups, t, f }) {
  return groups.map((g) => el('tr', {},
    el('th', { scope: 'row', text: t(`group.${g.what}`) }),
    el('td', { text: g.format }),
    el('td', { class: 'num', text: f.billions(g.params) }),
    el('td', { class: 'num', text: f.bytes(g.bytes) })));
}
