// One model, one update(): inputs change → one call into the core → every output re-rendered.
import './written-answer.js';  // first: it may put the written German answer in place before `dom` below takes it
import { openCalculator } from './core.js';
import { stateCodec, isTraining, coreMode, unknownChoice, ownedCards, gpuFields, MAX_CARDS, MODES } from './state.js';
import { renderSummary, showExplanation, openExplanation } from './render/summary.js';
import { renderGpuTable } from './render/gpu-table.js';
import { fillChoices, fillVersions, showWeightFormat, fillGpuSelect, fillOptions, fillSegmented, fillWeightFormats, setRanges, shownValue } from './render/controls.js';
import { trainingFacts } from './render/training-facts.js';
import { renderSpeed } from './render/speed.js';
import { renderEnginePlan, commandOf } from './render/engine-plan.js';
import { renderGpuRanking } from './render/gpu-ranking.js';
import { renderRemedies, statePatch } from './render/remedies.js';
import { renderCharts, curveQuestion } from './render/charts.js';
import { markdownTable, csvText, download, copyText } from './render/export.js';
import { embedSnippet } from './embed/snippet.js';
import { translator, initialLanguage, rememberLanguage, applyStaticTexts } from './i18n/i18n.js';
import { makeFormat } from './i18n/format.js';
import { openHubRepo, LookupError, repoPage } from './hub.js';
import { inFolder, configName, withQuantConfig, showCheckpointAsk } from './checkpoint.js';
import { showAlsoModels } from './also-models.js';  // showAlso: the other models loaded first

const $ = (id) => document.getElementById(id);
const dom = {
  form: $('inputs'), model: $('model'), modelList: $('model-list'), weights: $('weights'), context: $('context'),
  batch: $('batch'), gpu: $('gpu'), inputError: $('input-error'), resultError: $('result-error'), status: $('status'), summary: $('summary'),
  gpuSection: $('gpu-section'), headline: $('headline'), certaintyReasons: $('certainty-reasons'), totalGb: $('total-gb'), totalRange: $('total-range'), validationLink: $('validation-link'),
  modelFacts: $('model-facts'), bar: $('bar'), breakdown: $('breakdown'), notes: $('notes'), gpus: $('gpus'),
  gpuHead: $('gpu-head'), gpuCount: $('gpu-count'), gpusLegend: $('gpus-legend'), memoryCol: $('memory-col'),
  segment: $('segment'), lang: $('lang'), tabs: $('mode-tabs'), explain: $('explain'),
  actionStatus: $('action-status'), chartsSection: $('charts-section'), chartContext: $('chart-context'),
  chartBatch: $('chart-batch'), embedSection: $('embed-section'), embedCode: $('embed-code'),
  weightsFormat: $('weights-format'), engine: $('engine'), kv: $('kv'), ft: $('ft'), rank: $('rank'),
  gpusCount: $('gpus-count'), version: $('version'), versionControls: $('version-controls'), secondGpu: $('second-gpu'), gpu2: $('gpu2'), gpus2Count: $('gpus2-count'), devices: $('devices'), devicesTitle: $('devices-title'), devicesRows: $('devices-rows'), tokens: $('tokens'), inferenceControls: $('inference-controls'), finetuneControls: $('finetune-controls'),
  trainControls: $('train-controls'), grpoControls: $('grpo-controls'), prompt: $('prompt'), completion: $('completion'),
  gens: $('gens'), beta: $('beta'), contextLabel: $('context-label'), batchLabel: $('batch-label'), batchUnit: $('batch-unit'),
  trainingFacts: $('training-facts'), speed: $('speed'), speedFigures: $('speed-figures'),
  enginePlan: $('engine-plan'), fitPlan: $('fit-plan'), commandLine: $('command-line'), commandText: $('command-text'),
  alsoOnGpu: $('also-on-gpu'), alsoVision: $('also-vision'), images: $('images'), imgsize: $('imgsize'), inuse: $('inuse'),
  draft: $('draft'), draftTokens: $('drafttokens'), acceptance: $('acceptance'),
  commandNote: $('command-note'), wired: $('wired'), wiredControls: $('wired-controls'), wiredUnit: $('wired-unit'), wiredHint: $('wired-hint'),
  customGpu: $('custom-gpu'), gpuLike: $('gpulike'), gpumem: $('gpumem'), gpubw: $('gpubw'), gputflops: $('gputflops'),
  gpufp8: $('gpufp8'), gpufp4: $('gpufp4'), gpuvendor: $('gpuvendor'), gpuunified: $('gpuunified'),
  customGpuOwn: $('custom-gpu-own'),
  rankingSection: $('ranking-section'), ranking: $('ranking'), rankingPicks: $('ranking-picks'),
  rankingCount: $('ranking-count'), rankingNotes: $('ranking-notes'), rankingHead: $('ranking-head'),
  remediesSection: $('remedies-section'), remedies: $('remedies'), remediesIntro: $('remedies-intro'), remediesNotes: $('remedies-notes'),
  answerBar: $('answer-bar'), answerTotal: $('answer-total'), answerHeadline: $('answer-headline'),
  drop: $('drop'), file: $('file'), fileStatus: $('file-status'), fileClear: $('file-clear'),
  pasteText: $('paste-text'), pasteUse: $('paste-use'),
  hub: $('hub'), hubOffer: $('hub-offer'), hubLookup: $('hub-lookup'), hubStatus: $('hub-status'),
  hubQuantControls: $('hub-quant-controls'), hubQuant: $('hub-quant'),
  contextNote: $('context-note'), contextRead: $('context-read'), batchRead: $('batch-read'),
  promptRead: $('prompt-read'), completionRead: $('completion-read'),
};
// Training's names for the inputs the context and batch fields share with inference.
const TRAINING_ALIASES = { sequence: 'context', micro_batch: 'batch' };

const UNIT_KEY = 'vramfit.unit';
const stored = (key) => { try { return localStorage.getItem(key); } catch { return null; } };
const store = (key, value) => { try { localStorage.setItem(key, value); } catch { /* not remembered */ } };

let calculator;
let codec;  // the state's keys and forms, from the core's inputs table
let state;
let report = null; // the last valid report
let detail = null; // the same request on the chosen GPU (speed, cost, training time); null without one
// What the summary shows: the run on the chosen GPU when there is one (vLLM sizes its batch defaults and KV
// capacity by the GPU, so its total can differ from the run over the whole list, which feeds the GPU table).
const shown = () => detail ?? report;
// The GPU table (and CSV) over the whole list, with the chosen GPU's row from its own run, so the row agrees
// with the headline.
function tableReport() {
  const own = detail?.gpus?.length === 1 ? detail.gpus[0] : null;  // different cards: each row is one card's
  return own ? { ...report, gpus: report.gpus.map((g) => (g.id === own.id ? own : g)), verdict: detail.verdict } : report;
}
// A dropped or pasted config.json ({text, name}) stands in for the preset while it is loaded; a dropped .gguf or
// .safetensors ({bytes, size, name}: its header only) or set of shards ({shards: [{name, size, bytes}], index,
// name}) goes to the core's header readers, with the config.json if one was loaded (safetensors needs it for
// the architecture). Both stay in this page: the URL cannot
// carry a file, so a shared link opens the preset named in it.
let config = null;
let modelFile = null;
// What the file box says: the files in use ({name, status()}), or a drop the page could not use ({name, message()}),
// which stands as the error at the file field until another file, a model or "Back to the presets" replaces it
// (status() and message() give the text in the language shown).
let fileNote = null;
let fileProblem = null;
// Display choices: language and unit are remembered in this browser, table order is per visit.
const view = {
  t: null, f: null, segment: 'all', sort: 'verdict', direction: 'ascending', gpu: '', rankingAll: false,
  rankingSort: 'rank', rankingDirection: 'ascending',
};

function setLanguage(lang) {
  view.t = translator(lang);
  dom.lang.value = view.t.lang;
  document.documentElement.lang = view.t.lang;  // screen readers and hyphenation follow it
  setUnit(view.f?.unit ?? (stored(UNIT_KEY) === 'GiB' ? 'GiB' : 'GB'));
  applyStaticTexts(document, view.t);
  document.documentElement.classList.remove('translating');  // set by lang.js before the first paint
}
function setUnit(unit) {
  view.f = makeFormat(view.t.lang === 'de' ? 'de-DE' : 'en-US', unit);
  dom.form.ownerDocument.getElementById(`unit-${view.f.unit}`).checked = true;
}

// The core's rule (find_model): id, name, Hugging Face repo or Ollama tag, letters and digits only, any case.
const searchKey = (text) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const presetFor = (text) => {
  const needle = searchKey(text);
  if (needle === '') return undefined;
  return calculator.catalog.models.find((m) => [m.id, m.name, m.hf_repo, ...m.ollama].some((k) => searchKey(k) === needle));
};
// The core's rule (resolve_model): one of the preset's Ollama tags written as Ollama writes it ("llama3.1:8b", a
// bare library name being its tag latest) names what Ollama runs, and stays the model as typed; its id wins.
const withTag = (name) => (name.includes(':') ? name : `${name}:latest`);
const presetModel = (text, preset) => {
  const typed = text.trim().toLowerCase();
  const tagged = typed !== preset.id.toLowerCase() && preset.ollama.some((tag) => withTag(tag.toLowerCase()) === withTag(typed));
  return tagged ? text.trim() : preset.id;
};

// `beside`: with an error, {field, inputs} — what the core used for the other fields (inputsBeside).
let modelFieldFollows = false;
function writeInputs(current, beside = null) {
  const used = current ?? beside?.inputs;
  const preset = calculator.catalog.models.find((m) => m.id === state.model);
  if (document.activeElement !== dom.model || modelFieldFollows) {
    modelFieldFollows = false;
    const loaded = modelFile ?? config;
    dom.model.value = hub?.name === state.model ? state.model
      : loaded ? current?.model.name || loaded.name : preset ? preset.name : state.model;
  }
  // The checkpoint's own format (a model file's, or a preset's or config's quantization) shows until one is picked.
  const own = state.weights === '' || (modelFile && !modelFile.weightsChosen);
  if (!own || used) {
    const weights = own ? used.inputs.weights : state.weights;
    for (const radio of dom.form.querySelectorAll('input[name="weights"]')) radio.checked = radio.value === weights;
    showWeightFormat(dom.weightsFormat, weights);
  }
  // The typed fields show what was typed, never the value the core used in its place: a field left empty shows
  // that value as its placeholder, and the line beside it says which it was (training calls them sequence and
  // micro_batch). Without an answer the placeholder keeps what it showed rather than blanking out.
  const inputs = current?.inputs;
  const show = (field, own, used) => {
    if (document.activeElement !== field) field.value = String(own);
    if (used !== undefined && used !== null) field.placeholder = String(used);
  };
  show(dom.context, state.context, inputs?.context ?? inputs?.sequence);
  show(dom.batch, state.batch, inputs?.batch ?? inputs?.micro_batch);
  showReadings(current ? inputs : beside?.inputs?.inputs, beside?.field);
  dom.ft.value = state.ft || 'lora';
  for (const control of [dom.kv, dom.rank, dom.gpusCount, dom.prompt, dom.completion, dom.gens, dom.beta,
    ...dom.form.querySelectorAll('select[data-choices]')]) {
    const faulty = beside && codec.input(control.name)?.key === beside.field;
    const value = shownValue(control, state, faulty ? null : used, codec);
    if (document.activeElement !== control && value !== '') control.value = value;
  }
  if (document.activeElement !== dom.tokens) dom.tokens.value = state.tokens;
  showVision(current);
  const training = isTraining(state);
  dom.inferenceControls.hidden = state.mode !== 'inference';
  dom.finetuneControls.hidden = !(training && state.mode === 'finetune');
  const grpo = coreMode(state) === 'grpo';
  dom.grpoControls.hidden = !grpo;
  // GRPO takes prompt + completion instead.
  for (const node of [dom.context, dom.contextLabel.parentElement, dom.contextNote]) node.hidden = grpo;
  dom.trainControls.hidden = !training;
  dom.alsoOnGpu.hidden = training;  // what shares the card is asked of inference only
  setLabel(dom.contextLabel, training ? 'inputs.sequence' : 'inputs.context');
  setLabel(dom.batchLabel, training ? 'inputs.microbatch' : 'inputs.batch');
  setLabel(dom.batchUnit, training ? 'inputs.microbatch.unit' : 'inputs.batch.unit');
  // A GPU named the way people write it ("H100") shows as the card the core read it as (its one row).
  const named = state.gpu && detail?.gpus?.length === 1 ? detail.gpus[0].id : state.gpu;
  // The panel stays open while the person is in it, though its figures do not describe a card yet.
  const described = describesCard(state) || dom.customGpu.contains(document.activeElement);
  dom.gpu.value = described ? 'custom' : state.gpu;
  if (dom.gpu.value !== state.gpu && !described) dom.gpu.value = named;  // '' when that is no option either
  showCustomGpu(described);
  showWiredLimit(named);
  showAlso();
  showSecondGpu();
  showDraft();
  // The engine as the core read it ("vLLM" in a link is vllm) picks the versions offered.
  if (document.activeElement !== dom.version) {
    dom.versionControls.hidden = !fillVersions(dom.version, codec.input('version'), inputs?.engine ?? state.engine,
      state.version, view.t);
  }
  const known = MODES.includes(state.mode);  // an unknown mode (an error) leaves the first tab reachable
  for (const tab of dom.tabs.querySelectorAll('[role="tab"]')) {
    const selected = tab.dataset.mode === state.mode;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected || (!known && tab.dataset.mode === MODES[0]) ? 0 : -1;
  }
}

// Beside each typed count, what the core read from it ("8k" = 8,192 tokens), or, left empty, the value the answer
// used and whose default it is. `inputs`: the report's (null without one); `faulty`: the request field in error,
// which shows no reading.
function showReadings(inputs, faulty) {
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

// Speculative decoding's draft: none, the model's own MTP layers where its files hold them, or a preset. The section
// opens by itself when the state sets one of its fields (a link's).
function showDraft() {
  const mtp = (shown()?.weights?.mtp_layers?.bytes ?? 0) > 0 || state.draft === 'mtp';
  const ids = ['', ...(mtp ? ['mtp'] : []), ...calculator.catalog.models.map((m) => m.id)];
  if (state.draft !== '' && !ids.includes(state.draft)) ids.push(state.draft);
  const text = (id) => (id === '' ? view.t('draft.none') : id === 'mtp' ? view.t('draft.mtp')
    : calculator.catalog.models.find((m) => m.id === id)?.name ?? id);
  const key = ids.map(text).join('\n');
  if (dom.draft.dataset.shown !== key) {
    fillOptions(dom.draft, ids.map((id) => [id, text(id)]));
    dom.draft.dataset.shown = key;
  }
  if (document.activeElement !== dom.draft) dom.draft.value = state.draft;
  for (const field of [dom.draftTokens, dom.acceptance]) {
    if (document.activeElement !== field) field.value = String(state[field.name] ?? '');
  }
  if (state.draft !== '' || state.drafttokens !== '' || state.acceptance !== '') dom.alsoOnGpu.open = true;
}

// A second, different card is llama.cpp's (it splits the layers across unlike cards): its controls show for that
// engine in inference, and whenever one is set, so a link's choice is seen and can be cleared under any engine.
function showSecondGpu() {
  dom.secondGpu.hidden = state.gpu2 === '' && !(state.mode === 'inference' && state.engine === 'llamacpp');
  if (dom.secondGpu.hidden) return;
  dom.gpu2.value = state.gpu2;
  if (document.activeElement !== dom.gpus2Count) dom.gpus2Count.value = state.gpus2;
}

// A machine whose GPU shares the computer's memory (a Mac, a Strix Halo, a DGX Spark or Jetson) behind a GPU id, or
// undefined: only such a GPU has a share to set. A card described by its figures is the answer's, not the catalog's.
const sharesMemory = (g) => g.wired_limit !== undefined || g.shared_memory !== undefined;
const macOf = (id) => calculator.catalog.gpus.find((g) => g.id === id && sharesMemory(g))
  ?? (detail?.gpus?.length === 1 && detail.gpus[0].id === id && sharesMemory(detail.gpus[0]) ? detail.gpus[0] : undefined);

// The field for the GPU's share shows for a machine whose GPU shares the memory, labelled as that machine sets it
// (a Mac's wired limit, a Strix Halo's GTT limit or carve-out, what a DGX Spark or Jetson has free); empty, it shows
// the operating system's default for that machine as its placeholder.
function showWiredLimit(gpuId) {
  const mac = macOf(gpuId);
  dom.wiredControls.hidden = !mac;
  if (!mac) return;
  const kind = mac.shared_memory;  // undefined on a Mac
  setLabel(dom.wiredUnit, kind ? `inputs.wired.unit.${kind}` : 'inputs.wired.unit');
  setLabel(dom.wiredHint, kind ? `inputs.wired.hint.${kind}` : 'inputs.wired.hint');
  dom.wired.placeholder = String(Math.floor(mac.usable_bytes / 2 ** 20));
  if (document.activeElement !== dom.wired) dom.wired.value = state.wired;
}

// "Also on this GPU": its fields show the state's values, and it opens by itself when a link carries one of them.
const ALSO_KEYS = ['inuse', 'also'];
function showAlso() {
  if (document.activeElement !== dom.inuse) dom.inuse.value = String(state.inuse ?? '');
  showAlsoModels(state.also ?? '', calculator.catalog.models, view.t);
  if (ALSO_KEYS.some((k) => state[k] !== undefined && state[k] !== '')) dom.alsoOnGpu.open = true;
}

// A card described by its figures (the core's GPU "custom", or a listed card with other memory): its URL keys.
const CUSTOM_KEYS = ['gpumem', 'gpubw', 'gputflops', 'gpufp8', 'gpufp4', 'gpuvendor', 'gpuunified'];
const describesCard = (s) => s.gpu === 'custom' || CUSTOM_KEYS.some((k) => s[k] !== undefined && s[k] !== '');

// "Other card…": its fields, and the listed card it is like ('' for a card of its own).
function showCustomGpu(described) {
  dom.customGpu.hidden = !described;
  if (!described) return;
  // The answer names the listed card by its id where the link gave another of its names ("4090").
  const like = detail?.gpus?.length === 1 && detail.gpus[0].custom ? detail.gpus[0].custom : state.gpu;
  dom.gpuLike.value = like === 'custom' ? '' : like;
  // The maker and the sharing describe a card of its own; a listed card keeps its own.
  dom.customGpuOwn.hidden = dom.gpuLike.value !== '';
  for (const field of [dom.gpumem, dom.gpubw, dom.gputflops, dom.gpufp8, dom.gpufp4]) {
    if (document.activeElement !== field) field.value = String(state[field.name] ?? '');
  }
  // The maker and the sharing as a link may spell them ("NVIDIA", "on"): shown as the lists offer them.
  if (document.activeElement !== dom.gpuvendor) dom.gpuvendor.value = String(state.gpuvendor ?? '').toLowerCase();
  if (document.activeElement !== dom.gpuunified) {
    dom.gpuunified.value = ['1', 'true', 'yes', 'on'].includes(String(state.gpuunified).toLowerCase()) ? 'yes' : '';
  }
}

function setLabel(node, key) {
  if (node.dataset.i18n === key) return;
  node.dataset.i18n = key;
  node.textContent = view.t(key);
}

const controls = () => dom.form.querySelectorAll('input[id], select, textarea');
// Shown only while an answer is on screen: an input the core cannot use hides every one of them, so no figure
// stays up that no longer matches the inputs.
const answerParts = () => [dom.summary, dom.answerBar, dom.remediesSection, dom.chartsSection, dom.gpuSection,
  dom.rankingSection, dom.embedSection];

// The message goes beside the headline (where the answer would be) and under the field it names, which is
// outlined; focus moves to that field unless the person is typing in a field.
function showError(field, message, { focus = true } = {}) {
  const text = `${view.t(`field.${field}`)}: ${message}`;
  for (const part of answerParts()) part.hidden = true;
  dom.status.hidden = true;
  dom.resultError.textContent = text;
  dom.resultError.hidden = false;
  const name = controlName(field);
  const invalid = [...controls()].filter((input) => input.name === name);
  // aria-invalid="" would read as false: the value must be "true".
  for (const input of controls()) {
    if (invalid.includes(input)) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-errormessage', 'input-error');
    } else {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-errormessage');
    }
  }
  dom.inputError.textContent = text;
  dom.inputError.hidden = false;
  // The model field's message follows the Hub box under it, so the box (and its button) never moves.
  const anchor = invalid[0] === dom.model ? dom.hub : invalid[0]?.closest('fieldset, .drop, details') ?? invalid[0];
  if (anchor) anchor.after(dom.inputError);
  else dom.form.querySelector('.inputs-body').append(dom.inputError);
  const typing = document.activeElement?.matches?.('input[type="text"], input[type="number"], input:not([type]), textarea');
  if (focus && invalid[0] && !typing && !invalid.includes(document.activeElement)) {
    if (invalid[0].closest('details')) invalid[0].closest('details').open = true;
    invalid[0].focus();
    reveal(dom.inputError);
  }
}

// Into view under its field: the wide layout's inputs panel scrolls on its own (the window scrolling instead would
// take the message beside the headline out of view); the narrow layout scrolls the page.
function reveal(node) {
  const panel = dom.form;
  if (panel.scrollHeight <= panel.clientHeight) {
    node.scrollIntoView({ block: 'nearest' });
    return;
  }
  const bottom = Math.min(panel.getBoundingClientRect().bottom, window.innerHeight);
  const below = node.getBoundingClientRect().bottom - bottom;
  if (below > 0) panel.scrollTop += below + 16;
}

function clearError() {
  dom.resultError.hidden = true;
  dom.inputError.hidden = true;
  for (const input of controls()) {
    input.removeAttribute('aria-invalid');
    input.removeAttribute('aria-errormessage');
  }
}

// The controls a request field the core names belong to: its input's URL key, or the page's own (file, ft).
function controlName(field) {
  if (field === 'config') return config?.pasted ? 'paste' : 'model';  // a pasted config marks the text it came from
  return codec.urlKey(TRAINING_ALIASES[field] ?? field) ?? field;
}

function baseRequest() {
  const request = codec.request(state, { config: config?.text ?? null });
  // An hf_quant_config.json dropped beside the config.json is read with it, as the CLI reads a --model folder.
  if (config?.quant) request.quant_config = config.quant;
  if (config?.checkpoint) request.config_name = config.checkpoint;  // its name may say FP8 or NVFP4 (checkpoint.js)
  // A model read from the Hub is shown by its repository's id, as the CLI shows it.
  if (hub?.phase === 'loaded') request.model_name = hub.reading.repo;
  // A model file's own weights count exactly unless a weight format is picked after loading it.
  if (modelFile && !modelFile.weightsChosen) delete request.weights;
  // The share is a shared-memory machine's (its field shows for one only): kept in the state, asked with one chosen.
  // A card described by its figures shares memory when the person says so (or is Apple's), as the core reads it.
  const sharedCard = describesCard(state) && (['1', 'true', 'yes', 'on'].includes(String(state.gpuunified).toLowerCase())
    || String(state.gpuvendor).toLowerCase() === 'apple' || macOf(state.gpu) !== undefined);
  if (!macOf(state.gpu) && !sharedCard) delete request.wired_limit_mb;
  return request;
}

// One answer of the core: about the preset or config.json, or about the loaded model file's header.
function run(request) {
  if (!modelFile) return calculator.answer(request);
  if (modelFile.shards) return calculator.answerShards(modelFile.shards, modelFile.index, request);
  return calculator.answerFile(modelFile.bytes, modelFile.size, modelFile.name, request);
}

// What a change shows first, asked of the core in one call: the estimate (on the chosen GPU when there is one:
// speed, cost, training time) and the same judged on every GPU for the table. The GPU ranking (inference only),
// what would help and the two charts' curves follow in a second call once typing pauses (extras), so the headline
// never waits for them. With different cards the run is over them, and every GPU of the catalog is judged one
// card at a time for the table and the ranking (a list in `gpus` would narrow both to the cards listed).
function askFirst({ request, cards }) {
  if (!cards) return ask(request, { estimate: 'estimate', ...(state.gpu ? { everyGpu: { question: 'estimate', every_gpu: true } } : {}) });
  const asked = ask(request, { estimate: 'estimate' });
  if (!asked.ok || !asked.estimate.ok) return asked.ok ? asked.estimate : asked;
  const table = ask(oneCard(request), { everyGpu: { question: 'estimate', every_gpu: true } });
  return table.ok ? { ...asked, everyGpu: table.everyGpu } : table;
}

// `parts` narrows the questions to 'curves' (what would help and the two curves) or 'ranking'.
function askExtras({ request, cards }, training, parts = ['curves', 'ranking']) {
  const curves = parts.includes('curves') ? { remedies: 'remedies', context: curveQuestion('context'), batch: curveQuestion('batch') } : {};
  const ranking = training || !parts.includes('ranking') ? {} : { ranking: { question: 'gpu_ranking', every_gpu: true } };
  if (!cards) return ask(request, { ...ranking, ...curves });
  const asked = parts.includes('curves') ? ask(request, curves) : { ok: true };
  if (!asked.ok || !ranking.ranking) return asked;
  const ranked = ask(oneCard(request), ranking);
  return ranked.ok ? { ...asked, ranking: ranked.ranking } : ranked;
}

// The request with the chosen card alone in place of the list of different cards.
const oneCard = ({ gpus, ...request }) => ({ ...request, gpu: state.gpu });

// The answers by the names `questions` gives them, or the scenario's error.
function ask(request, questions) {
  const names = Object.keys(questions);
  const result = run({ ...request, questions: names.map((name) => questions[name]) });
  if (!result.ok) return result;
  return { ok: true, ...Object.fromEntries(names.map((name, i) => [name, result.answers[i]])) };
}

// A number field holding text the browser cannot read as a number (400 digits, "16x" pasted) reports '' as its
// value: that is an error naming the field, never the default quietly used in its place. (The context, batch and
// token fields are text: the core reads "8k" there, or names what it takes.)
function unreadableNumber() {
  const input = [...dom.form.querySelectorAll('input[type="number"]')].find((i) => i.validity.badInput && !i.closest('[hidden]'));
  if (!input) return null;
  const key = codec.input(input.name)?.key ?? input.name;
  const field = isTraining(state) ? Object.keys(TRAINING_ALIASES).find((k) => TRAINING_ALIASES[k] === key) ?? key : key;
  return { ok: false, error: { field, message: view.t('error.number') } };
}

let asked = null; // the last answered change's {request, cards}: the ranking, remedies and curves are asked of it
function evaluateState() {
  detail = null;
  if (fileProblem) return { ok: false, error: { field: 'file', message: fileProblem.message() } };
  const named = modelByName();
  if (named) return named;
  const unknown = unknownChoice(state);
  if (unknown) return { ok: false, error: { field: unknown.field, message: view.t('error.choice', unknown) } };
  const unreadable = unreadableNumber();
  if (unreadable) return unreadable;
  const request = baseRequest();
  const cards = ownedCards(state);
  if (cards?.error) return { ok: false, error: { field: cards.error.field, message: view.t(cards.error.key, { max: view.f.count(MAX_CARDS) }) } };
  Object.assign(request, gpuFields(state, cards));
  const first = askFirst({ request, cards });
  // The core's word on the list of cards belongs to the second card's choice, which made it a list.
  if (cards && !first.ok && first.error.field === 'gpus') return { ok: false, error: { ...first.error, field: 'gpu2' } };
  if (!first.ok) return first;
  const everyGpu = first.everyGpu ?? first.estimate;
  if (!everyGpu.ok) return everyGpu;
  asked = { request, cards };
  // A GPU id the catalog lacks gets the core's message (it checks `gpu`); the table keeps every GPU otherwise.
  if (state.gpu) detail = first.estimate;
  return everyGpu;
}

// An error leaves no answer, yet the selects still show a value: what the core uses with the faulty field left
// to its default (that field keeps what was typed, the error beside it).
function inputsBeside(error) {
  const request = baseRequest();
  delete request[error.field];
  // Without a model nothing is estimated: the other fields' defaults are those of a bare parameter count.
  if (error.field === 'model' || error.field === 'config') {
    delete request.model;
    delete request.config;
    request.params = 1e9;
  }
  const result = run({ ...request, questions: ['estimate'] });
  return result.ok ? result.answers[0] : null;
}

function update({ push = false } = {}) {
  const result = evaluateState();
  const failed = result.ok ? null : result.error ?? { field: 'model' };
  showCheckpointAsk($('checkpoint-ask'), result, view.t);
  writeInputs(result.ok ? result : null, failed && { field: failed.field, inputs: inputsBeside(failed) });
  showFileStatus(failed);
  syncUrl(push);
  showHub();
  if (result.lookup) {
    // A Hub repository not read yet (or being read): no answer stands, the status line says what comes.
    report = null;
    clearError();
    for (const part of answerParts()) part.hidden = true;
    dom.status.hidden = false;
    dom.status.textContent = hubProgress() ?? view.t('hub.waiting', { name: state.model });
    return;
  }
  if (!result.ok) {
    showError(result.error.field, view.t.message(result.error.message, result.error.message_i18n, view.f));
    return;
  }
  report = result;
  clearError();
  render();
  dom.status.hidden = true;
  dom.summary.hidden = false;
  if (answerPainted) showDetails();
}

// The page's own keys and the inputs it has a control for; an error about anything else (the config.json, a
// shard, the index) is about the files in use.
const PAGE_KEYS = new Set(['mode', 'ft', 'gpu2', 'gpus2']);
const aboutFiles = (field) => {
  const key = codec.urlKey(TRAINING_ALIASES[field] ?? field);
  return field === 'file' || field === 'model' || (!key && !PAGE_KEYS.has(field));
};

// The file box says which files are in use, or that they are not: the reason stands beside the headline and
// at the field. `failed`: the current error, or null.
function showFileStatus(failed) {
  if (fileProblem) {
    dom.fileStatus.textContent = view.t('file.notUsed', { name: fileProblem.name });
  } else if (fileNote && (config || modelFile) && hub?.phase !== 'loaded') {
    dom.fileStatus.textContent = failed && aboutFiles(failed.field) ? view.t('file.notUsed', { name: fileNote.name }) : fileNote.status();
  }
}

// The first frame carries the answer alone: the GPU table (80 rows), the embed code and the charts follow once
// it is painted, so their layout does not hold the first result back.
let answerPainted = false;
// Everything below the summary appears in that one step, in its final order, so no section pushes another down.
// The work before it takes turns with the browser (a phone stays responsive): the table, the curves and what
// would help, the ranking, then all of them shown.
function afterFirstAnswer() {
  const turn = () => (document.visibilityState === 'visible' ? new Promise((resolve) => setTimeout(resolve)) : Promise.resolve());
  requestAnimationFrame(() => setTimeout(async () => {
    answerPainted = true;
    if (!report) return;
    renderDetails();
    await turn();
    const scenario = asked;
    // An input changed or turned unusable meanwhile: its own update shows what follows from it.
    const current = () => report && dom.resultError.hidden && asked === scenario;
    if (!current()) return;
    const training = isTraining(state);
    const curves = askExtras(scenario, training, ['curves']);
    await turn();
    if (!current()) return;
    const ranked = training || !curves.ok ? null : askExtras(scenario, training, ['ranking']);
    await turn();
    if (!current()) return;
    // As one call would answer: the scenario's error, should either part fail.
    renderExtras(!ranked ? curves : ranked.ok ? { ...curves, ranking: ranked.ranking } : ranked);
    dom.gpuSection.hidden = false;
    dom.embedSection.hidden = false;
  }));
}

function showDetails() {
  dom.gpuSection.hidden = false;
  dom.embedSection.hidden = false;
  scheduleCharts();
}

// A vision model's images, under "Also on this GPU": shown for a model with a vision tower (the answer's `vision`), or
// while the state carries them (so a refused value can be cleared); the section opens by itself when it does.
const VISION_KEYS = ['images', 'imgsize'];
function showVision(current) {
  const asked = VISION_KEYS.some((k) => state[k] !== undefined && state[k] !== '');
  dom.alsoVision.hidden = !(current?.vision || asked);
  if (asked) dom.alsoOnGpu.open = true;
  for (const key of VISION_KEYS) if (document.activeElement !== dom[key]) dom[key].value = String(state[key] ?? '');
  if (current?.vision && current.vision.image_width) dom.imgsize.placeholder = `${current.vision.image_width}x${current.vision.image_height}`;
}

function render() {
  if (!report || !dom.resultError.hidden) return;  // no figure of the last answer beside an error
  // A card described by its figures is the answer's own row ("custom", "rtx-4090-with-48gb"), not the listed card.
  view.gpu = describesCard(state) && detail?.gpus?.length === 1 ? detail.gpus[0].id : state.gpu;
  renderSummary(dom, shown(), view);
  dom.answerTotal.textContent = dom.totalGb.textContent;
  dom.answerHeadline.textContent = dom.headline.textContent;
  dom.answerBar.hidden = false;
  const training = report.mode !== undefined;  // training answers name their mode
  dom.trainingFacts.hidden = !training;
  if (training) dom.trainingFacts.textContent = trainingFacts(shown(), view.t, view.f);
  if (detail) renderSpeed(dom, detail, view.t, view.f);
  else dom.speed.hidden = true;
  renderEnginePlan(dom, shown(), view.t, view.f);
  if (answerPainted) renderDetails();
}

function renderDetails() {
  renderGpuTable(dom, tableReport(), view);
  dom.embedCode.value = embedSnippet(document.querySelector('input[name="embed-kind"]:checked').value, codec, state, report, location.href, view.t);
}

function syncUrl(push) {
  const url = codec.url(state);
  if (url !== location.search && !(url === location.pathname && location.search === '')) {
    history[push ? 'pushState' : 'replaceState'](null, '', url);
  }
}

// The charts, the GPU ranking and what would help, once typing pauses.
let chartTimer = 0;
function scheduleCharts() {
  clearTimeout(chartTimer);
  chartTimer = setTimeout(renderExtras, 60);
}

// `extras`: the answers already asked of the current scenario (start-up asks them in turns).
function renderExtras(extras) {
  clearTimeout(chartTimer);
  if (!report || !dom.resultError.hidden) return;
  const training = isTraining(state);
  extras ??= askExtras(asked, training);
  // The scenario answered a moment ago; should it fail now, each part shows that error in its place.
  const answers = extras.ok ? extras : { remedies: extras, context: extras, batch: extras, ...(training ? {} : { ranking: extras }) };
  charted = answers;
  drawCharts();
  dom.chartsSection.hidden = false;
  // What would help is judged on the chosen GPU when there is one; a training scenario has no GPU ranking.
  ranking = answers.ranking ?? null;
  remedies = answers.remedies;
  renderGpuRanking(dom, ranking, view);
  renderRemedies(dom, remedies, view, codec);
}

let remedies = null;
let ranking = null; // the last ranking, for re-rendering on a unit or language change
let charted = null; // the last curves, redrawn when the results change width

// The charts are drawn at the width of the results, so that their 11 px labels stay 11 px on a phone.
function chartWidth() {
  const box = dom.chartsSection.parentElement;
  const style = getComputedStyle(box);
  return Math.floor(box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight));
}
function drawCharts() {
  view.chartWidth = chartWidth();
  renderCharts({ context: dom.chartContext, batch: dom.chartBatch }, charted, shown(), view);
}
function watchChartWidth() {
  if (!('ResizeObserver' in window)) return;
  new ResizeObserver(() => {
    if (charted && report && dom.resultError.hidden && chartWidth() !== view.chartWidth) drawCharts();
  }).observe(dom.chartsSection.parentElement);
}

function announce(key) {
  dom.actionStatus.textContent = view.t(key);
  setTimeout(() => { dom.actionStatus.textContent = ''; }, 4000);
}

// A header row of sort buttons: a new column sorts ascending, the same one again flips the direction; focus stays
// on the button the table was redrawn under.
function wireSort(head, sortKey, directionKey, redraw) {
  head.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-sort]');
    if (!button) return;
    const key = button.dataset.sort;
    view[directionKey] = view[sortKey] === key && view[directionKey] === 'ascending' ? 'descending' : 'ascending';
    view[sortKey] = key;
    redraw();
    head.querySelector(`button[data-sort="${key}"]`).focus();
  });
}

function wireEvents() {
  dom.form.addEventListener('input', (event) => {
    const target = event.target;
    if (target === dom.model) {
      const preset = presetFor(dom.model.value);
      if (!preset) {
        // Still typing; `change` settles a free-text id. A Hub repository's name brings the offer to look it up.
        const reading = hubReading(dom.model.value);
        const name = reading && hubName(dom.model.value, reading);
        typedHub = reading && name !== hub?.name ? { name } : null;
        showHub();
        return;
      }
      typedHub = null;
      const model = presetModel(dom.model.value, preset);
      if (model === state.model && config === null && modelFile === null) {
        showHub();
        return;
      }
      chooseModel(model);
      return;
    }
    // Every other control is named by its state key; the file and paste controls act on their own.
    const key = target.name;
    if (!(key in state)) return;
    if (key === 'weights' && modelFile) modelFile.weightsChosen = true;
    state = { ...state, [key]: codec.parse(key, target.value.trim()) };
    if (key === 'engine') state.version = '';  // a version is its engine's: another engine starts at its default
    // A card picked from the list is that card: the figures of one described are dropped.
    if (key === 'gpu' && state.gpu !== 'custom') for (const k of CUSTOM_KEYS) if (k in state) state[k] = '';
    // A pick is a history entry; typing replaces the current one.
    update({ push: target.tagName === 'SELECT' || target.type === 'radio' });
  });
  dom.model.addEventListener('change', () => {
    const text = dom.model.value.trim();
    const preset = presetFor(text);
    const reading = preset ? null : hubReading(text);
    const model = preset ? presetModel(text, preset) : reading ? hubName(text, reading) : text;
    typedHub = null;
    if (model === state.model && (hub || (config === null && modelFile === null))) {
      showHub();
      return;
    }
    chooseModel(model);  // '' too: no model is an error at the field, never the last one kept quietly
  });
  // The network is asked for a model only here: the person picked the lookup, or another quantization of it.
  dom.hubLookup.addEventListener('click', () => {
    if (typedHub) chooseModel(typedHub.name);
    lookUp();
  });
  dom.hubQuant.addEventListener('change', () => {
    if (!hub?.plan) return;
    // At another revision than main the link form keeps it: /tree/<rev>/<quant> reads as that quantization.
    const { revision } = hub.reading;
    chooseModel(revision && revision !== 'main'
      ? `https://huggingface.co/${hub.plan.repo}/tree/${encodeURIComponent(revision)}/${dom.hubQuant.value}`
      : `${hub.plan.repo}:${dom.hubQuant.value}`);
    lookUp();
  });
  dom.form.addEventListener('submit', (event) => event.preventDefault());

  dom.tabs.addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (!tab || tab.dataset.mode === state.mode) return;
    state = { ...state, mode: tab.dataset.mode };
    update({ push: true });
  });
  dom.tabs.addEventListener('keydown', (event) => {
    const tabs = [...dom.tabs.querySelectorAll('[role="tab"]')];
    const i = tabs.indexOf(document.activeElement);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined || i < 0) return;
    event.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length];
    tab.focus();
    tab.click();
  });

  window.addEventListener('popstate', () => {
    state = codec.fromUrl(location.search);
    typedHub = null;
    modelFieldFollows = true;  // Back and Forward rewrite the field even while it has the focus
    update();
  });

  dom.lang.addEventListener('change', () => {
    rememberLanguage(dom.lang.value);
    setLanguage(dom.lang.value);
    refill();
    update();
  });
  for (const radio of document.querySelectorAll('input[name="unit"]')) {
    radio.addEventListener('change', () => {
      store(UNIT_KEY, radio.value);
      setUnit(radio.value);
      render();
      showHub();
      scheduleCharts();
    });
  }
  dom.segment.addEventListener('change', () => { view.segment = dom.segment.value; render(); });
  // "Like" a listed card: that card's figures with the memory given; none: a card of its own.
  dom.gpuLike.addEventListener('change', () => {
    state = { ...state, gpu: dom.gpuLike.value || 'custom' };
    update({ push: true });
  });
  dom.remedies.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    const row = button?.closest('tr');
    const remedy = row && remedies?.remedies?.find((r) => r.id === row.dataset.remedy);
    if (!remedy) return;
    if (button.hasAttribute('data-remedy-explain')) {
      openExplanation(dom.explain, view.t('explain.open', { label: row.querySelector('th').textContent }), remedy.explanation, view.t, view.f);
      return;
    }
    const patch = statePatch(remedies, remedy, codec);
    if (!patch) return;
    if (modelFile && 'weights' in patch) modelFile.weightsChosen = true;
    state = { ...state, ...patch };
    update({ push: true });
    $('results-title').focus();  // the button goes with the old table; the new answer is read from the top
  });
  dom.rankingCount.addEventListener('click', (event) => {
    if (!event.target.closest('#ranking-all')) return;
    view.rankingAll = !view.rankingAll;
    renderGpuRanking(dom, ranking, view);
    $('ranking-all').focus();
  });
  wireFiles();
  wireSort(dom.gpuHead, 'sort', 'direction', render);
  wireSort(dom.rankingHead, 'rankingSort', 'rankingDirection', () => renderGpuRanking(dom, ranking, view));
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-explain]');
    if (button && report) showExplanation(dom.explain, shown(), button.dataset.explain, view.t, view.f);
  });
  $('explain-close').addEventListener('click', () => dom.explain.close());

  $('copy-link').addEventListener('click', async () => announce(await copyText(location.href) ? 'actions.copied' : 'actions.copyFailed'));
  $('copy-markdown').addEventListener('click', async () => {
    if (report) announce(await copyText(markdownTable(shown(), view, location.href)) ? 'actions.copied' : 'actions.copyFailed');
  });
  $('download-csv').addEventListener('click', () => {
    if (report) download(`vramfit-${report.model.id || 'model'}.csv`, new Blob([csvText({ ...shown(), gpus: tableReport().gpus }, view)], { type: 'text/csv' }));
  });
  $('copy-command').addEventListener('click', async () => {
    if (report) announce(await copyText(commandOf(shown())) ? 'actions.copied' : 'actions.copyFailed');
  });
  $('copy-embed').addEventListener('click', async () => announce(await copyText(dom.embedCode.value) ? 'actions.copied' : 'actions.copyFailed'));
  for (const radio of document.querySelectorAll('input[name="embed-kind"]')) radio.addEventListener('change', render);
}

// Pickers whose labels depend on the language.
function refill() {
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

// config.json by drop, picker or paste is read as text; a .gguf or .safetensors only by its header: the core
// says how many leading bytes it needs (File.slice), never the tensor data. A sharded checkpoint is several
// .safetensors files, optionally with model.safetensors.index.json and config.json, in one drop or pick:
// each shard starts with its 8-byte header length and grows to the prefix the core asks for.
const MAX_HEADER_BYTES = 256 * 2 ** 20;
const MAX_CONFIG_BYTES = 4_000_000;
const headerTooBig = () => ({ ok: false, error: { field: 'file', message: view.t('file.headerTooBig') } });
const prefixOf = async (file, bytes) => new Uint8Array(await file.slice(0, Math.min(file.size, bytes)).arrayBuffer());
const grows = (answer, have) => answer.need_prefix_bytes <= MAX_HEADER_BYTES && answer.need_prefix_bytes > have;

// The header reads ask with an empty request: a config.json's own problems show through update(), naming it.
async function readHeader(file) {
  let bytes = await prefixOf(file, 65536);
  for (;;) {
    const answer = calculator.answerFile(bytes, file.size, file.name, {});
    if (!answer.ok || !answer.need_prefix_bytes) return { bytes, answer };
    if (!grows(answer, bytes.length)) return { bytes, answer: headerTooBig() };
    bytes = await prefixOf(file, answer.need_prefix_bytes);
  }
}

async function readShards(files, index, progress) {
  const shards = await Promise.all(files.map(async (file) => ({ name: file.name, size: file.size, bytes: await prefixOf(file, 8) })));
  const read = new Set();
  for (;;) {
    const answer = calculator.answerShards(shards, index, {});
    if (!answer.ok || !answer.need_prefix_bytes) return { shards, answer };
    const shard = shards[answer.need_file];
    if (!shard || !grows(answer, shard.bytes.length)) return { shards, answer: headerTooBig() };
    shard.bytes = await prefixOf(files[answer.need_file], answer.need_prefix_bytes);
    read.add(answer.need_file);
    progress(read.size);
  }
}

// "Reading headers… N of M" in the status line once reading takes longer than a moment.
function progressLine(total) {
  let line = view.t('file.reading', { n: view.f.count(0), m: view.f.count(total) });
  let shown = false;
  const timer = setTimeout(() => { shown = true; dom.fileStatus.textContent = line; }, 150);
  return {
    step(n) {
      line = view.t('file.reading', { n: view.f.count(n), m: view.f.count(total) });
      if (shown) dom.fileStatus.textContent = line;
    },
    stop() { clearTimeout(timer); },
  };
}

function forgetFiles() {
  if (hub?.phase === 'loaded') forgetHub();
  config = null;
  modelFile = null;
  fileNote = null;
  fileProblem = null;
  dom.file.value = '';
  dom.fileStatus.textContent = '';
  dom.fileClear.hidden = true;
}

// One drop or pick, sorted by kind: a .gguf, .safetensors shards, the index, a config.json and NVIDIA ModelOpt's
// hf_quant_config.json. Answers them by kind, or {refused: () => the message that refuses the set}.
const kindOf = (name) => (/\.gguf$/i.test(name) ? 'gguf' : /\.safetensors$/i.test(name) ? 'shards'
  : /\.index\.json$/i.test(name) ? 'index' : /(^|[-_])hf_quant_config\.json$/i.test(name) ? 'quant'
    : /\.json$/i.test(name) ? 'config' : null);
function sortFiles(files) {
  const kinds = { gguf: [], shards: [], index: [], config: [], quant: [] };
  for (const file of files) {
    const kind = kindOf(file.name);
    if (!kind) return { refused: () => view.t('file.unknown', { name: file.name }) };
    kinds[kind].push(file);
  }
  const { gguf, shards, index, config: configs, quant } = kinds;
  const several = index.length > 1 || configs.length > 1 || quant.length > 1;
  if (several || (gguf.length && (shards.length || index.length))) return { refused: () => view.t('file.mixed') };
  if (index.length && !shards.length) return { refused: () => view.t('file.indexAlone', { name: index[0].name }) };
  if (quant.length && !configs.length) return { refused: () => view.t('file.quantAlone', { name: quant[0].name }) };
  const tooBig = [...index, ...configs, ...quant].find((f) => f.size > MAX_CONFIG_BYTES);
  if (tooBig) return { refused: () => view.t('file.tooBig', { name: tooBig.name }) };
  // The parts of a split GGUF (…-00001-of-00003.gguf) are read as one model, in the order of their names.
  gguf.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { gguf, shards, index: index[0], config: configs[0], quant: quant[0] };
}

// A dropped folder (a checkpoint as downloaded): the files in it the page reads, the tokenizer and the rest
// passed over. Browsers without folder entries hand over the files alone.
const folderFile = (name) => kindOf(name) && (kindOf(name) !== 'config' || name === 'config.json');
async function droppedFiles(transfer) {
  const entries = [...(transfer?.items ?? [])].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.some((entry) => entry.isDirectory)) return [...(transfer?.files ?? [])];
  const files = [];
  const visit = async (entry, depth) => {
    if (entry.isFile) {
      if (folderFile(entry.name)) files.push(inFolder(await new Promise((ok, fail) => entry.file(ok, fail)), entry));
    } else if (entry.isDirectory && depth < 2) {
      const reader = entry.createReader();
      for (let batch = await new Promise((ok, fail) => reader.readEntries(ok, fail)); batch.length;
        batch = await new Promise((ok, fail) => reader.readEntries(ok, fail))) {
        for (const child of batch) await visit(child, depth + 1);
      }
    }
  };
  for (const entry of entries) await visit(entry, 0);
  return files;
}

// A newer drop, paste or lookup supersedes a drop still reading (drops); a lookup still reading gives way only to
// a newer lookup or to files that were read (takes): a refused drop leaves it running.
let drops = 0;
let takes = 0;
async function takeFiles(list) {
  const files = [...(list ?? [])];
  if (files.length === 0) return;
  const turn = ++drops;
  // A lone hf_quant_config.json joins a config.json dropped or picked alone before it (checkpoint.js).
  const completed = await withQuantConfig(files, hub?.phase === 'loaded' || modelFile ? null : config, MAX_CONFIG_BYTES);
  const read = completed ? { ok: true, config: completed, status: () => view.t('file.loaded', { name: `${completed.name} + ${completed.quantName}` }) }
    : await readFiles(files, (total) => progressLine(total));
  if (turn !== drops) return;
  ++takes;
  forgetHub();  // the files stand in for a repository looked up before
  // Read or refused, the new files replace the last ones: neither their answer nor their error stays.
  const name = files.length > 3 ? `${files.slice(0, 3).map((f) => f.name).join(', ')}, …` : files.map((f) => f.name).join(', ');
  if (read.ok) {
    useRead(read);
    fileProblem = null;
    fileNote = { name, status: read.status };
  } else {
    config = null;
    modelFile = null;
    fileProblem = { name, message: read.refused ?? read.failed };
    fileNote = null;
  }
  dom.fileClear.hidden = false;
  update();
}

// One set of files, dropped, picked or a Hub repository's, read as the page reads a drop: {ok: true, config,
// loaded, status}, or {refused} (a set the page does not read) or {failed} (the core's word on a header); status,
// refused and failed are functions giving the text in the language shown.
// `progress(total)` gives the reading's progress line ({step(n), stop()}).
async function readFiles(files, progress) {
  const sorted = sortFiles(files);
  if (sorted.refused) return { refused: sorted.refused };
  const parts = sorted.gguf.length > 0 ? sorted.gguf : sorted.shards;
  const single = parts.length === 1 && !sorted.index ? parts[0] : null;
  const several = !single && parts.length > 0;
  const newConfig = sorted.config ? { text: await sorted.config.text(), name: sorted.config.name, checkpoint: configName(sorted.config) } : null;
  if (newConfig && sorted.quant) Object.assign(newConfig, { quant: await sorted.quant.text(), quantName: sorted.quant.name });
  const extras = [sorted.index, sorted.config, sorted.quant].filter(Boolean).map((f) => ` + ${f.name}`).join('');
  let loaded = null;
  let status;
  if (single || several) {
    const line = progress(parts.length);
    const index = sorted.index ? await sorted.index.text() : '';
    let read;
    try {
      read = single ? await readHeader(single) : await readShards(parts, index, line.step);
    } finally {
      line.stop();
    }
    if (!read.answer.ok) {
      // A set's error field names the part or the index entry at fault.
      const { field, message, message_i18n: i18n } = read.answer.error;
      return { failed: () => `${single ? single.name : field}: ${view.t.message(message, i18n, view.f)}` };
    }
    if (single) {
      loaded = { bytes: read.bytes, size: single.size, name: single.name };
      status = () => view.t('file.header', { name: single.name + extras, bytes: view.f.count(read.bytes.length) });
    } else {
      const bytes = read.shards.reduce((sum, shard) => sum + shard.bytes.length, 0);
      loaded = { shards: read.shards, index, name: parts[0].name };
      status = () => view.t(sorted.gguf.length ? 'file.parts' : 'file.shards', { count: view.f.count(parts.length), extras, bytes: view.f.count(bytes) });
    }
  } else {
    status = () => view.t('file.loaded', { name: newConfig.quant ? `${newConfig.name} + ${newConfig.quantName}` : newConfig.name });
  }
  return { ok: true, config: newConfig, loaded, status };
}

// A model file keeps a config.json loaded before it (safetensors takes its architecture from there);
// a config.json alone replaces whatever was loaded.
function useRead(read, { replace = false } = {}) {
  if (read.config || replace) config = read.config;
  modelFile = read.loaded ? { ...read.loaded, weightsChosen: false } : null;
}

// ---- A model on the Hugging Face Hub, looked up only when the person asks ----
// hub: the repository the model field names, {name, reading (read_model_name's), phase: 'offer' | 'reading' |
// 'failed' | 'loaded', progress: [done, total], error, plan, readAt, controller}; null for a preset or a file.
// Reading it fills `config` and `modelFile` as a drop does; the URL keeps the name, never anything read.
let hub = null;
let typedHub = null;  // a Hub name being typed (not yet the state's): the offer shows for it

const isPresetId = (id) => calculator.catalog.models.some((m) => m.id === id);

// The name as the model key keeps it: owner/name[:QUANT]; a link naming a file or a revision stays as given.
const hubName = (text, reading) => ((reading.file || (reading.revision && reading.revision !== 'main'))
  ? text.trim() : reading.repo + (reading.quant ? `:${reading.quant}` : ''));

/** A typed text that names a Hub repository: read_model_name's reading, else null. */
function hubReading(text) {
  const name = String(text ?? '').trim();
  if (name === '' || presetFor(name)) return null;
  const reading = calculator.readModelName(name);
  return reading.ok && reading.kind === 'hub' ? reading : null;
}

// The state's model when it is no preset: a Hub repository waits for its lookup ({lookup: true}) or stands in
// its error; an Ollama name is refused with a way to go on. null when the core answers as usual.
function modelByName() {
  if (hub && hub.name !== state.model) forgetHub();
  if (hub?.phase === 'loaded' || config || modelFile || isPresetId(state.model)) return null;
  const name = String(state.model);
  if (name.trim() === '') return { ok: false, error: { field: 'model', message: view.t('error.modelEmpty') } };
  const reading = calculator.readModelName(name);
  if (reading?.ok && reading.kind === 'hub') {
    hub ??= { name: state.model, reading, phase: 'offer' };
    if (hub.phase === 'failed') return { ok: false, error: hub.error };
    return { ok: false, lookup: true };
  }
  if (reading?.ok && reading.kind === 'ollama') {
    const message = `${view.t.message(reading.preset_error, reading.preset_error_i18n, view.f)}. ${view.t('hub.ollama', { name })}`;
    return { ok: false, error: { field: 'model', message } };
  }
  return null;
}

function forgetHub() {
  hub?.controller?.abort();
  if (hub?.phase === 'loaded') {
    config = null;
    modelFile = null;
  }
  hub = null;
}

function hubProgress() {
  if (hub?.phase !== 'reading') return null;
  const [done, total] = hub.progress ?? [0, 0];
  return total === 0 ? view.t('hub.asking', { name: hub.reading.repo })
    : view.t('hub.reading', { repo: hub.reading.repo, n: view.f.count(done), m: view.f.count(total) });
}

// The box under the model field: the offer to look the name up, the reading's progress, or what was read.
function showHub() {
  const shown = typedHub ?? hub;
  dom.hub.hidden = !shown;
  if (!shown) return;
  const phase = typedHub ? 'offer' : hub.phase;
  const offer = phase === 'offer' || phase === 'failed';
  dom.hubOffer.hidden = !offer;
  dom.hubLookup.hidden = !offer;
  if (offer) dom.hubOffer.textContent = view.t('hub.offer', { name: shown.name });
  dom.hubQuantControls.hidden = true;
  if (phase === 'reading') {
    dom.hubStatus.textContent = hubProgress();
  } else if (phase === 'loaded') {
    const { plan } = hub;
    const link = document.createElement('a');
    link.href = repoPage(plan.repo);
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    link.textContent = view.t('hub.open', { repo: plan.repo });
    const copy = hub.readAt ? ` ${view.t('hub.copy', { date: hub.readAt.toLocaleString(view.t.lang === 'de' ? 'de-DE' : 'en-US', { dateStyle: 'medium', timeStyle: 'short' }) })}` : '';
    dom.hubStatus.replaceChildren(`${view.t.message(plan.summary, plan.summary_i18n, view.f)}${copy} `, link);
    const choices = plan.gguf?.choices ?? [];
    if (choices.length > 0) {
      dom.hubQuant.replaceChildren(...choices.map((c) => {
        const option = document.createElement('option');
        option.value = c.quant;
        option.textContent = view.t(c.files > 1 ? 'hub.choiceParts' : 'hub.choice', { quant: c.quant, size: view.f.bytes(c.size), files: view.f.count(c.files) });
        option.selected = c.quant === plan.gguf.quant;
        return option;
      }));
      dom.hubQuantControls.hidden = false;
    }
  } else {
    dom.hubStatus.textContent = '';
  }
}

// Reads the Hub repository the state's model names: the only place the page goes to the network for a model.
async function lookUp() {
  if (!hub) return;
  const turn = ++takes;
  ++drops;
  hub.controller?.abort();
  const controller = new AbortController();
  const current = Object.assign(hub, { phase: 'reading', progress: [0, 0], controller, error: null, plan: null, readAt: null });
  const alive = () => turn === takes && hub === current && !controller.signal.aborted;
  // A drop's files give way to the repository.
  config = null;
  modelFile = null;
  fileNote = null;
  fileProblem = null;
  dom.file.value = '';
  dom.fileStatus.textContent = '';
  dom.fileClear.hidden = true;
  update();
  const fail = (error) => {
    if (!alive()) return;
    Object.assign(current, { phase: 'failed', error, controller: null });
    update();
  };
  try {
    const opened = await openHubRepo(calculator, current.name, current.reading, {
      signal: controller.signal,
      onProgress(done, total) {
        if (!alive()) return;
        current.progress = [done, total];
        dom.hubStatus.textContent = hubProgress();
        if (!dom.status.hidden) dom.status.textContent = hubProgress();
      },
    });
    if (!alive()) return;
    if (!opened.plan.ok) {
      fail(opened.plan.error);
      return;
    }
    current.plan = opened.plan;
    const read = await readFiles(opened.files, () => ({ step() {}, stop() {} }));
    if (!alive()) return;
    if (!read.ok) {
      fail({ field: 'model', message: (read.refused ?? read.failed)() });
      return;
    }
    useRead(read, { replace: true });
    Object.assign(current, { phase: 'loaded', readAt: opened.session.readAt, controller: null });
    update();
  } catch (error) {
    if (error?.name === 'AbortError' || !alive()) return;
    if (!(error instanceof LookupError)) {
      fail({ field: 'model', message: String(error?.message ?? error) });
      return;
    }
    const failure = { service: 'hub', name: current.reading.repo, token: false, gated: Boolean(current.plan?.gated), ...error.failure };
    fail(calculator.lookupFailure(failure).error);
  }
}

// The model field names another model: a preset, a Hub repository (offered, not yet read) or anything else.
function chooseModel(model) {
  forgetFiles();
  forgetHub();
  typedHub = null;
  state = { ...state, model };
  update({ push: true });
}

function usePasted() {
  const text = dom.pasteText.value.trim();
  if (text === '') {
    dom.fileStatus.textContent = view.t('paste.empty');
    return;
  }
  if (text.length > MAX_CONFIG_BYTES) {
    dom.fileStatus.textContent = view.t('file.tooBig', { name: 'config.json' });
    return;
  }
  ++takes;
  ++drops;
  forgetHub();
  config = { text, name: 'config.json', pasted: true };
  modelFile = null;
  fileNote = { name: 'config.json', status: () => view.t('file.pasted') };
  fileProblem = null;
  dom.file.value = '';
  dom.fileStatus.textContent = view.t('file.pasted');
  dom.fileClear.hidden = false;
  update();
}

// The answer bar (narrow screens) steps aside while the results themselves are on screen.
function watchResults() {
  if (!('IntersectionObserver' in window)) return;
  new IntersectionObserver(([entry]) => dom.answerBar.classList.toggle('away', entry.isIntersecting))
    .observe(dom.summary.closest('section'));
}

function wireFiles() {
  dom.file.addEventListener('change', () => takeFiles(dom.file.files));
  for (const type of ['dragenter', 'dragover']) {
    dom.drop.addEventListener(type, (event) => { event.preventDefault(); dom.drop.classList.add('over'); });
  }
  dom.drop.addEventListener('dragleave', () => dom.drop.classList.remove('over'));
  dom.drop.addEventListener('drop', (event) => {
    event.preventDefault();
    dom.drop.classList.remove('over');
    droppedFiles(event.dataTransfer).then(takeFiles, () => takeFiles(event.dataTransfer?.files));
  });
  dom.pasteUse.addEventListener('click', usePasted);
  dom.fileClear.addEventListener('click', () => {
    ++takes;
    ++drops;
    forgetFiles();
    update();
  });
}

// dist/index.html may hold the plain URL's answer (scripts/prerender.mjs); from here on the page answers itself,
// in the same task, so nothing is painted in between.
function forgetPrerendered() {
  for (const node of document.querySelectorAll('[data-prerendered]')) node.removeAttribute('data-prerendered');
}

// The first paint as the browser reports it: its time is when the frame reached the screen, which on a busy
// machine comes frames after the page's own turn. A tab hidden meanwhile paints nothing, and a browser without
// paint timing is given one frame; the timer only keeps a page whose paint is never reported from waiting forever.
const painted = () => new Promise((resolve) => {
  const afterFrame = () => requestAnimationFrame(() => setTimeout(resolve));
  if (!globalThis.PerformanceObserver?.supportedEntryTypes?.includes('paint')) { afterFrame(); return; }
  const done = () => { observer.disconnect(); document.removeEventListener('visibilitychange', done); resolve(); };
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => e.name === 'first-contentful-paint')) done();
  });
  observer.observe({ type: 'paint', buffered: true });
  document.addEventListener('visibilitychange', done);
  setTimeout(done, 1000);
});
// Between the long steps of starting up, a page already showing its answer gives the browser a turn (a phone
// stays responsive); a page still waiting for its answer goes straight on.
let pause = async () => {};

async function main() {
  // With the plain URL's answer written into the page (and on screen), the .wasm and the work it brings wait for
  // that first paint: a slow connection spends its first bytes and time on showing the answer. A German reader's
  // page is hidden until its texts are German (lang.js): they, and the German answer, come first.
  // A tab opened in the background paints nothing (and its timers crawl): it loads at once, without the turns.
  if (document.querySelector('[data-prerendered]') && !document.documentElement.classList.contains('other-answer')
      && document.visibilityState === 'visible') {
    setLanguage(initialLanguage());
    await painted();
    pause = () => (document.visibilityState === 'visible' ? new Promise((resolve) => setTimeout(resolve)) : Promise.resolve());
  }
  // Compiling the .wasm runs off the main thread: start it before the locale formatters are built.
  const opening = openCalculator({ pause });
  if (!view.t) setLanguage(initialLanguage());
  try {
    calculator = await opening;
  } catch (error) {
    forgetPrerendered();
    dom.summary.hidden = true;
    dom.answerBar.hidden = true;
    dom.status.hidden = false;
    dom.status.textContent = view.t('status.failed', { message: error.message });
    document.documentElement.classList.add('ready');
    return;
  }
  codec = stateCodec(calculator.catalog);
  state = codec.fromUrl(location.search);
  view.gpu = state.gpu;
  setRanges(dom.form, codec);
  await pause();
  refill();
  wireEvents();
  watchResults();
  watchChartWidth();
  await pause();
  // The inputs show once they hold the catalogue's choices and the first answer's values (they were laid out
  // but invisible until now, so filling them moves nothing on screen); visible before update(), which may move
  // focus to a field in error. Nothing is painted in between.
  document.documentElement.classList.add('ready');
  forgetPrerendered();
  update();
  afterFirstAnswer();
  performance.mark('vramfit:first-result');
  if ('serviceWorker' in navigator && location.protocol.startsWith('http')) {
    navigator.serviceWorker.register('sw.js').catch(() => { /* offline use is a bonus, not a requirement */ });
  }
}

main();
