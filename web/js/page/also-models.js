// "Other models on this GPU" inside "Also on this GPU": the models loaded before the one asked about, each a preset
// with its context. The rows write the state's `also` text ("qwen3-0.6b@8192,llama-3.2-1b", the core's format) into
// a hidden control named `also` and send the form's own input event, so the page's one handler stores it as it
// stores every other field; showAlsoModels draws the rows back from that text (a link's, the history's).
import { el } from '../render/view.js';

const root = () => document.getElementById('also-models');
const hidden = () => document.getElementById('also');

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

function rowsNow(list) {
  return [...list.querySelectorAll('.also-row')].map((row) => ({
    model: row.querySelector('select').value, context: row.querySelector('input').value,
  }));
}

function send(list) {
  const input = hidden();
  input.value = alsoText(rowsNow(list));
  list.dataset.shown = input.value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

function row(list, models, t, value) {
  const select = el('select', { 'aria-label': t('also.model'), 'data-i18n-label': 'also.model', 'data-testid': 'also-model' });
  const ids = models.map((m) => m.id);
  for (const [id, name] of [['', t('also.choose')], ...models.map((m) => [m.id, m.name ?? m.id])]) {
    select.append(el('option', { value: id, text: name, 'data-i18n': id === '' ? 'also.choose' : null }));
  }
  // A link may name a model the list does not have: it stays, and the core says what is wrong with it.
  if (value.model !== '' && !ids.includes(value.model)) select.append(el('option', { value: value.model, text: value.model }));
  select.value = value.model;
  const context = el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
    placeholder: t('also.contextDefault'), 'data-i18n-label': 'also.context', 'aria-label': t('also.context'),
    'data-testid': 'also-context' });
  context.value = value.context;
  const remove = el('button', { type: 'button', class: 'also-remove', 'aria-label': t('also.remove'),
    'data-i18n-label': 'also.remove', 'data-testid': 'also-remove', text: '×' });
  const li = el('li', { class: 'also-row' }, select, context, remove);
  select.addEventListener('change', () => send(list));
  context.addEventListener('change', () => send(list));
  remove.addEventListener('click', () => {
    li.remove();
    send(list);
    list.closest('#also-models')?.querySelector('.also-add')?.focus();
  });
  return li;
}

/**
 * Draws the rows for the state's `also` text, unless they already say it (so typing in a row is not redrawn).
 * `models`: the catalogue's presets ({id, name}); `t`: the page's translator.
 */
export function showAlsoModels(text, models, t) {
  const box = root();
  if (!box) return;
  const list = box.querySelector('.also-list');
  const add = box.querySelector('.also-add');
  if (!add.dataset.wired) {
    add.dataset.wired = '1';
    add.addEventListener('click', () => {
      const li = row(list, models, t, { model: '', context: '' });
      list.append(li);
      li.querySelector('select').focus();
    });
  }
  const value = String(text ?? '');
  hidden().value = value;
  if (list.dataset.shown === value) return;
  list.dataset.shown = value;
  list.replaceChildren(...parseAlso(value).map((v) => row(list, models, t, v)));
}
