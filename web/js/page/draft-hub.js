// A draft model on the Hugging Face Hub: typed under the draft's list (owner/name, a link, owner/name:QUANT), looked
// up only when the person asks, as the main model's box does (hub-box.js), and read into the description the core
// takes for a draft read by a client (draft_read: the config.json, the files' headers in base64). The state's `draft`
// keeps the name, never anything read: a link naming a Hub draft offers the lookup again.
import { $ } from './dom.js';
import { page, view } from './store.js';
import { openHubRepo, LookupError } from '../hub.js';
import { presetFor } from './model-name.js';
import { quantOptions } from './hub-box.js';
import { readFiles, errorShown } from './files.js';
import { update } from './answer.js';
import { isTraining } from '../state.js';

// draftHub: {name (the state's draft), reading, phase: 'reading' | 'failed' | 'loaded', progress, error, read
// (draft_read's description, kept by the core under DRAFT_KEY once loaded), gguf (the repository's quantizations,
// plan_hub_reads'), controller}; null while the draft is a preset, "mtp" or none.
const el = () => ({ box: $('draft-hub'), input: $('draft-repo'), lookup: $('draft-lookup'), status: $('draft-hub-status'),
  quants: $('draft-quant-controls'), quant: $('draft-quant') });

/** A name that is a Hub repository (read_model_name's reading), else null: a preset, "mtp", none or anything else. */
export function hubReading(name) {
  const text = String(name ?? '').trim();
  if (text === '' || text.toLowerCase() === 'mtp' || presetFor(text)) return null;
  const reading = page.calculator.readModelName(text);
  return reading.ok && reading.kind === 'hub' ? reading : null;
}

// The core keeps the draft's read under this key (the request's field, so its errors name the same field).
const DRAFT_KEY = 'draft_read';

/** The key of what was read for the state's draft, for the request's draft_read; null when nothing was. */
export function draftRead() {
  const hub = page.draftHub;
  return hub?.phase === 'loaded' && hub.name === page.state.draft ? DRAFT_KEY : null;
}

/**
 * Hands a read (the core's description of a model read) to the core to keep under `key`: read once, its header is
 * neither sent nor decoded again with each answer. Null when kept, else the core's error at `field`.
 */
export function keepRead(key, read, field) {
  const kept = page.calculator.keepRead(key, read);
  return kept.ok ? null : { ...kept.error, field };
}

// A draft named by a file's path (read_model_name's kind "file", the CLI's rule too): its files stay in this
// browser, never in the link.
function namesFile(name) {
  const text = String(name ?? '').trim();
  return text !== '' && page.calculator.readModelName(text).kind === 'file';
}

/** The state's draft names a Hub repository or a file not read here: the error at the draft's field, else null. */
export function draftByName() {
  const { draft } = page.state;
  if (page.draftHub && page.draftHub.name !== draft) forgetDraftHub();
  if (isTraining(page.state) || draftRead()) return null;
  if (namesFile(draft)) return { ok: false, error: { field: 'draft', message: view.t('draft.file.waiting', { name: draft }) } };
  if (!hubReading(draft)) return null;
  if (page.draftHub?.phase === 'failed') return { ok: false, error: errorShown(page.draftHub.error) };
  const key = page.draftHub?.phase === 'reading' ? 'draft.hub.reading' : 'draft.hub.waiting';
  return { ok: false, error: { field: 'draft', message: view.t(key, { name: draft }) } };
}

/** The state as a link carries it: a draft picked from this browser's files stays out (its name too). */
export function linkState(state) {
  if (!page.draftHub?.file || page.draftHub.name !== state.draft) return state;
  return { ...state, draft: '' };
}

function forgetDraftHub() {
  page.draftHub?.controller?.abort();
  page.draftHub = null;
}

// RFC 4648 base64 of a header, as the core reads draft_read's files.
function base64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// Files read as the drop path reads them ({config, loaded}), as the core's description of a model read; `repo` is the
// Hub repository they came from ('' for files picked here), `plan` its plan_hub_reads (the revision read, and the
// file where llama-server's -hfd tag would take another).
function described(read, name, repo = '', plan = null) {
  const out = repo ? { name, repo } : { name };
  if (plan?.revision) out.revision = plan.revision;
  if (plan?.gguf?.hf_file) out.hf_file = plan.gguf.hf_file;
  if (read.config) out.config = read.config.text;
  if (read.config?.quant) out.quant_config = read.config.quant;
  const files = read.loaded?.shards ?? (read.loaded ? [read.loaded] : []);
  out.files = files.map((f) => ({ name: f.name, size: f.size, header: base64(f.bytes) }));
  if (read.loaded?.index) out.index = read.loaded.index;
  return out;
}

/**
 * Reads a Hub repository (`reading`: read_model_name's) as the drop path reads files: {read (the core's description
 * of a model read), gguf (the repository's GGUF quantizations, the one read among them; null for none)}. Throws
 * {core: error} with the core's or the lookup's error (its field `field`; a file refused here has a function for its
 * message: errorShown() says it), or an AbortError.
 */
export async function readHubModel(name, reading, { signal, onProgress, field }) {
  try {
    const opened = await openHubRepo(page.calculator, name, reading, { signal, onProgress });
    if (!opened.plan.ok) throw Object.assign(new Error(), { core: opened.plan.error });
    const read = await readFiles(opened.files, () => ({ step() {}, stop() {} }));
    // The refusal stays a function, so a language change says it again in the language shown.
    if (!read.ok) throw Object.assign(new Error(), { core: { message: read.refused ?? read.failed } });
    return { read: described(read, opened.plan.repo, opened.plan.repo, opened.plan), gguf: opened.plan.gguf ?? null };
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    const failure = error instanceof LookupError
      ? page.calculator.lookupFailure({ service: 'hub', name: reading.repo, token: false, gated: false, ...error.failure }).error
      : error.core ?? { message: String(error?.message ?? error) };
    const said = errorShown(failure).message;
    throw Object.assign(new Error(said?.text ?? said), { core: { ...failure, field } });
  }
}

// Reads the repository typed: the only place the draft goes to the network.
async function lookUp(name) {
  const reading = hubReading(name);
  if (!reading) {
    const preset = presetFor(name);
    if (preset) {
      page.state = { ...page.state, draft: preset.id };
      update({ push: true });
    } else {
      page.draftProblem = { draft: page.state.draft, message: () => view.t('draft.hub.notHub', { name }) };
      showDraftHub();
    }
    return;
  }
  page.draftProblem = null;
  forgetDraftHub();
  const controller = new AbortController();
  const current = { name, reading, phase: 'reading', progress: [0, 0], controller, error: null, read: null };
  page.draftHub = current;
  page.state = { ...page.state, draft: name };
  update({ push: true });
  const alive = () => page.draftHub === current && !controller.signal.aborted;
  const onProgress = (done, total) => {
    if (!alive()) return;
    current.progress = [done, total];
    showDraftHub();
  };
  try {
    const { read, gguf } = await readHubModel(name, reading, { signal: controller.signal, onProgress, field: 'draft' });
    if (!alive()) return;
    const refused = keepRead(DRAFT_KEY, read, 'draft');
    Object.assign(current, refused ? { phase: 'failed', error: refused, controller: null }
      : { phase: 'loaded', read, gguf, controller: null });
  } catch (error) {
    if (error?.name === 'AbortError' || !alive()) return;
    Object.assign(current, { phase: 'failed', error: error.core, controller: null });
  }
  update();
}

/**
 * A model's own files, picked or dropped on a picker: read in this browser as the model's are, only their headers,
 * into the core's description of a model read. {ok: true, name, read} or {ok: false, message (a function giving the
 * refusal in the language shown)}; null for no file.
 */
export async function readOwnFiles(list) {
  const files = [...(list ?? [])];
  if (files.length === 0) return null;
  const read = await readFiles(files, () => ({ step() {}, stop() {} }));
  if (!read.ok) return { ok: false, message: read.refused ?? read.failed };
  const name = read.loaded?.name ?? read.config?.name;
  return { ok: true, name, read: described(read, name) };
}

// The draft's own files: the state names the draft by its file's name, which stays out of the link (linkState).
async function takeFiles(list) {
  if ([...(list ?? [])].length === 0) return;
  forgetDraftHub();
  const read = await readOwnFiles(list);
  const refused = read.ok ? keepRead(DRAFT_KEY, read.read, 'draft') : null;
  if (!read.ok || refused) {
    const message = read.ok ? () => view.t.message(refused.message, view.f) : read.message;
    page.draftProblem = { draft: page.state.draft, message };
    showDraftHub();
    return;
  }
  page.draftProblem = null;
  page.draftHub = { name: read.name, phase: 'loaded', read: read.read, file: true };
  page.state = { ...page.state, draft: read.name };
  update({ push: true });
}

/** The box under the draft's list: what is said before a lookup, its progress, or what was read. */
export function showDraftHub() {
  const { box, input, lookup, status, quants, quant } = el();
  if (!box) return;
  if (!box.dataset.wired) {
    box.dataset.wired = 'true';
    lookup.addEventListener('click', () => lookUp(input.value.trim()));
    $('draft-file').addEventListener('change', (event) => takeFiles(event.target.files));
    // Another quantization of the repository read: its header alone is asked for (the listing is kept, hub.js).
    quant.addEventListener('change', () => lookUp(`${page.draftHub?.read?.repo}:${quant.value}`));
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      lookUp(input.value.trim());
    });
  }
  const hub = page.draftHub;
  const options = hub?.phase === 'loaded' ? quantOptions(hub.gguf) : [];
  quants.hidden = options.length < 2;
  if (options.length >= 2) quant.replaceChildren(...options);
  const named = hubReading(page.state.draft) ? page.state.draft : '';
  if (document.activeElement !== input && named !== '') input.value = named;
  const [done, total] = hub?.progress ?? [0, 0];
  // What was said of a pick or a name stands while the draft it was said under does.
  if (page.draftProblem && page.draftProblem.draft !== page.state.draft) page.draftProblem = null;
  if (page.draftProblem) {
    status.textContent = page.draftProblem.message();
  } else if (hub?.phase === 'reading') {
    status.textContent = total === 0 ? view.t('hub.asking', { name: hub.reading.repo })
      : view.t('hub.reading', { repo: hub.reading.repo, n: view.f.count(done), m: view.f.count(total) });
  } else if (hub?.phase === 'loaded') {
    status.textContent = hub.file ? view.t('draft.file.read', { name: hub.name }) : view.t('draft.hub.read', { repo: hub.read.repo });
  } else {
    status.textContent = view.t('draft.hub.offer');
  }
}
