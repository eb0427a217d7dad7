// <vram-fit model="llama-3.1-8b" weights="int4" context="8192" batch="1" gpu="rtx-4090" mode="inference">:
// the compact answer as a custom element. Attributes are the source of truth (properties reflect them);
// changes within one task are batched into a single update. Registration lives in ../../vram-fit.js.
import { openCalculator } from '../core.js';
import { renderCompact, renderUnavailable } from './compact.js';
import { stateCodec } from '../state.js';
import { translator, initialLanguage } from '../i18n/i18n.js';
import { makeFormat } from '../i18n/format.js';

const siteBase = new URL('../../', import.meta.url);
// The attributes are the page's state keys, from the core's inputs table: known once the core is loaded.
let codec = null;
const loading = openCalculator().then((calculator) => {
  codec = stateCodec(calculator.catalog);
  reflectAttributes(codec.keys);
  return calculator;
});

export class VramFitElement extends HTMLElement {
  /** Resolves once the core is loaded, so that the element observes every attribute; or once it failed to load
   * (another site serving the .wasm without a CORS header): the element then shows a link to the full page. */
  static ready = loading.then(() => undefined, () => undefined);
  static get observedAttributes() { return [...(codec?.keys ?? []), 'lang', 'unit']; }

  #root;
  #body;
  #pending = false;
  #report = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    // Stylesheets by URL (not a <style> block): the host page's CSP needs no 'unsafe-inline'.
    for (const href of ['css/tokens.css', 'css/compact.css']) {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = new URL(href, siteBase).href;
      this.#root.append(link);
    }
    this.#body = document.createElement('div');
    this.#body.className = 'vramfit-compact';
    this.#body.setAttribute('part', 'body');
    this.#root.append(this.#body);
  }

  /** The last answer from the core (the report, or {ok: false, error}); null before the first update. */
  get report() { return this.#report; }

  connectedCallback() { this.#schedule(); }

  attributeChangedCallback(_name, oldValue, newValue) {
    if (oldValue !== newValue) this.#schedule();
  }

  // Several attribute changes in one task → one evaluation.
  #schedule() {
    if (this.#pending || !this.isConnected) return;
    this.#pending = true;
    queueMicrotask(() => this.#update());
  }

  async #update() {
    let calculator = null;
    try {
      calculator = await loading;
    } catch {
      // Shown below: the text and the link to the full page.
    } finally {
      this.#pending = false;
    }
    const lang = this.getAttribute('lang') ?? this.closest('[lang]')?.getAttribute('lang') ?? initialLanguage();
    const t = translator(lang.toLowerCase().startsWith('de') ? 'de' : 'en');
    const f = makeFormat(t.lang === 'de' ? 'de-DE' : 'en-US', this.getAttribute('unit') === 'GiB' ? 'GiB' : 'GB');
    if (!calculator) {
      this.#report = renderUnavailable(this.#body, this.attributes, { t, siteBase });
    } else {
      const state = codec.from((key) => this.getAttribute(key));
      this.#report = renderCompact(this.#body, calculator, state, { t, f, siteBase });
    }
    this.dispatchEvent(new CustomEvent('vramfit:update', { detail: this.#report }));
  }
}

// Properties mirror the attributes (element.context = 4096 sets the attribute).
function reflectAttributes(keys) {
  for (const key of keys) {
    Object.defineProperty(VramFitElement.prototype, key, {
      get() { return this.getAttribute(key); },
      set(value) { if (value === null || value === undefined) this.removeAttribute(key); else this.setAttribute(key, String(value)); },
    });
  }
}
