// A checkpoint read whole or asked for. An NVIDIA checkpoint's config.json often names no quantization: its
// format is in the hf_quant_config.json beside it. The core counts such a config.json alone as bf16 and names the
// file it lacks in the answer's missing_files (its note says why); the page asks for that file by the file drop,
// and a lone hf_quant_config.json dropped next joins the config.json loaded before it.

const QUANT_CONFIG = 'hf_quant_config.json';
const isQuantConfig = (name) => /(^|[-_])hf_quant_config\.json$/i.test(name);
const folders = new WeakMap();  // a file dropped inside a folder → that folder's name

/** A file read from a dropped folder keeps the folder's name: a checkpoint folder is named after its repository. */
export function inFolder(file, entry) {
  const parts = String(entry?.fullPath ?? '').split('/').filter(Boolean);
  if (parts.length > 1) folders.set(file, parts[parts.length - 2]);
  return file;
}

/** The request's config_name for a dropped config.json: its own name, or for a plain config.json its folder's ('' when
 * dropped alone). */
export const configName = (file) => (file.name === 'config.json' ? folders.get(file) ?? '' : file.name);

/**
 * A lone hf_quant_config.json (at most `maxBytes`) dropped onto a loaded config.json: that config with it, read;
 * null for any other drop.
 */
export async function withQuantConfig(files, config, maxBytes) {
  const [file, ...others] = files;
  if (!config || config.pasted || others.length > 0 || !isQuantConfig(file?.name ?? '') || file.size > maxBytes) return null;
  return { ...config, quant: await file.text(), quantName: file.name };
}

/** The prompt by the file drop while the answer counts the weights as bf16 for want of hf_quant_config.json. */
export function showCheckpointAsk(node, answer, t) {
  const asked = answer?.ok && (answer.missing_files ?? []).includes(QUANT_CONFIG);
  node.hidden = !asked;
  if (!asked) return;
  const note = answer.notes?.find((n) => n.id === 'import.quant_config_missing');
  node.textContent = t('checkpoint.quantConfig', { format: note?.args.format ?? 'FP8 / NVFP4' });
}
