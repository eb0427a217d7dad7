// What a training report adds to the summary. Nothing here computes: every figure is the report's.

/** Host RAM, NVMe, trainable parameters, the gradient convention, the offload slowdown and the time. */
export function trainingFacts(report, t, f) {
  const parts = [t('train.trainable', { n: f.billions(report.trainable_params) })];
  if (report.host_ram_bytes > 0) parts.push(t('train.host', { bytes: f.bytes(report.host_ram_bytes) }));
  if (report.nvme_bytes > 0) parts.push(t('train.nvme', { bytes: f.bytes(report.nvme_bytes) }));
  // A range only where its two ends read differently; otherwise the one figure.
  const range = (key, low, high) => (low === high ? t(`${key}.one`, { value: low }) : t(key, { low, high }));
  const s = report.slowdown;
  if (s && Number.isFinite(s.min) && Number.isFinite(s.max) && s.max > 1) {
    parts.push(range('train.slowdown', f.share(s.min - 1, 1), f.share(s.max - 1, 1)));
  }
  if (report.inputs.gpus > 1) parts.push(t('train.perGpu', { n: f.count(report.inputs.gpus) }));
  const time = report.time;
  if (time && Number.isFinite(time.gpu_hours)) {
    parts.push(range('train.hours', f.number(time.gpu_hours, 1), f.number(time.gpu_hours_max, 1)));
    if (Number.isFinite(time.usd)) parts.push(range('train.cost', f.number(time.usd, 0), f.number(time.usd_max, 0)));
  }
  return parts.join(' · ');
}
