// "Other models loaded first" inside "Also on this GPU": the models loaded before the one asked about, each a preset,
// a Hugging Face repository (looked up only when the person asks, as the main model's box does) or its own files
// (read in this browser, kept out of the link and the embed code, name included), with its context. The rows live
// in the page's view (view.alsoModels, store.js), a row whose model is not chosen yet too; the DOM is drawn from them. A change writes the state's `also` text ("qwen3-0.6b@8192,llama-3.2-1b", the
// core's format) and asks the answer flow; a state text the rows do not say (a link's, the history's) redraws them,
// as does a language change. The hidden control named `also` mirrors the state so an error on it has its place.
import { el } from '../render/view.js';
import { page, view } from './store.js';
import { update } from './answer.js';
import { hubReading, readHubModel, readOwnFiles, keepRead } from './draft-hub.js';
import { errorShown } from './files.js';
import { quantOptions } from './hub-box.js';
import { isTraining } from '../state.js';

const root = () => document.getElementById('also-models');

/** "a@8192,b" → [{model: 'a', context: '8192'}, {model: 'b', context: ''}]; a Hub repository's row has hub: true,
 * a row of files read here file: true. */
export function parseAlso(text) {
  return String(text ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '').map((item) => {
    const at = item.indexOf('@');
    const row = at < 0 ? { model: item, context: '' } : { model: item.slice(0, at), context: item.slice(at + 1) };
    if (alsoReadOf(row.model)?.file) return { ...row, file: true };
    return hubReading(row.model) ? { ...row, hub: true } : row;
  });
}

// What was read for the other models, on the Hub or from files here (page.alsoReads: name → {phase, read, gguf (the
// repository's quantizations), error, controller, file}).
const alsoReadOf = (name) => page.alsoReads?.get(name);

/** The state as a link carries it: other models read from this browser's files stay out (their names too). */
export function alsoLinkState(state) {
  const rows = parseAlso(state.also);
  const kept = rows.filter((r) => !r.file);
  if (kept.length === rows.length) return state;
  return { ...state, also: page.codec.parse('also', alsoText(kept)) };
}

// The core keeps an other model's read under this key (the request's field, so its errors name the same field).
const keyOf = (name) => `also_read.${name}`;

/** The keys of what was read for the state's other models, for the request's also_read; null when none was. */
export function alsoRead() {
  const out = {};
  for (const { model } of parseAlso(page.state.also)) if (alsoReadOf(model)?.phase === 'loaded') out[model] = keyOf(model);
  return Object.keys(out).length ? out : null;
}

// A name that is a file's path (read_model_name's kind "file", the CLI's rule too): a link cannot carry the file.
const namesFile = (name) => page.calculator.readModelName(name).kind === 'file';

/** An other model on the Hub not read yet, or a file not read here (a link's): the error at `also`, else null. */
export function alsoByName() {
  if (isTraining(page.state)) return null;
  for (const { model, hub } of parseAlso(page.state.also)) {
    const read = alsoReadOf(model);
    if (read?.phase === 'loaded') continue;
    if (!hub && namesFile(model)) return { ok: false, error: { field: 'also', message: view.t('also.file.waiting', { name: model }) } };
    if (!hub) continue;
    if (read?.phase === 'failed') return { ok: false, error: { ...errorShown(read.error), field: 'also' } };
    return { ok: false, error: { field: 'also', message: view.t(read?.phase === 'reading' ? 'also.hub.reading' : 'also.hub.waiting', { name: model }) } };
  }
  return null;
}

// Reads the repository a row names; the row takes the name once it is read (or its lookup failed, to say why).
async function lookUpRow(value, name) {
  const reading = hubReading(name);
  if (!reading) {
    value.said = () => view.t('draft.hub.notHub', { name });
    draw();
    return;
  }
  page.alsoReads ??= new Map();
  alsoReadOf(name)?.controller?.abort();
  const controller = new AbortController();
  const current = { phase: 'reading', controller };
  page.alsoReads.set(name, current);
  value.model = name;
  value.said = undefined;
  draw();
  send();
  const alive = () => alsoReadOf(name) === current && !controller.signal.aborted;
  try {
    const { read, gguf } = await readHubModel(name, reading, { signal: controller.signal, onProgress() {}, field: 'also' });
    const refused = alive() ? keepRead(keyOf(name), read, 'also') : null;
    if (alive()) Object.assign(current, refused ? { phase: 'failed', error: refused, controller: null } : { phase: 'loaded', read, gguf, controller: null });
  } catch (error) {
    if (error?.name === 'AbortError' || !alive()) return;
    Object.assign(current, { phase: 'failed', error: error.core, controller: null });
  }
  if (!alive()) return;
  draw();
  update();
}

/** The rows as the core reads them; a row without a model is left out. */
export function alsoText(rows) {
  return rows.filter((r) => r.model !== '')
    .map((r) => (r.context.trim() === '' ? r.model : `${r.model}@${r.context.trim()}`)).join(',');
}

// The rows changed in the page: the state follows, and the answer with it (typing replaces the history entry).
function send() {
  const { rows } = view.alsoModels;
  page.state = { ...page.state, also: page.codec.parse('also', alsoText(rows)) };
  update();
}

function modelSelect(value, models, t) {
  const select = el('select', { 'aria-label': t('also.model'), 'data-testid': 'also-model' });
  const choices = [['', t('also.choose')], ...models.map((m) => [m.id, m.name ?? m.id])];
  // A link may name a model the list does not have: it stays, and the core says what is wrong with it.
  if (value.model !== '' && !models.some((m) => m.id === value.model)) choices.push([value.model, value.model]);
  for (const [id, name] of choices) select.append(el('option', { value: id, text: name }));
  select.value = value.model;
  return select;
}

// A Hub repository's row: its name, the button that looks it up, and what is said of the lookup.
function hubPart(value, t) {
  const name = el('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'owner/name',
    'aria-label': t('also.hub.name'), 'data-testid': 'also-hub-name', class: 'also-hub-name' });
  name.value = value.model;
  const lookup = el('button', { type: 'button', 'data-testid': 'also-hub-lookup', text: t('hub.lookup') });
  lookup.addEventListener('click', () => lookUpRow(value, name.value.trim()));
  const read = alsoReadOf(value.model);
  const said = value.said?.() ?? (read?.phase === 'loaded' ? t('also.hub.read', { repo: value.model })
    : read?.phase === 'reading' ? t('also.hub.reading', { name: value.model }) : t('draft.hub.offer'));
  const status = el('p', { class: 'hint also-status', role: 'status', 'data-testid': 'also-hub-status', text: said });
  // Another quantization of the repository read: the row takes its name (owner/name:QUANT) and reads its header.
  const options = read?.phase === 'loaded' ? quantOptions(read.gguf) : [];
  if (options.length < 2) return { name, lookup, status };
  const quant = el('select', { 'aria-label': t('hub.quant'), 'data-testid': 'also-hub-quant', class: 'also-hub-quant' }, ...options);
  quant.addEventListener('change', () => lookUpRow(value, `${read.read.repo}:${quant.value}`));
  return { name, lookup, quant, status };
}

function row(value, models, t) {
  if (value.file) return fileRow(value, t);
  if (value.hub) return hubRow(value, t);
  const select = modelSelect(value, models, t);
  select.addEventListener('change', () => {
    value.model = select.value;
    send();
  });
  return el('li', { class: 'also-row' }, select, contextField(value, t), removeButton(value, t));
}

function contextField(value, t) {
  const context = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
    placeholder: t('also.contextDefault'), 'aria-label': t('also.context'), 'data-testid': 'also-context' });
  context.value = value.context;
  context.addEventListener('change', () => {
    value.context = context.value;
    send();
  });
  return context;
}

function removeButton(value, t) {
  const remove = el('button', { type: 'button', class: 'also-remove', 'aria-label': t('also.remove'),
    'data-testid': 'also-remove', text: '×' });
  remove.addEventListener('click', () => {
    view.alsoModels.rows = view.alsoModels.rows.filter((r) => r !== value);
    // The last row of a model lets its read go, here and in the module.
    if (!view.alsoModels.rows.some((r) => r.model === value.model) && page.alsoReads?.has(value.model)) {
      page.alsoReads.get(value.model).controller?.abort();
      page.alsoReads.delete(value.model);
      page.calculator.forgetRead(keyOf(value.model));
    }
    draw();
    send();
    root()?.querySelector('.also-add')?.focus();
  });
  return remove;
}

function hubRow(value, t) {
  const { name, lookup, quant, status } = hubPart(value, t);
  return el('li', { class: 'also-row also-hub' }, name, lookup, ...(quant ? [quant] : []), contextField(value, t),
    removeButton(value, t), status);
}

// A row of files read here: its name as read, its context, and what was read.
function fileRow(value, t) {
  const name = el('span', { class: 'also-file-name', 'data-testid': 'also-file-name', text: value.model });
  const status = el('p', { class: 'hint also-status', role: 'status', 'data-testid': 'also-file-status',
    text: t('also.file.read', { name: value.model }) });
  return el('li', { class: 'also-row also-file' }, name, contextField(value, t), removeButton(value, t), status);
}

// Files picked or dropped on the picker: a row of their own, named as the files' model is; files the page cannot
// use are refused under the picker until the next pick.
async function takeFiles(input) {
  const read = await readOwnFiles(input.files);
  input.value = '';
  if (!read) return;
  const refused = read.ok ? keepRead(keyOf(read.name), read.read, 'also') : null;
  view.alsoModels.fileProblem = !read.ok ? read.message : refused ? () => view.t.message(refused.message, view.f) : null;
  if (!read.ok || refused) {
    draw();
    return;
  }
  page.alsoReads ??= new Map();
  page.alsoReads.get(read.name)?.controller?.abort();
  page.alsoReads.set(read.name, { phase: 'loaded', read: read.read, file: true });
  view.alsoModels.rows = [...view.alsoModels.rows, { model: read.name, context: '', file: true }];
  draw();
  send();
  root()?.querySelector('.also-row:last-child input')?.focus();
}

// The rows of the view and what the file picker says, in the language shown.
function draw() {
  const box = root();
  if (!box) return;
  const models = page.calculator.catalog.models;
  view.alsoModels.lang = view.t.lang;
  box.querySelector('.also-list').replaceChildren(...view.alsoModels.rows.map((r) => row(r, models, view.t)));
  box.querySelector('#also-file-status').textContent = view.alsoModels.fileProblem?.() ?? '';
}

function addRow() {
  view.alsoModels.rows = [...view.alsoModels.rows, { model: '', context: '' }];
  draw();
  root()?.querySelector('.also-row:last-child select')?.focus();
}

function addHubRow() {
  view.alsoModels.rows = [...view.alsoModels.rows, { model: '', context: '', hub: true }];
  draw();
  root()?.querySelector('.also-row:last-child input')?.focus();
}

/** Shows the state's `also`: the rows are redrawn when they say another text or the language changed. */
export function showAlsoModels() {
  const box = root();
  if (!box) return;
  const text = String(page.state.also ?? '');
  box.querySelector('#also').value = text;
  const shown = view.alsoModels;
  if (!shown.wired) {
    shown.wired = true;
    box.querySelector('.also-add').addEventListener('click', addRow);
    box.querySelector('.also-add-hub').addEventListener('click', addHubRow);
    const file = box.querySelector('#also-file');
    file.addEventListener('change', () => takeFiles(file));
  }
  if (alsoText(shown.rows) !== text) {
    shown.rows = parseAlso(text);
    draw();
  } else if (shown.lang !== view.t.lang) {
    draw();
  }
}
