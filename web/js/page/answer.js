// The one answer flow: the state → one call into the core → every output re-rendered (update). The extras below
// the answer (the GPU ranking, what would help, the charts) follow through page/extras.js's scheduler.
import { $, dom } from './dom.js';
import { page, view, shown, tableReport, answerStands, TRAINING_ALIASES } from './store.js';
import { isTraining, unknownChoice, ownedCards, gpuFields, MAX_CARDS } from '../state.js';
import { renderSummary } from '../render/summary.js';
import { renderGpuTable } from '../render/gpu-table.js';
import { trainingFacts } from '../render/training-facts.js';
import { renderSpeed } from '../render/speed.js';
import { renderEnginePlan } from '../render/engine-plan.js';
import { embedSnippet } from '../embed/snippet.js';
import { showCheckpointAsk } from '../checkpoint.js';
import { writeInputs } from './inputs.js';
import { showError, clearError, answerParts } from './errors.js';
import { showFileStatus } from './file-box.js';
import { modelByName, showHub, hubProgress } from './hub-box.js';
import { draftByName, draftRead, linkState } from './draft-hub.js';
import { alsoByName, alsoRead, alsoLinkState } from './also-models.js';
import { asksShare, shownGpu } from './gpu-controls.js';
import { scheduleExtras } from './extras.js';

function baseRequest() {
  const { state, config, modelFile, hub } = page;
  const request = page.codec.request(state, { config: config?.text ?? null });
  // An hf_quant_config.json dropped beside the config.json is read with it, as the CLI reads a --model folder.
  if (config?.quant) request.quant_config = config.quant;
  if (config?.checkpoint) request.config_name = config.checkpoint;  // its name may say FP8 or NVFP4 (checkpoint.js)
  // A model read from the Hub is shown by its repository's id, as the CLI shows it.
  if (hub?.phase === 'loaded') Object.assign(request, { model_name: hub.reading.repo, model_repo: hub.reading.repo });
  // The revision read and, where -hf's tag would take another, the file: llama-server's command fetches the same one.
  if (hub?.phase === 'loaded' && hub.plan?.revision) request.model_revision = hub.plan.revision;
  if (hub?.phase === 'loaded' && hub.plan?.gguf?.hf_file) request.model_hf_file = hub.plan.gguf.hf_file;
  // A model file's own weights count exactly unless a weight format is picked after loading it.
  if (modelFile && !modelFile.weightsChosen) delete request.weights;
  if (!asksShare(state)) delete request.wired_limit_mb;
  // A draft and other models read from the Hub: their config.json and headers, as the core takes them.
  const read = draftRead();
  if (read) request.draft_read = read;
  const others = alsoRead();
  if (others) request.also_read = others;
  return request;
}

// One answer of the core: about the preset or config.json, or about the loaded model file's header.
function run(request) {
  const { calculator, modelFile } = page;
  if (!modelFile) return calculator.answer(request);
  if (modelFile.shards) return calculator.answerShards(modelFile.shards, modelFile.index, request);
  return calculator.answerFile(modelFile.bytes, modelFile.size, modelFile.name, request);
}

/** The answers by the names `questions` gives them, or the scenario's error. */
export function ask(request, questions) {
  const names = Object.keys(questions);
  const result = run({ ...request, questions: names.map((name) => questions[name]) });
  if (!result.ok) return result;
  return { ok: true, ...Object.fromEntries(names.map((name, i) => [name, result.answers[i]])) };
}

/** The request with the chosen card alone in place of the list of different cards. */
export const oneCard = ({ gpus, ...request }) => ({ ...request, gpu: page.state.gpu });

// What a change shows first, asked of the core in one call: the estimate (on the chosen GPU when there is one:
// speed, cost, training time) and the same judged on every GPU for the table. The GPU ranking (inference only),
// what would help and the two charts' curves follow in a second call once typing pauses (extras), so the headline
// never waits for them. With different cards the run is over them, and every GPU of the catalog is judged one
// card at a time for the table and the ranking (a list in `gpus` would narrow both to the cards listed).
function askFirst({ request, cards }) {
  if (!cards) return ask(request, { estimate: 'estimate', ...(page.state.gpu ? { everyGpu: { question: 'estimate', every_gpu: true } } : {}) });
  const asked = ask(request, { estimate: 'estimate' });
  if (!asked.ok || !asked.estimate.ok) return asked.ok ? asked.estimate : asked;
  const table = ask(oneCard(request), { everyGpu: { question: 'estimate', every_gpu: true } });
  return table.ok ? { ...asked, everyGpu: table.everyGpu } : table;
}

// A number field holding text the browser cannot read as a number (400 digits, "16x" pasted) reports '' as its
// value: that is an error naming the field, never the default quietly used in its place. (The context, batch and
// token fields are text: the core reads "8k" there, or names what it takes.)
function unreadableNumber() {
  const input = [...dom.form.querySelectorAll('input[type="number"]')].find((i) => i.validity.badInput && !i.closest('[hidden]'));
  if (!input) return null;
  const key = page.codec.input(input.name)?.key ?? input.name;
  const field = isTraining(page.state) ? Object.keys(TRAINING_ALIASES).find((k) => TRAINING_ALIASES[k] === key) ?? key : key;
  return { ok: false, error: { field, message: view.t('error.number') } };
}

// The state's answer, or why there is none: the page's own checks first, then the core's.
function evaluateState() {
  const { state } = page;
  page.detail = null;
  if (page.fileProblem) return { ok: false, error: { field: 'file', message: page.fileProblem.message() } };
  const named = modelByName() ?? draftByName() ?? alsoByName();
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
  page.asked = { request, cards };
  // A GPU id the catalog lacks gets the core's message (it checks `gpu`); the table keeps every GPU otherwise.
  if (state.gpu) page.detail = first.estimate;
  return everyGpu;
}

// An error leaves no answer, yet the selects still show a value: what the core uses with the faulty field left
// to its default (that field keeps what was typed, the error beside it).
function inputsBeside(error) {
  const request = baseRequest();
  delete request[error.field];
  delete request[`${error.field}_read`];  // what was read for a draft or other models goes with their names
  // Without a model nothing is estimated: the other fields' defaults are those of a bare parameter count.
  if (error.field === 'model' || error.field === 'config') {
    delete request.model;
    delete request.config;
    request.params = 1e9;
  }
  const result = run({ ...request, questions: ['estimate'] });
  return result.ok ? result.answers[0] : null;
}

/** The state changed: ask the core, then write the inputs, the URL and the answer (or its error). */
export function update({ push = false } = {}) {
  const result = evaluateState();
  const failed = result.ok ? null : result.error ?? { field: 'model' };
  page.waiting = Boolean(result.lookup);
  showCheckpointAsk($('checkpoint-ask'), result, view.t);
  writeInputs(result.ok ? result : null, failed && { field: failed.field, inputs: inputsBeside(failed) });
  showFileStatus(failed);
  syncUrl(push);
  showHub();
  if (result.lookup) {
    // A Hub repository not read yet (or being read): no answer stands, the status line says what comes.
    page.report = null;
    clearError();
    for (const part of answerParts()) part.hidden = true;
    dom.status.hidden = false;
    dom.status.textContent = hubProgress() ?? view.t('hub.waiting', { name: page.state.model });
    return;
  }
  if (!result.ok) {
    showError(result.error.field, view.t.message(result.error.message, view.f));
    return;
  }
  page.report = result;
  clearError();
  render();
  dom.status.hidden = true;
  dom.summary.hidden = false;
  if (page.answerPainted) {
    dom.gpuSection.hidden = false;
    dom.embedSection.hidden = false;
    scheduleExtras();
  }
}

/** The answer on screen, in the language and unit shown; the details below it once the first answer is painted. */
export function render() {
  if (!answerStands()) return;  // no figure of the last answer beside an error
  view.gpu = shownGpu();
  renderSummary(dom, shown(), view);
  dom.answerTotal.textContent = dom.totalGb.textContent;
  dom.answerHeadline.textContent = dom.headline.textContent;
  dom.answerBar.hidden = false;
  const training = page.report.mode !== undefined;  // training answers name their mode
  dom.trainingFacts.hidden = !training;
  if (training) dom.trainingFacts.textContent = trainingFacts(shown(), view.t, view.f);
  if (page.detail) renderSpeed(dom, page.detail, view.t, view.f);
  else dom.speed.hidden = true;
  renderEnginePlan(dom, shown(), view.t, view.f);
  if (page.answerPainted) renderDetails();
}

/** The GPU table and the embed code. */
export function renderDetails() {
  renderGpuTable(dom, tableReport(), view);
  dom.embedCode.value = embedSnippet(view.embedKind, page.codec, linkState(alsoLinkState(page.state)), page.report, location.href, view.t);
}

function syncUrl(push) {
  const url = page.codec.url(linkState(alsoLinkState(page.state)));
  if (url !== location.search && !(url === location.pathname && location.search === '')) {
    history[push ? 'pushState' : 'replaceState'](null, '', url);
  }
}
