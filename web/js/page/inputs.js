// The inputs as the state sets them: each control shows what was asked (or, left empty, what the core used in its
// place), the controls of the mode and engine show, and the pickers hold the catalogue's choices.
import { dom } from './dom.js';
import { page, view, TRAINING_ALIASES } from './store.js';
import { isTraining, coreMode, MODES } from '../state.js';
import { fillChoices, fillVersions, showWeightFormat, fillGpuSelect, fillOptions, fillSegmented, fillWeightFormats, shownValue } from '../render/controls.js';
import { presetById } from './model-name.js';
import { setLabel } from './language.js';
import { showAlso } from './also.js';
import { describesCard, writeGpuControls } from './gpu-controls.js';

/** `current`: the answer, or null; `beside`: with an error, {field, inputs} — what the core used for the other
 * fields (inputsBeside). */
export function writeInputs(current, beside = null) {
  const used = current ?? beside?.inputs;
  writeModel(current);
  writeWeights(used);
  writeCounts(current, beside);
  writeChoices(used, beside);
  showAlso(current);
  writeModeControls();
  writeGpuControls();
  // The engine as the core read it ("vLLM" in a link is vllm) picks the versions offered.
  if (document.activeElement !== dom.version) {
    dom.versionControls.hidden = !fillVersions(dom.version, page.codec.input('version'),
      current?.inputs?.engine ?? page.state.engine, page.state.version, view.t);
  }
  writeTabs();
}

function writeModel(current) {
  const { state, hub } = page;
  if (document.activeElement === dom.model && !page.modelFieldFollows) return;
  page.modelFieldFollows = false;
  const loaded = page.modelFile ?? page.config;
  const preset = presetById(state.model);
  dom.model.value = hub?.name === state.model ? state.model
    : loaded ? current?.model.name || loaded.name : preset ? preset.name : state.model;
}

// The checkpoint's own format (a model file's, or a preset's or config's quantization) shows until one is picked.
function writeWeights(used) {
  const { state, modelFile } = page;
  const own = state.weights === '' || (modelFile && !modelFile.weightsChosen);
  if (own && !used) return;
  const weights = own ? used.inputs.weights : state.weights;
  for (const radio of dom.form.querySelectorAll('input[name="weights"]')) radio.checked = radio.value === weights;
  showWeightFormat(dom.weightsFormat, weights);
}

// The typed fields show what was typed, never the value the core used in its place: a field left empty shows
// that value as its placeholder, and the line beside it says which it was (training calls them sequence and
// micro_batch). Without an answer the placeholder keeps what it showed rather than blanking out.
function writeCounts(current, beside) {
  const { state } = page;
  const inputs = current?.inputs;
  const show = (field, own, used) => {
    if (document.activeElement !== field) field.value = String(own);
    if (used !== undefined && used !== null) field.placeholder = String(used);
  };
  show(dom.context, state.context, inputs?.context ?? inputs?.sequence);
  show(dom.batch, state.batch, inputs?.batch ?? inputs?.micro_batch);
  showReadings(current ? inputs : beside?.inputs?.inputs, beside?.field);
  if (document.activeElement !== dom.tokens) dom.tokens.value = state.tokens;
}

// The selects and number fields keyed by the state: a field in error shows what was given, not the core's value.
function writeChoices(used, beside) {
  const { state, codec } = page;
  dom.ft.value = state.ft || 'lora';
  for (const control of [dom.kv, dom.rank, dom.gpusCount, dom.prompt, dom.completion, dom.gens, dom.beta,
    ...dom.form.querySelectorAll('select[data-choices]')]) {
    const faulty = beside && codec.input(control.name)?.key === beside.field;
    const value = shownValue(control, state, faulty ? null : used, codec);
    if (document.activeElement !== control && value !== '') control.value = value;
  }
}

// The controls of the mode shown: inference's, fine-tuning's, GRPO's, and the labels training words its own way.
function writeModeControls() {
  const { state } = page;
  const training = isTraining(state);
  dom.inferenceControls.hidden = state.mode !== 'inference';
  dom.finetuneControls.hidden = !(training && state.mode === 'finetune');
  const grpo = coreMode(state) === 'grpo';
  dom.grpoControls.hidden = !grpo;
  // GRPO takes prompt + completion instead.
  for (const node of [dom.context, dom.contextLabel.parentElement, dom.contextNote]) node.hidden = grpo;
  dom.trainControls.hidden = !training;
  setLabel(dom.contextLabel, training ? 'inputs.sequence' : 'inputs.context');
  setLabel(dom.batchLabel, training ? 'inputs.microbatch' : 'inputs.batch');
  setLabel(dom.batchUnit, training ? 'inputs.microbatch.unit' : 'inputs.batch.unit');
}

function writeTabs() {
  const known = MODES.includes(page.state.mode);  // an unknown mode (an error) leaves the first tab reachable
  for (const tab of dom.tabs.querySelectorAll('[role="tab"]')) {
    const selected = tab.dataset.mode === page.state.mode;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected || (!known && tab.dataset.mode === MODES[0]) ? 0 : -1;
  }
}

// Beside each typed count, what the core read from it ("8k" = 8,192 tokens), or, left empty, the value the answer
// used and whose default it is. `inputs`: the report's (null without one); `faulty`: the request field in error,
// which shows no reading.
function showReadings(inputs, faulty) {
  const { state } = page;
  const training = isTraining(state);
  const amount = (n, unit) => view.t(n === 1 ? `amount.${unit}.one` : `amount.${unit}`, { n: view.f.count(n) });
  const fields = [
    { field: dom.context, node: dom.contextRead, key: training ? 'sequence' : 'context', unit: 'tokens', always: true },
    { field: dom.batch, node: dom.batchRead, key: training ? 'micro_batch' : 'batch', unit: 'sequences' },
    { field: dom.prompt, node: dom.promptRead, key: 'prompt_tokens', unit: 'tokens', always: true },
    { field: dom.completion, node: dom.completionRead, key: 'completion_tokens', unit: 'tokens', always: true },
  ];
  for (const { field, node, key, unit, always } of fields) {
    const own = String(state[field.name]).trim();
    const read = inputs?.[key];
    const aside = (faulty && (faulty === key || faulty === TRAINING_ALIASES[key])) || !Number.isSafeInteger(read);
    // A plain count typed as digits says nothing new beside itself, except the context (its thousands grouped).
    if (aside || (!always && own === String(read))) {
      node.textContent = '';
      continue;
    }
    if (own !== '') {
      node.textContent = view.t('read.given', { amount: amount(read, unit) });
      continue;
    }
    // Whose default: the engine's, the model's maximum (vLLM, SGLang), or the model's usual context.
    const source = key === 'context' ? inputs.context_source : '';
    const why = source === 'engine_default' || source === 'model_max' ? `read.${source}` : 'read.default';
    const engine = source ? view.t(`engine.${inputs.engine}`) : '';
    node.textContent = view.t(why, { amount: amount(read, unit), engine });
  }
}

// Pickers whose labels depend on the language.
export function refill() {
  const { calculator, codec, state } = page;
  const { models, dtypes, gpus } = calculator.catalog;
  dom.modelList.replaceChildren(...models.map((m) => {
    const option = document.createElement('option');
    option.value = m.name;
    // The type-ahead matches what is typed against the label too: repo and tags find the preset.
    option.textContent = [m.id, m.hf_repo, ...m.ollama].filter(Boolean).join(' · ');
    return option;
  }));
  fillSegmented(dom.weights, 'weights', dtypes.map((d) => ({ value: d.name, label: d.name, title: d.summary })), state.weights);
  fillWeightFormats(dom.weightsFormat, calculator.catalog.weight_formats, state.weights, view.t);
  // KV cache precisions by name, each with the core's summary as its title.
  fillOptions(dom.kv, calculator.catalog.kv_dtypes.map((k) => [k.name, k.name, k.summary]));
  fillChoices(dom.form, codec, view.t);
  fillGpuSelect(dom.gpu, gpus, describesCard(state) ? 'custom' : state.gpu, view.t, 'inputs.gpu.auto', true);
  fillGpuSelect(dom.gpuLike, gpus, state.gpu === 'custom' ? '' : state.gpu, view.t, 'inputs.gpulike.none');
  fillGpuSelect(dom.gpu2, gpus, state.gpu2, view.t, 'inputs.gpu2.none');
}
