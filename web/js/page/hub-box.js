// A model on the Hugging Face Hub, looked up only when the person asks: the offer under the model field, the
// reading's progress, what was read, and the quantization picked from it.
import { dom } from './dom.js';
import { page, view } from './store.js';
import { openHubRepo, LookupError, repoPage } from '../hub.js';
import { presetFor, isPresetId } from './model-name.js';
import { readFiles, errorShown } from './files.js';
import { useRead, dropFiles, forgetFiles } from './file-box.js';
import { update } from './answer.js';

// The name as the model key keeps it: owner/name[:QUANT]; a link naming a file or a revision stays as given.
export const hubName = (text, reading) => ((reading.file || (reading.revision && reading.revision !== 'main'))
  ? text.trim() : reading.repo + (reading.quant ? `:${reading.quant}` : ''));

/** A typed text that names a Hub repository: read_model_name's reading, else null. */
export function hubReading(text) {
  const name = String(text ?? '').trim();
  if (name === '' || presetFor(name)) return null;
  const reading = page.calculator.readModelName(name);
  return reading.ok && reading.kind === 'hub' ? reading : null;
}

// The state's model when it is no preset: a Hub repository waits for its lookup ({lookup: true}) or stands in
// its error; an Ollama name is refused with a way to go on. null when the core answers as usual.
export function modelByName() {
  const { state } = page;
  if (page.hub && page.hub.name !== state.model) forgetHub();
  if (page.hub?.phase === 'loaded' || page.config || page.modelFile || isPresetId(state.model)) return null;
  const name = String(state.model);
  if (name.trim() === '') return { ok: false, error: { field: 'model', message: view.t('error.modelEmpty') } };
  const reading = page.calculator.readModelName(name);
  if (reading?.ok && reading.kind === 'hub') {
    page.hub ??= { name: state.model, reading, phase: 'offer' };
    if (page.hub.phase === 'failed') return { ok: false, error: errorShown(page.hub.error) };
    return { ok: false, lookup: true };
  }
  if (reading?.ok && reading.kind === 'ollama') {
    const message = `${view.t.message(reading.preset_error, view.f)}. ${view.t('hub.ollama', { name })}`;
    return { ok: false, error: { field: 'model', message } };
  }
  return null;
}

export function forgetHub() {
  page.hub?.controller?.abort();
  if (page.hub?.phase === 'loaded') {
    page.config = null;
    page.modelFile = null;
  }
  page.hub = null;
}

export function hubProgress() {
  const { hub } = page;
  if (hub?.phase !== 'reading') return null;
  const [done, total] = hub.progress ?? [0, 0];
  return total === 0 ? view.t('hub.asking', { name: hub.reading.repo })
    : view.t('hub.reading', { repo: hub.reading.repo, n: view.f.count(done), m: view.f.count(total) });
}

// The box under the model field: the offer to look the name up, the reading's progress, or what was read.
export function showHub() {
  const { hub, typedHub } = page;
  const offered = typedHub ?? hub;
  dom.hub.hidden = !offered;
  if (!offered) return;
  const phase = typedHub ? 'offer' : hub.phase;
  const offer = phase === 'offer' || phase === 'failed';
  dom.hubOffer.hidden = !offer;
  dom.hubLookup.hidden = !offer;
  if (offer) dom.hubOffer.textContent = view.t('hub.offer', { name: offered.name });
  dom.hubQuantControls.hidden = true;
  if (phase === 'reading') dom.hubStatus.textContent = hubProgress();
  else if (phase === 'loaded') showRead(hub);
  else dom.hubStatus.textContent = '';
}

// What was read, a link to the repository, and the repository's other quantizations to pick from.
function showRead({ plan, readAt }) {
  const link = document.createElement('a');
  link.href = repoPage(plan.repo);
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.textContent = view.t('hub.open', { repo: plan.repo });
  const copy = readAt ? ` ${view.t('hub.copy', { date: readAt.toLocaleString(view.t.lang === 'de' ? 'de-DE' : 'en-US', { dateStyle: 'medium', timeStyle: 'short' }) })}` : '';
  dom.hubStatus.replaceChildren(`${view.t.message(plan.summary, view.f)}${copy} `, link);
  const options = quantOptions(plan.gguf);
  if (options.length === 0) return;
  dom.hubQuant.replaceChildren(...options);
  dom.hubQuantControls.hidden = false;
}

/** A repository's GGUF quantizations (a plan's `gguf`) as options, the one read selected; none for no GGUF. */
export function quantOptions(gguf) {
  return (gguf?.choices ?? []).map((c) => {
    const option = document.createElement('option');
    option.value = c.quant;
    option.textContent = view.t(c.files > 1 ? 'hub.choiceParts' : 'hub.choice', { quant: c.quant, size: view.f.bytes(c.size), files: view.f.count(c.files) });
    option.selected = c.quant === gguf.quant;
    return option;
  });
}

// Reads the Hub repository the state's model names: the only place the page goes to the network for a model.
export async function lookUp() {
  if (!page.hub) return;
  const turn = ++page.takes;
  ++page.drops;
  page.hub.controller?.abort();
  const controller = new AbortController();
  const current = Object.assign(page.hub, { phase: 'reading', progress: [0, 0], controller, error: null, plan: null, readAt: null });
  const alive = () => turn === page.takes && page.hub === current && !controller.signal.aborted;
  dropFiles();  // a drop's files give way to the repository
  update();
  const fail = (error) => {
    if (!alive()) return;
    Object.assign(current, { phase: 'failed', error, controller: null });
    update();
  };
  try {
    await readRepo(current, controller, alive, fail);
  } catch (error) {
    if (error?.name === 'AbortError' || !alive()) return;
    if (!(error instanceof LookupError)) {
      fail({ field: 'model', message: String(error?.message ?? error) });
      return;
    }
    const failure = { service: 'hub', name: current.reading.repo, token: false, gated: Boolean(current.plan?.gated), ...error.failure };
    fail(page.calculator.lookupFailure(failure).error);
  }
}

async function readRepo(current, controller, alive, fail) {
  const opened = await openHubRepo(page.calculator, current.name, current.reading, {
    signal: controller.signal,
    onProgress(done, total) {
      if (!alive()) return;
      current.progress = [done, total];
      dom.hubStatus.textContent = hubProgress();
      if (page.waiting) dom.status.textContent = hubProgress();
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
    fail({ field: 'model', message: read.refused ?? read.failed });  // said again in the language shown (errorShown())
    return;
  }
  useRead(read, { replace: true });
  Object.assign(current, { phase: 'loaded', readAt: opened.session.readAt, controller: null });
  update();
}

// The model field names another model: a preset, a Hub repository (offered, not yet read) or anything else.
export function chooseModel(model) {
  forgetFiles();
  forgetHub();
  page.typedHub = null;
  page.state = { ...page.state, model };
  update({ push: true });
}
