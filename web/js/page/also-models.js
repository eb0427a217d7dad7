// "Other models loaded first" inside "Also on this GPU": the models loaded before the one asked about, each a preset
// with its context. The rows live in the page's view (view.alsoModels, store.js), a row whose model is not chosen yet
// too; the DOM is drawn from them. A change writes the state's `also` text ("qwen3-0.6b@8192,llama-3.2-1b", the
// core's format) and asks the answer flow; a state text the rows do not say (a link's, the history's) redraws them,
// as does a language change. The hidden control named `also` mirrors the state so an error on it has its place.
import { el } from '../render/view.js';
import { page, view } from './store.js';
import { update } from './answer.js';

const root = () => document.getElementById('also-models');

/** "a@8192,b" → [{model: 'a', context: '8192'}, {model: 'b', context: ''}]. */
export function parseAlso(text) {
  return String(text ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '').map((item) => {
    const at = item.indexOf('@');
    return at < 0 ? { model: item, context: '' } : { model: item.slice(0, at), context: item.slice(at + 1) };
  });
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

function row(value, models, t) {
  const select = modelSelect(value, models, t);
  const context = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
    placeholder: t('also.contextDefault'), 'aria-label': t('also.context'), 'data-testid': 'also-context' });
  context.value = value.context;
  const remove = el('button', { type: 'button', class: 'also-remove', 'aria-label': t('also.remove'),
    'data-testid': 'also-remove', text: '×' });
  select.addEventListener('change', () => {
    value.model = select.value;
    send();
  });
  context.addEventListener('change', () => {
    value.context = context.value;
    send();
  });
  remove.addEventListener('click', () => {
    view.alsoModels.rows = view.alsoModels.rows.filter((r) => r !== value);
    draw();
    send();
    root()?.querySelector('.also-add')?.focus();
  });
  return el('li', { class: 'also-row' }, select, context, remove);
}

// The rows of the view, in the language shown.
function draw() {
  const box = root();
  if (!box) return;
  const models = page.calculator.catalog.models;
  view.alsoModels.lang = view.t.lang;
  box.querySelector('.also-list').replaceChildren(...view.alsoModels.rows.map((r) => row(r, models, view.t)));
}

function addRow() {
  view.alsoModels.rows = [...view.alsoModels.rows, { model: '', context: '' }];
  draw();
  root()?.querySelector('.also-row:last-child select')?.focus();
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
  }
  if (alsoText(shown.rows) !== text) {
    shown.rows = parseAlso(text);
    draw();
  } else if (shown.lang !== view.t.lang) {
    draw();
  }
}
