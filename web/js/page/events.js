// The page's events: each control changes the state (page/store.js) and asks update() for the answer; display
// choices (language, unit, table order) re-render what is shown.
import { $, dom } from './dom.js';
import { page, view, shown, tableReport } from './store.js';
import { showExplanation, openExplanation } from '../render/summary.js';
import { commandOf } from '../render/engine-plan.js';
import { statePatch } from '../render/remedies.js';
import { markdownTable, csvText, download, copyText } from '../render/export.js';
import { rememberLanguage } from '../i18n/i18n.js';
import { setLanguage, rememberUnit } from './language.js';
import { presetFor, presetModel } from './model-name.js';
import { hubName, hubReading, showHub, lookUp, chooseModel } from './hub-box.js';
import { takeFiles, usePasted, clearFiles } from './file-box.js';
import { droppedFiles } from './files.js';
import { forgetDescribedCard } from './gpu-controls.js';
import { update, render } from './answer.js';
import { scheduleExtras, redrawRanking } from './extras.js';
import { refill } from './inputs.js';

export function wireEvents() {
  wireModelField();
  wireHub();
  wireControls();
  wireTabs();
  wireDisplay();
  wireResults();
  wireActions();
  wireFiles();
}

const noFiles = () => page.config === null && page.modelFile === null;

// The model field: a preset as soon as it is typed; a Hub repository's name brings the offer to look it up.
function wireModelField() {
  dom.model.addEventListener('input', () => {
    const preset = presetFor(dom.model.value);
    if (!preset) {
      // Still typing; `change` settles a free-text id.
      const reading = hubReading(dom.model.value);
      const name = reading && hubName(dom.model.value, reading);
      page.typedHub = reading && name !== page.hub?.name ? { name } : null;
      showHub();
      return;
    }
    page.typedHub = null;
    const model = presetModel(dom.model.value, preset);
    if (model === page.state.model && noFiles()) {
      showHub();
      return;
    }
    chooseModel(model);
  });
  dom.model.addEventListener('change', () => {
    const text = dom.model.value.trim();
    const preset = presetFor(text);
    const reading = preset ? null : hubReading(text);
    const model = preset ? presetModel(text, preset) : reading ? hubName(text, reading) : text;
    page.typedHub = null;
    if (model === page.state.model && (page.hub || noFiles())) {
      showHub();
      return;
    }
    chooseModel(model);  // '' too: no model is an error at the field, never the last one kept quietly
  });
}

// The network is asked for a model only here: the person picked the lookup, or another quantization of it.
function wireHub() {
  dom.hubLookup.addEventListener('click', () => {
    if (page.typedHub) chooseModel(page.typedHub.name);
    lookUp();
  });
  dom.hubQuant.addEventListener('change', () => {
    const { hub } = page;
    if (!hub?.plan) return;
    // At another revision than main the link form keeps it: /tree/<rev>/<quant> reads as that quantization.
    const { revision } = hub.reading;
    chooseModel(revision && revision !== 'main'
      ? `https://huggingface.co/${hub.plan.repo}/tree/${encodeURIComponent(revision)}/${dom.hubQuant.value}`
      : `${hub.plan.repo}:${dom.hubQuant.value}`);
    lookUp();
  });
}

// Every other control is named by its state key; the file and paste controls act on their own.
function wireControls() {
  dom.form.addEventListener('input', (event) => {
    const target = event.target;
    const key = target.name;
    if (target === dom.model || !(key in page.state)) return;
    if (key === 'weights' && page.modelFile) page.modelFile.weightsChosen = true;
    const state = { ...page.state, [key]: page.codec.parse(key, target.value.trim()) };
    if (key === 'engine') state.version = '';  // a version is its engine's: another engine starts at its default
    if (key === 'gpu') forgetDescribedCard(state);  // a card picked from the list is that card
    page.state = state;
    // A pick is a history entry; typing replaces the current one.
    update({ push: target.tagName === 'SELECT' || target.type === 'radio' });
  });
  dom.form.addEventListener('submit', (event) => event.preventDefault());
  // "Like" a listed card: that card's figures with the memory given; none: a card of its own.
  dom.gpuLike.addEventListener('change', () => {
    page.state = { ...page.state, gpu: dom.gpuLike.value || 'custom' };
    update({ push: true });
  });
  window.addEventListener('popstate', () => {
    page.state = page.codec.fromUrl(location.search);
    page.typedHub = null;
    page.modelFieldFollows = true;  // Back and Forward rewrite the field even while it has the focus
    update();
  });
}

function wireTabs() {
  dom.tabs.addEventListener('click', (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (!tab || tab.dataset.mode === page.state.mode) return;
    page.state = { ...page.state, mode: tab.dataset.mode };
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
}

// Language, unit, the breakdown's segment and the embed code's kind: what is shown, not what is asked.
function wireDisplay() {
  dom.lang.addEventListener('change', () => {
    rememberLanguage(dom.lang.value);
    setLanguage(dom.lang.value);
    refill();
    update();
  });
  for (const radio of document.querySelectorAll('input[name="unit"]')) {
    radio.addEventListener('change', () => {
      rememberUnit(radio.value);
      render();
      showHub();
      scheduleExtras();
    });
  }
  dom.segment.addEventListener('change', () => { view.segment = dom.segment.value; render(); });
  for (const radio of document.querySelectorAll('input[name="embed-kind"]')) {
    radio.addEventListener('change', () => {
      view.embedKind = radio.value;
      render();
    });
  }
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

// What would help (apply one, or see its figures), the ranking's length, the tables' order, the explanations.
function wireResults() {
  dom.remedies.addEventListener('click', (event) => {
    const button = event.target.closest('button');
    const row = button?.closest('tr');
    const remedy = row && page.remedies?.remedies?.find((r) => r.id === row.dataset.remedy);
    if (!remedy) return;
    if (button.hasAttribute('data-remedy-explain')) {
      openExplanation(dom.explain, view.t('explain.open', { label: row.querySelector('th').textContent }), remedy.explanation, view.t, view.f);
      return;
    }
    const patch = statePatch(page.remedies, remedy, page.codec);
    if (!patch) return;
    if (page.modelFile && 'weights' in patch) page.modelFile.weightsChosen = true;
    page.state = { ...page.state, ...patch };
    update({ push: true });
    $('results-title').focus();  // the button goes with the old table; the new answer is read from the top
  });
  dom.rankingCount.addEventListener('click', (event) => {
    if (!event.target.closest('#ranking-all')) return;
    view.rankingAll = !view.rankingAll;
    redrawRanking();
    $('ranking-all').focus();
  });
  wireSort(dom.gpuHead, 'sort', 'direction', render);
  wireSort(dom.rankingHead, 'rankingSort', 'rankingDirection', redrawRanking);
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-explain]');
    if (button && page.report) showExplanation(dom.explain, shown(), button.dataset.explain, view.t, view.f);
  });
  $('explain-close').addEventListener('click', () => dom.explain.close());
}

function announce(key) {
  dom.actionStatus.textContent = view.t(key);
  setTimeout(() => { dom.actionStatus.textContent = ''; }, 4000);
}
const copied = async (text) => announce(await copyText(text) ? 'actions.copied' : 'actions.copyFailed');

// Copy the link, the table as Markdown, the command line or the embed code; download the table as CSV.
function wireActions() {
  $('copy-link').addEventListener('click', () => copied(location.href));
  $('copy-markdown').addEventListener('click', () => {
    if (page.report) copied(markdownTable(shown(), view, location.href));
  });
  $('download-csv').addEventListener('click', () => {
    const { report } = page;
    if (report) download(`vramfit-${report.model.id || 'model'}.csv`, new Blob([csvText({ ...shown(), gpus: tableReport().gpus }, view)], { type: 'text/csv' }));
  });
  $('copy-command').addEventListener('click', () => {
    if (page.report) copied(commandOf(shown()));
  });
  $('copy-embed').addEventListener('click', () => copied(dom.embedCode.value));
}

// Files dropped (a folder too), picked or pasted; "Back to the presets".
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
  dom.fileClear.addEventListener('click', clearFiles);
}
