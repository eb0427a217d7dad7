// The language and the unit the page shows: both remembered in this browser.
import { translator, applyStaticTexts } from '../i18n/i18n.js';
import { makeFormat } from '../i18n/format.js';
import { dom } from './dom.js';
import { view } from './store.js';

const UNIT_KEY = 'vramfit.unit';
const stored = (key) => { try { return localStorage.getItem(key); } catch { return null; } };
const store = (key, value) => { try { localStorage.setItem(key, value); } catch { /* not remembered */ } };

export function setLanguage(lang) {
  view.t = translator(lang);
  dom.lang.value = view.t.lang;
  document.documentElement.lang = view.t.lang;  // screen readers and hyphenation follow it
  setUnit(view.f?.unit ?? (stored(UNIT_KEY) === 'GiB' ? 'GiB' : 'GB'));
  applyStaticTexts(document, view.t);
  document.documentElement.classList.remove('translating');  // set by lang.js before the first paint
}

export function setUnit(unit) {
  view.f = makeFormat(view.t.lang === 'de' ? 'de-DE' : 'en-US', unit);
  dom.form.ownerDocument.getElementById(`unit-${view.f.unit}`).checked = true;
}

export function rememberUnit(unit) {
  store(UNIT_KEY, unit);
  setUnit(unit);
}

// A label whose text follows the state (context or sequence): its key stays on the node, as the static texts'
// do, so a language change translates it too.
export function setLabel(node, key) {
  if (node.dataset.i18n === key) return;
  node.dataset.i18n = key;
  node.textContent = view.t(key);
}
