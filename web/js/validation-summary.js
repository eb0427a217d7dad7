// Written by scripts/validation.mjs from tests/data/validation.json: what the page says beside the total's range, the median error per kind of figure.
export const validation = { rows: 52, median_error: 0.001, kinds: [
  { kind: 'file_size', rows: 16, median_error: 0.0008 },
  { kind: 'param_count', rows: 10, median_error: 0 },
  { kind: 'engine_log', rows: 23, median_error: 0.0036 },
  { kind: 'measured_peak', rows: 1, median_error: 0.0252 },
  { kind: 'paper', rows: 2, median_error: 0.0246 },
] };
