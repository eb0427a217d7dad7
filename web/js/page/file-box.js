// The file box: the files dropped, picked or pasted that stand in for a preset, what it says about them, and
// "Back to the presets". Reading them is page/files.js's.
import { dom } from './dom.js';
import { page, view, TRAINING_ALIASES } from './store.js';
import { readFiles, MAX_CONFIG_BYTES } from './files.js';
import { withQuantConfig } from '../checkpoint.js';
import { forgetHub } from './hub-box.js';
import { update } from './answer.js';

// "Reading headers… N of M" in the status line once reading takes longer than a moment.
function progressLine(total) {
  let line = view.t('file.reading', { n: view.f.count(0), m: view.f.count(total) });
  let shown = false;
  const timer = setTimeout(() => { shown = true; dom.fileStatus.textContent = line; }, 150);
  return {
    step(n) {
      line = view.t('file.reading', { n: view.f.count(n), m: view.f.count(total) });
      if (shown) dom.fileStatus.textContent = line;
    },
    stop() { clearTimeout(timer); },
  };
}

// A model file keeps a config.json loaded before it (safetensors takes its architecture from there);
// a config.json alone replaces whatever was loaded.
export function useRead(read, { replace = false } = {}) {
  if (read.config || replace) page.config = read.config;
  page.modelFile = read.loaded ? { ...read.loaded, weightsChosen: false } : null;
}

/** No files in use, and the box says nothing. */
export function dropFiles() {
  Object.assign(page, { config: null, modelFile: null, fileNote: null, fileProblem: null });
  dom.file.value = '';
  dom.fileStatus.textContent = '';
  dom.fileClear.hidden = true;
}

export function forgetFiles() {
  if (page.hub?.phase === 'loaded') forgetHub();
  dropFiles();
}

// "Back to the presets".
export function clearFiles() {
  ++page.takes;
  ++page.drops;
  forgetFiles();
  update();
}

const namesOf = (files) => (files.length > 3 ? `${files.slice(0, 3).map((f) => f.name).join(', ')}, …`
  : files.map((f) => f.name).join(', '));

export async function takeFiles(list) {
  const files = [...(list ?? [])];
  if (files.length === 0) return;
  const turn = ++page.drops;
  // A lone hf_quant_config.json joins a config.json dropped or picked alone before it (checkpoint.js).
  const completed = await withQuantConfig(files, page.hub?.phase === 'loaded' || page.modelFile ? null : page.config, MAX_CONFIG_BYTES);
  const read = completed ? { ok: true, config: completed, status: () => view.t('file.loaded', { name: `${completed.name} + ${completed.quantName}` }) }
    : await readFiles(files, (total) => progressLine(total));
  if (turn !== page.drops) return;
  ++page.takes;
  forgetHub();  // the files stand in for a repository looked up before
  // Read or refused, the new files replace the last ones: neither their answer nor their error stays.
  const name = namesOf(files);
  if (read.ok) {
    useRead(read);
    page.fileProblem = null;
    page.fileNote = { name, status: read.status };
  } else {
    page.config = null;
    page.modelFile = null;
    page.fileProblem = { name, message: read.refused ?? read.failed };
    page.fileNote = null;
  }
  dom.fileClear.hidden = false;
  update();
}

export function usePasted() {
  const text = dom.pasteText.value.trim();
  if (text === '') {
    dom.fileStatus.textContent = view.t('paste.empty');
    return;
  }
  if (text.length > MAX_CONFIG_BYTES) {
    dom.fileStatus.textContent = view.t('file.tooBig', { name: 'config.json' });
    return;
  }
  ++page.takes;
  ++page.drops;
  forgetHub();
  page.config = { text, name: 'config.json', pasted: true };
  page.modelFile = null;
  page.fileNote = { name: 'config.json', status: () => view.t('file.pasted') };
  page.fileProblem = null;
  dom.file.value = '';
  dom.fileStatus.textContent = view.t('file.pasted');
  dom.fileClear.hidden = false;
  update();
}

// The page's own keys and the inputs it has a control for; an error about anything else (the config.json, a
// shard, the index) is about the files in use.
const PAGE_KEYS = new Set(['mode', 'ft', 'gpu2', 'gpus2']);
const aboutFiles = (field) => {
  const key = page.codec.urlKey(TRAINING_ALIASES[field] ?? field);
  return field === 'file' || field === 'model' || (!key && !PAGE_KEYS.has(field));
};

// The file box says which files are in use, or that they are not: the reason stands beside the headline and
// at the field. `failed`: the current error, or null.
export function showFileStatus(failed) {
  const { fileProblem, fileNote } = page;
  if (fileProblem) {
    dom.fileStatus.textContent = view.t('file.notUsed', { name: fileProblem.name });
  } else if (fileNote && (page.config || page.modelFile) && page.hub?.phase !== 'loaded') {
    dom.fileStatus.textContent = failed && aboutFiles(failed.field) ? view.t('file.notUsed', { name: fileNote.name }) : fileNote.status();
  }
}
