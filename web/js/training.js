// The fine-tune and train controls and what a training report adds to the summary. The choices are the
// core's own spellings (core/memory/training.cpp, activations.cpp, parallelism.cpp); the core checks them and
// names the field if one is wrong. Nothing here computes: every figure is the report's.
import { el } from './view.js';

export const TRAINING_CHOICES = {
  optimizer: ['adamw', 'adamw-8bit', 'paged-adamw', 'paged-adamw-8bit', 'sgd', 'sgd-momentum', 'adafactor', 'lion'],
  precision: ['mixed-bf16', 'mixed-fp16', 'bf16', 'fp32'],
  checkpointing: ['none', 'selective', 'full'],
  flash: ['on', 'off'],
  zero: ['0', '1', '2', '3'],
  offload: ['none', 'optimizer', 'params', 'nvme'],
};

/** The value a control shows: the state's choice, else what the core used (report.inputs). */
export function resolvedChoice(key, state, report) {
  // The state's own spelling when the control offers it; else (an alias such as adam for adamw) the core's.
  if (state[key] !== '' && (!TRAINING_CHOICES[key] || TRAINING_CHOICES[key].includes(String(state[key])))) return String(state[key]);
  const inputs = report?.inputs;
  if (!inputs || inputs.mode === undefined) return '';
  if (key === 'flash') return inputs.flash_attention ? 'on' : 'off';
  if (key === 'rank') return inputs.lora_rank ?? '';
  return inputs[key] === undefined || inputs[key] === null ? '' : String(inputs[key]);
}

export function fillTrainingSelects(selects, t) {
  for (const [key, values] of Object.entries(TRAINING_CHOICES)) {
    const select = selects[key];
    const keep = select.value;
    select.replaceChildren(...values.map((v) => el('option', { value: v, text: t(`${key}.${v}`) })));
    select.value = keep;
  }
}

/** Host RAM, NVMe, trainable parameters, the gradient convention, the offload slowdown and the time. */
export function trainingFacts(report, t, f) {
  const parts = [t('train.trainable', { n: f.billions(report.trainable_params) })];
  if (report.host_ram_bytes > 0) parts.push(t('train.host', { bytes: f.bytes(report.host_ram_bytes) }));
  if (report.nvme_bytes > 0) parts.push(t('train.nvme', { bytes: f.bytes(report.nvme_bytes) }));
  const s = report.slowdown;
  if (s && Number.isFinite(s.min) && Number.isFinite(s.max) && s.max > 1) {
    parts.push(t('train.slowdown', { low: f.share(s.min - 1, 1), high: f.share(s.max - 1, 1) }));
  }
  if (report.inputs.gpus > 1) parts.push(t('train.perGpu', { n: f.count(report.inputs.gpus) }));
  const time = report.time;
  if (time && Number.isFinite(time.gpu_hours)) {
    // A range only where offloading makes one; otherwise the one figure.
    const range = (key, low, high) => (low === high ? t(`${key}.one`, { value: low }) : t(key, { low, high }));
    parts.push(range('train.hours', f.number(time.gpu_hours, 1), f.number(time.gpu_hours_max, 1)));
    if (Number.isFinite(time.usd)) parts.push(range('train.cost', f.number(time.usd, 0), f.number(time.usd_max, 0)));
  }
  return parts.join(' · ');
}
