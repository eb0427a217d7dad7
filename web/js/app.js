// One model, one update(): inputs change → one call into the core → every output re-rendered.
import { openCalculator } from './core.js';
import { renderReport, fillSelect, fillSegmented } from './render.js';
import { DEFAULTS, stateFromUrl, urlFromState, requestFromState } from './state.js';

const $ = (id) => document.getElementById(id);
const dom = {
  form: $('inputs'), model: $('model'), weights: $('weights'), context: $('context'), batch: $('batch'),
  inputError: $('input-error'), status: $('status'), summary: $('summary'), gpuSection: $('gpu-section'),
  totalGb: $('total-gb'), totalGib: $('total-gib'), modelFacts: $('model-facts'), bar: $('bar'),
  breakdown: $('breakdown'), notes: $('notes'), gpus: $('gpus'), headroom: $('headroom'),
};

let calculator;
let state = stateFromUrl(location.search);

function readInputs() {
  const number = (input) => (input.value.trim() === '' ? input.value : /^\d+$/.test(input.value) ? Number(input.value) : input.value);
  return {
    model: dom.model.value,
    weights: dom.form.elements.weights.value,
    context: number(dom.context),
    batch: number(dom.batch),
  };
}

function writeInputs(report) {
  dom.model.value = state.model;
  dom.form.elements.weights.value = state.weights;
  if (document.activeElement !== dom.context) dom.context.value = report ? report.inputs.context : state.context ?? '';
  if (document.activeElement !== dom.batch) dom.batch.value = state.batch;
}

const FIELD_LABELS = { model: 'Model', weights: 'Weight precision', context: 'Context length', batch: 'Batch size' };

function update({ push = false } = {}) {
  const report = calculator.evaluate(requestFromState(state));
  if (!report.ok) {
    const { field, message } = report.error;
    dom.inputError.textContent = `${FIELD_LABELS[field] ?? field}: ${message}`;
    dom.inputError.hidden = false;
    for (const input of [dom.context, dom.batch, dom.model]) input.toggleAttribute('aria-invalid', input.name === field);
    dom.summary.classList.add('stale');
    dom.status.textContent = 'The results below are for the last valid input.';
    if (dom.summary.hidden) dom.status.textContent = 'Correct the input to see the memory estimate.';
    dom.status.hidden = false;
    return;
  }
  dom.inputError.hidden = true;
  for (const input of [dom.context, dom.batch, dom.model]) input.removeAttribute('aria-invalid');
  dom.summary.classList.remove('stale');
  writeInputs(report);
  renderReport(dom, report);
  dom.status.hidden = true;
  dom.summary.hidden = false;
  dom.gpuSection.hidden = false;
  const url = urlFromState(state);
  if (url !== location.search && !(url === location.pathname && location.search === '')) {
    history[push ? 'pushState' : 'replaceState'](null, '', url);
  }
}

async function main() {
  try {
    calculator = await openCalculator();
  } catch (error) {
    dom.status.textContent = `The calculator could not start: ${error.message}`;
    return;
  }
  const { models, dtypes } = calculator.catalog;
  fillSelect(dom.model, models.map((m) => ({ value: m.id, label: m.name })), state.model);
  fillSegmented(dom.weights, 'weights', dtypes.map((d) => ({ value: d.name, label: d.name, title: d.summary })), state.weights);
  if (!models.some((m) => m.id === state.model)) {
    // Unknown model from a link: show the core's message, keep the picker on a real model.
    dom.model.value = DEFAULTS.model;
  }
  writeInputs(null);

  dom.form.addEventListener('input', (event) => {
    const next = readInputs();
    // Changing the model resets the context to that model's usual one.
    if (event.target === dom.model) next.context = null;
    state = next;
    update({ push: event.target === dom.model || event.target.name === 'weights' });
  });
  window.addEventListener('popstate', () => {
    state = stateFromUrl(location.search);
    writeInputs(null);
    update();
  });
  update();
}

main();
