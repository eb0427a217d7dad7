// Reading files the person drops, picks or a Hub repository serves: which kind each is, a dropped folder's
// files, and a model file's header, read only as far as the core asks.
import { page, view } from './store.js';
import { inFolder, configName } from '../checkpoint.js';

// config.json by drop, picker or paste is read as text; a .gguf or .safetensors only by its header: the core
// says how many leading bytes it needs (File.slice), never the tensor data. A sharded checkpoint is several
// .safetensors files, optionally with model.safetensors.index.json and config.json, in one drop or pick:
// each shard starts with its 8-byte header length and grows to the prefix the core asks for.
const MAX_HEADER_BYTES = 256 * 2 ** 20;
export const MAX_CONFIG_BYTES = 4_000_000;
const headerTooBig = () => ({ ok: false, error: { field: 'file', message: view.t('file.headerTooBig') } });
const prefixOf = async (file, bytes) => new Uint8Array(await file.slice(0, Math.min(file.size, bytes)).arrayBuffer());
const grows = (answer, have) => answer.need_prefix_bytes <= MAX_HEADER_BYTES && answer.need_prefix_bytes > have;

// The header reads ask with an empty request: a config.json's own problems show through update(), naming it.
async function readHeader(file) {
  let bytes = await prefixOf(file, 65536);
  for (;;) {
    const answer = page.calculator.answerFile(bytes, file.size, file.name, {});
    if (!answer.ok || !answer.need_prefix_bytes) return { bytes, answer };
    if (!grows(answer, bytes.length)) return { bytes, answer: headerTooBig() };
    bytes = await prefixOf(file, answer.need_prefix_bytes);
  }
}

async function readShards(files, index, progress) {
  const shards = await Promise.all(files.map(async (file) => ({ name: file.name, size: file.size, bytes: await prefixOf(file, 8) })));
  const read = new Set();
  for (;;) {
    const answer = page.calculator.answerShards(shards, index, {});
    if (!answer.ok || !answer.need_prefix_bytes) return { shards, answer };
    const shard = shards[answer.need_file];
    if (!shard || !grows(answer, shard.bytes.length)) return { shards, answer: headerTooBig() };
    shard.bytes = await prefixOf(files[answer.need_file], answer.need_prefix_bytes);
    read.add(answer.need_file);
    progress(read.size);
  }
}

// One drop or pick, sorted by kind: a .gguf, .safetensors shards, the index, a config.json and NVIDIA ModelOpt's
// hf_quant_config.json. Answers them by kind, or {refused: () => the message that refuses the set}.
const kindOf = (name) => (/\.gguf$/i.test(name) ? 'gguf' : /\.safetensors$/i.test(name) ? 'shards'
  : /\.index\.json$/i.test(name) ? 'index' : /(^|[-_])hf_quant_config\.json$/i.test(name) ? 'quant'
    : /\.json$/i.test(name) ? 'config' : null);
function sortFiles(files) {
  const kinds = { gguf: [], shards: [], index: [], config: [], quant: [] };
  for (const file of files) {
    const kind = kindOf(file.name);
    if (!kind) return { refused: () => view.t('file.unknown', { name: file.name }) };
    kinds[kind].push(file);
  }
  const { gguf, shards, index, config: configs, quant } = kinds;
  const several = index.length > 1 || configs.length > 1 || quant.length > 1;
  if (several || (gguf.length && (shards.length || index.length))) return { refused: () => view.t('file.mixed') };
  if (index.length && !shards.length) return { refused: () => view.t('file.indexAlone', { name: index[0].name }) };
  if (quant.length && !configs.length) return { refused: () => view.t('file.quantAlone', { name: quant[0].name }) };
  const tooBig = [...index, ...configs, ...quant].find((f) => f.size > MAX_CONFIG_BYTES);
  if (tooBig) return { refused: () => view.t('file.tooBig', { name: tooBig.name }) };
  // The parts of a split GGUF (…-00001-of-00003.gguf) are read as one model, in the order of their names.
  gguf.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { gguf, shards, index: index[0], config: configs[0], quant: quant[0] };
}

// A dropped folder (a checkpoint as downloaded): the files in it the page reads, the tokenizer and the rest
// passed over. Browsers without folder entries hand over the files alone.
const folderFile = (name) => kindOf(name) && (kindOf(name) !== 'config' || name === 'config.json');
export async function droppedFiles(transfer) {
  const entries = [...(transfer?.items ?? [])].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.some((entry) => entry.isDirectory)) return [...(transfer?.files ?? [])];
  const files = [];
  const visit = async (entry, depth) => {
    if (entry.isFile) {
      if (folderFile(entry.name)) files.push(inFolder(await new Promise((ok, fail) => entry.file(ok, fail)), entry));
    } else if (entry.isDirectory && depth < 2) {
      const reader = entry.createReader();
      for (let batch = await new Promise((ok, fail) => reader.readEntries(ok, fail)); batch.length;
        batch = await new Promise((ok, fail) => reader.readEntries(ok, fail))) {
        for (const child of batch) await visit(child, depth + 1);
      }
    }
  };
  for (const entry of entries) await visit(entry, 0);
  return files;
}

/**
 * An error whose message may be the page's own refusal of a file (a function giving it in the language shown, kept
 * in the page's state as such) as the answer flow shows it: its message in the language shown now.
 */
export function errorShown(error) {
  return typeof error?.message === 'function' ? { ...error, message: error.message() } : error;
}

// One set of files, dropped, picked or a Hub repository's, read as the page reads a drop: {ok: true, config,
// loaded, status}, or {refused} (a set the page does not read) or {failed} (the core's word on a header); status,
// refused and failed are functions giving the text in the language shown.
// `progress(total)` gives the reading's progress line ({step(n), stop()}).
export async function readFiles(files, progress) {
  const sorted = sortFiles(files);
  if (sorted.refused) return { refused: sorted.refused };
  const parts = sorted.gguf.length > 0 ? sorted.gguf : sorted.shards;
  const single = parts.length === 1 && !sorted.index ? parts[0] : null;
  const several = !single && parts.length > 0;
  const newConfig = sorted.config ? { text: await sorted.config.text(), name: sorted.config.name, checkpoint: configName(sorted.config) } : null;
  if (newConfig && sorted.quant) Object.assign(newConfig, { quant: await sorted.quant.text(), quantName: sorted.quant.name });
  const extras = [sorted.index, sorted.config, sorted.quant].filter(Boolean).map((f) => ` + ${f.name}`).join('');
  let loaded = null;
  let status;
  if (single || several) {
    const line = progress(parts.length);
    const index = sorted.index ? await sorted.index.text() : '';
    let read;
    try {
      read = single ? await readHeader(single) : await readShards(parts, index, line.step);
    } finally {
      line.stop();
    }
    if (!read.answer.ok) {
      // A set's error field names the part or the index entry at fault.
      const { field, message } = read.answer.error;
      return { failed: () => `${single ? single.name : field}: ${view.t.message(message, view.f)}` };
    }
    if (single) {
      loaded = { bytes: read.bytes, size: single.size, name: single.name };
      status = () => view.t('file.header', { name: single.name + extras, bytes: view.f.count(read.bytes.length) });
    } else {
      const bytes = read.shards.reduce((sum, shard) => sum + shard.bytes.length, 0);
      loaded = { shards: read.shards, index, name: parts[0].name };
      status = () => view.t(sorted.gguf.length ? 'file.parts' : 'file.shards', { count: view.f.count(parts.length), extras, bytes: view.f.count(bytes) });
    }
  } else {
    status = () => view.t('file.loaded', { name: newConfig.quant ? `${newConfig.name} + ${newConfig.quantName}` : newConfig.name });
  }
  return { ok: true, config: newConfig, loaded, status };
}
