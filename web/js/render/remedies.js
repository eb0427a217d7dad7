// "What would help": the core's remedies (its "remedies" question) as a table, each with the memory it saves, the
// memory afterwards (and the fit on the chosen GPU), what it costs and where that comes from, and an Apply
// button where the change is one the page's inputs can hold. Nothing here computes: every figure is the core's.
import { el } from './view.js';

/** The state change a remedy of `answer` makes, or null when it is advice only or the page has no control for one
 * of its inputs (micro_batch + grad_accum, attention). */
export const statePatch = (answer, remedy, codec) => (remedy.applicable ? codec.patch(remedy.inputs, answer.mode) : null);

// The input whose value a remedy's label shows ({value}): named, since a JSON object's keys have no order
// to rely on (the core writes them sorted: "attention" before "kv_dtype").
const LABEL_INPUT = {
  'weights-8bit': 'weights', 'weights-4bit': 'weights', 'kv-8bit': 'kv_dtype', 'context-half': 'context',
  'more-gpus': 'gpus', 'tensor-parallel': 'tp', 'gpu-layers': 'gpu_layers', 'optimizer-8bit': 'optimizer', 'mixed-precision': 'precision',
  'wired-limit': 'wired_limit_mb', 'gpu-util-in-use': 'gpu_util',
};

/** The value a remedy's part's label names, or undefined for a label without one. */
export const labelValue = (remedy, part = remedy.id) => remedy.inputs[LABEL_INPUT[part]];

/** A remedy's name: its one change, or its two joined by " + " ("4-bit weights (q4_k_m) + llama.cpp, …"). */
export const remedyName = (remedy, t, f) => (remedy.parts ?? [remedy.id]).map((part) => {
  const value = labelValue(remedy, part);
  return t(`remedies.${part}`, { value: typeof value === 'number' ? f.count(value) : value });
}).join(' + ');

// The badge of a remedy's verdict afterwards: the headline's kind where it says more than the fit's colour.
const verdictText = (r, t) => (r.verdict === 'runs_split' || r.verdict === 'refuses' ? t(`remedies.verdict.${r.verdict}`) : t(`fit.${r.fit}`));

/** The table; its rows carry the remedy's id for the Apply and figure buttons (app.js listens on the table body:
 * CSP allows no inline handlers). The core orders them: what fits the chosen GPU first, the smallest change first,
 * more GPUs last; its summary says what fits, or how far the closest change is from fitting. */
export function renderRemedies(dom, answer, view, codec) {
  const { t, f } = view;
  if (!answer?.ok) {
    dom.remediesSection.hidden = true;
    return;
  }
  // Different cards together are not worked out: the core's note says so in place of "none saves memory".
  const none = answer.remedies.length === 0;
  const unworked = answer.notes?.some((n) => n.id === 'remedy.unlike_cards');
  const intro = unworked ? '' : t(none ? 'remedies.none' : 'remedies.intro');
  dom.remediesIntro.replaceChildren(...(answer.summary
    ? [el('strong', { class: 'remedies-summary', text: t.message(answer.summary, f) }), ' ', intro]
    : [intro]));
  dom.remedies.closest('table').hidden = none;
  dom.remediesNotes.replaceChildren(...t.messages(answer.notes, f).map((n) => el('li', { text: n })));
  dom.remedies.replaceChildren(...answer.remedies.map((r) => {
    const name = remedyName(r, t, f);
    const patch = statePatch(answer, r, codec);
    // Both figures open the core's explanation: the two totals and the change between them.
    const figure = (text) => el('button', { type: 'button', class: 'number', 'data-remedy-explain': '',
      'aria-label': `${text}: ${t('explain.open', { label: name })}` }, text);
    // With part of the model in system RAM (inference), the GPU's part and the rest: together what it takes.
    const inRam = answer.mode === 'inference' && r.host_ram_bytes;
    const after = [figure(f.bytes(r.bytes))];
    if (inRam) after.push(' ', el('small', { class: 'ram', text: t('remedies.ram', { ram: f.bytes(r.host_ram_bytes) }) }));
    if (r.fit) after.push(' ', el('span', { class: `badge badge-${r.fit}`, text: verdictText(r, t) }));
    const cost = [t.message(r.cost, f)];
    if (r.host_ram_bytes && !inRam) cost.push(` (${t('remedies.host', { bytes: f.bytes(r.host_ram_bytes) })})`);
    return el('tr', { class: r.fit ? `fit-${r.fit}` : null, 'data-remedy': r.id },
      el('th', { scope: 'row', text: name }),
      // A Mac's raised wired limit saves nothing: it gives the GPU more of the RAM.
      el('td', { class: 'num', 'data-label': t('remedies.saves') },
        figure(r.usable_bytes ? t('remedies.usable', { bytes: f.bytes(r.usable_bytes - (answer.bytes + answer.free_bytes)) }) : f.bytes(r.saved_bytes))),
      el('td', { class: 'num', 'data-label': t('remedies.after') }, ...after),
      el('td', {}, ...cost, el('br'), el('small', { class: 'secondary', text: t.message(r.source, f) })),
      el('td', {}, patch ? el('button', {
        type: 'button', class: 'apply', 'aria-label': t('remedies.applyLabel', { name }), text: t('remedies.apply'),
      }) : null));
  }));
  dom.remediesSection.hidden = false;
}
