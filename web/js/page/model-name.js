// What a typed model name names: a preset by any of its names, or one of its Ollama tags.
import { page } from './store.js';

// The core's rule (find_model): id, name, Hugging Face repo or Ollama tag, letters and digits only, any case.
const searchKey = (text) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
export const presetFor = (text) => {
  const needle = searchKey(text);
  if (needle === '') return undefined;
  return page.calculator.catalog.models.find((m) => [m.id, m.name, m.hf_repo, ...m.ollama].some((k) => searchKey(k) === needle));
};

// The core's rule (resolve_model): one of the preset's Ollama tags written as Ollama writes it ("llama3.1:8b", a
// bare library name being its tag latest) names what Ollama runs, and stays the model as typed; its id wins.
const withTag = (name) => (name.includes(':') ? name : `${name}:latest`);
export const presetModel = (text, preset) => {
  const typed = text.trim().toLowerCase();
  const tagged = typed !== preset.id.toLowerCase() && preset.ollama.some((tag) => withTag(tag.toLowerCase()) === withTag(typed));
  return tagged ? text.trim() : preset.id;
};

export const isPresetId = (id) => page.calculator.catalog.models.some((m) => m.id === id);
export const presetById = (id) => page.calculator.catalog.models.find((m) => m.id === id);
