// One model, one update(): inputs change → one call into the core → every output re-rendered.
import { openCalculator } from './core.js';
import { renderSummary, renderGpuTable, fillGpuSelect, fillSegmented, showExplanation } from './render.js';
import { stateFromUrl, urlFromState, requestFromState, modeSupported } from './state.js';
import { translator, initialLanguage, rememberLanguage, applyStaticTexts } from './i18n.js';
import { makeFormat } from './format.js';
import { markdownTable, csvText, download, copyText } from './export.js';
import { renderCharts } from './charts.js';
import { embedSnippet } from './snippet.js';

const $ = (id) => document.getElementById(id);
const dom = {
  form: $('inputs'), model: $('model'), modelList: $('model-list'), weights: $('weights'), context: $('context'),
  batch: $('batch'), gpu: $('gpu'), inputError: $('input-error'), status: $('status'), summary: $('summary'),
  gpuSection: $('gpu-section'), headline: $('headline'), totalGb: $('total-gb'), totalRange: $('total-range'),
  modelFacts: $('model-facts'), bar: $('bar'), breakdown: $('breakdown'), notes: $('notes'), gpus: $('gpus'),
  gpuHead: $('gpu-head'), gpuCount: $('gpu-count'), gpusLegend: $('gpus-legend'), memoryCol: $('memory-col'),
  segment: $('segment'), lang: $('lang'), modeNote: $('mode-note'), tabs: $('mode-tabs'), explain: $('explain'),
  actionStatus: $('action-status'), chartsSection: $('charts-section'), chartContext: $('chart-context'),
  chartBatch: $('chart-batch'), embedSection: $('embed-section'), embedCode: $('embed-code'),
};

const UNIT_KEY = 'vramfit.unit';
const stored = (key) => { try { return localStorage.getItem(key); } catch { return null; } };
const store = (key, value) => { try { localStorage.setItem(key, value); } catch { /* not remembered */ } };

let calculator;
let state = stateFromUrl(location.search);
let report = null; // the last valid report
// Display choices: language and unit are remembered in this browser, table order is per visit.
const view = { t: null, f: null, segment: 'all', sort: 'verdict', direction: 'ascending', gpu: state.gpu };

function setLanguage(lang) {
  view.t = translator(lang);
  dom.lang.value = view.t.lang;
  setUnit(view.f?.unit ?? (stored(UNIT_KEY) === 'GiB' ? 'GiB' : 'GB'));
  applyStaticTexts(document, view.t);
}
function setUnit(unit) {
  view.f = makeFormat(view.t.lang === 'de' ? 'de-DE' : 'en-US', unit);
  dom.form.ownerDocument.getElementById(`unit-${view.f.unit}`).checked = true;
}

const presetFor = (text) => {
  const needle = text.trim().toLowerCase();
  return calculator.catalog.models.find((m) => m.id.toLowerCase() === needle || m.name.toLowerCase() === needle);
};

function readNumber(input) {
  const v = input.value.trim();
  return /^\d+$/.test(v) ? Number(v) : v;
}

function writeInputs(current) {
  const preset = calculator.catalog.models.find((m) => m.id === state.model);
  if (document.activeElement !== dom.model) dom.model.value = preset ? preset.name : state.model;
  const radio = dom.form.querySelector(`input[name="weights"][value="${CSS.escape(state.weights)}"]`);
  if (radio) radio.checked = true;
  if (document.activeElement !== dom.context) dom.context.value = current ? current.inputs.context : state.context ?? '';
  if (document.activeElement !== dom.batch) dom.batch.value = state.batch;
  dom.gpu.value = state.gpu;
  if (dom.gpu.value !== state.gpu) dom.gpu.value = '';
  for (const tab of dom.tabs.querySelectorAll('[role="tab"]')) {
    const selected = tab.dataset.mode === state.mode;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
}

function showError(field, message) {
  dom.inputError.textContent = `${view.t(`field.${field}`)}: ${message}`;
  dom.inputError.hidden = false;
  for (const input of [dom.context, dom.batch, dom.model, dom.gpu]) input.toggleAttribute('aria-invalid', input.name === field);
  dom.summary.classList.add('stale');
  dom.status.textContent = view.t(dom.summary.hidden ? 'status.fix' : 'status.stale');
  dom.status.hidden = false;
}

function evaluateState() {
  const { modes = [] } = calculator.catalog;
  if (!modeSupported(state.mode, modes)) return { ok: false, mode: true };
  const result = calculator.evaluate(requestFromState(state, { modes }));
  // A GPU id the catalog lacks: let the core name the problem (it checks `gpu`), keep the full list otherwise.
  if (result.ok && state.gpu && !result.gpus.some((g) => g.id === state.gpu)) {
    return calculator.evaluate({ ...requestFromState(state, { modes }), gpu: state.gpu });
  }
  return result;
}

function update({ push = false } = {}) {
  const result = evaluateState();
  dom.modeNote.hidden = !result.mode;
  writeInputs(result.ok ? result : null);
  syncUrl(push);
  if (result.mode) {
    dom.inputError.hidden = true;
    dom.summary.classList.add('stale');
    dom.status.hidden = true;
    return;
  }
  if (!result.ok) {
    showError(result.error.field, result.error.message);
    return;
  }
  report = result;
  dom.inputError.hidden = true;
  for (const input of [dom.context, dom.batch, dom.model, dom.gpu]) input.removeAttribute('aria-invalid');
  dom.summary.classList.remove('stale');
  render();
  dom.status.hidden = true;
  dom.summary.hidden = false;
  dom.gpuSection.hidden = false;
  dom.embedSection.hidden = false;
  scheduleCharts();
}

function render() {
  if (!report) return;
  view.gpu = state.gpu;
  renderSummary(dom, report, view);
  renderGpuTable(dom, report, view);
  dom.embedCode.value = embedSnippet(document.querySelector('input[name="embed-kind"]:checked').value, state, report, location.href);
}

function syncUrl(push) {
  const url = urlFromState(state);
  if (url !== location.search && !(url === location.pathname && location.search === '')) {
    history[push ? 'pushState' : 'replaceState'](null, '', url);
  }
}

let chartTimer = 0;
function scheduleCharts() {
  clearTimeout(chartTimer);
  chartTimer = setTimeout(() => {
    if (!report) return;
    renderCharts({ context: dom.chartContext, batch: dom.chartBatch }, calculator, state, report, view);
    dom.chartsSection.hidden = false;
  }, 60);
}

function announce(key) {
  dom.actionStatus.textContent = view.t(key);
  setTimeout(() => { dom.actionStatus.textContent = ''; }, 4000);
}

function wireEvents() {
  dom.form.addEventListener('input', (event) => {
    const target = event.target;
    if (target === dom.model) {
      const preset = presetFor(dom.model.value);
      if (!preset) return; // still typing; `change` settles a free-text id
      if (preset.id === state.model) return;
      state = { ...state, model: preset.id, context: null };
      update({ push: true });
      return;
    }
    if (target.name === 'weights') state = { ...state, weights: target.value };
    else if (target === dom.context) state = { ...state, context: dom.context.value.trim() === '' ? null : readNumber(dom.context) };
    else if (target === dom.batch) state = { ...state, batch: readNumber(dom.batch) };
    else if (target === dom.gpu) state = { ...state, gpu: dom.gpu.value };
    else return;
    update({ push: target.name === 'weights' || target === dom.gpu });
  });
  dom.model.addEventListener('change', () => {
    const preset = presetFor(dom.model.value);
    const model = preset ? preset.id : dom.model.value.trim();
    if (model === state.model || model === '') return;
    state = { ...state, model, context: null };
    update({ push: true });
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
    state = stateFromUrl(location.search);
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
      scheduleCharts();
    });
  }
  dom.segment.addEventListener('change', () => { view.segment = dom.segment.value; render(); });
  dom.gpuHead.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-sort]');
    if (!button) return;
    const key = button.dataset.sort;
    view.direction = view.sort === key && view.direction === 'ascending' ? 'descending' : 'ascending';
    view.sort = key;
    render();
    dom.gpuHead.querySelector(`button[data-sort="${key}"]`).focus();
  });
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-explain]');
    if (button && report) showExplanation(dom.explain, report, button.dataset.explain, view.t);
  });
  $('explain-close').addEventListener('click', () => dom.explain.close());

  $('copy-link').addEventListener('click', async () => announce(await copyText(location.href) ? 'actions.copied' : 'actions.copyFailed'));
  $('copy-markdown').addEventListener('click', async () => {
    if (report) announce(await copyText(markdownTable(report, view, location.href)) ? 'actions.copied' : 'actions.copyFailed');
  });
  $('download-csv').addEventListener('click', () => {
    if (report) download(`vramfit-${report.model.id}.csv`, new Blob([csvText(report, view)], { type: 'text/csv' }));
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
    option.textContent = m.id;
    return option;
  }));
  fillSegmented(dom.weights, 'weights', dtypes.map((d) => ({ value: d.name, label: d.name, title: d.summary })), state.weights);
  fillGpuSelect(dom.gpu, gpus, state.gpu, view.t);
}

async function main() {
  setLanguage(initialLanguage());
  try {
    calculator = await openCalculator();
  } catch (error) {
    dom.status.textContent = view.t('status.failed', { message: error.message });
    return;
  }
  refill();
  wireEvents();
  update();
  performance.mark('vramfit:first-result');
  if ('serviceWorker' in navigator && location.protocol.startsWith('http')) {
    navigator.serviceWorker.register('sw.js').catch(() => { /* offline use is a bonus, not a requirement */ });
  }
}

main();
