// "What would help": the core's remedies (its "remedies" question) as a table, each with the memory it saves, the
// memory afterwards (and the fit on the chosen GPU), what it costs and where that comes from, and an Apply
// button where the change is one the page's inputs can hold. Nothing here computes: every figure is the core's.
import { el } from './view.js';

// The request keys a remedy changes → the page state's keys ({} for a value the state keeps as is).
const STATE_KEYS = {
  weights: 'weights', kv_dtype: 'kv', context: 'context', batch: 'batch', checkpointing: 'checkpointing',
  flash_attention: 'flash', optimizer: 'optimizer', precision: 'precision', offload: 'offload', zero: 'zero', gpus: 'gpus',
};

/** The state change a remedy makes, or null when the page has no input for one of its keys. */
export function statePatch(remedy) {
  if (!remedy.applicable) return null;
  const patch = {};
  for (const [key, value] of Object.entries(remedy.inputs)) {
    if (key === 'mode') Object.assign(patch, { mode: 'finetune', ft: value });  // lora | qlora: the fine-tune tab
    else if (STATE_KEYS[key]) patch[STATE_KEYS[key]] = value;
    else return null;  // micro_batch + grad_accum, attention: not page inputs
  }
  return patch;
}

// The input whose value a remedy's label shows ({value}): named, since a JSON object's keys have no order
// to rely on (the core writes them sorted: "attention" before "kv_dtype").
const LABEL_INPUT = {
  'weights-8bit': 'weights', 'weights-4bit': 'weights', 'kv-8bit': 'kv_dtype', 'context-half': 'context',
  'more-gpus': 'gpus', 'gpu-layers': 'gpu_layers', 'optimizer-8bit': 'optimizer', 'mixed-precision': 'precision',
};

/** The value a remedy's label names, or undefined for a label without one. */
export const labelValue = (remedy) => remedy.inputs[LABEL_INPUT[remedy.id]];

/** The table; its rows carry the remedy's id for the Apply and figure buttons (app.js listens on the table body:
 * CSP allows no inline handlers). */
export function renderHelp(dom, answer, view) {
  const { t, f } = view;
  if (!answer?.ok) {
    dom.helpSection.hidden = true;
    return;
  }
  dom.helpIntro.textContent = t(answer.remedies.length ? 'help.intro' : 'help.none');
  dom.helpNotes.replaceChildren(...answer.notes.map((n) => el('li', { text: n })));
  dom.help.replaceChildren(...answer.remedies.map((r) => {
    const value = labelValue(r);
    const name = t(`help.${r.id}`, { value: typeof value === 'number' ? f.count(value) : value });
    const patch = statePatch(r);
    // Both figures open the core's explanation: the two totals and the change between them.
    const figure = (text) => el('button', { type: 'button', class: 'number', 'data-remedy-explain': '',
      'aria-label': `${text}: ${t('explain.open', { label: name })}` }, text);
    const after = [figure(f.bytes(r.bytes))];
    if (r.fit) after.push(' ', el('span', { class: `badge badge-${r.fit}`, text: t(`fit.${r.fit}`) }));
    const cost = [r.cost];
    if (r.host_ram_bytes) cost.push(` (${t('help.host', { bytes: f.bytes(r.host_ram_bytes) })})`);
    return el('tr', { class: r.fit ? `fit-${r.fit}` : null, 'data-remedy': r.id },
      el('th', { scope: 'row', text: name }),
      el('td', { class: 'num', 'data-label': t('help.saves') }, figure(f.bytes(r.saved_bytes))),
      el('td', { class: 'num', 'data-label': t('help.after') }, ...after),
      el('td', {}, ...cost, el('br'), el('small', { class: 'secondary', text: r.source })),
      el('td', {}, patch ? el('button', {
        type: 'button', class: 'apply', 'aria-label': t('help.applyLabel', { name }), text: t('help.apply'),
      }) : null));
  }));
  dom.helpSection.hidden = false;
}
