// Written by scripts/validation.mjs from tests/data/validation.json: what the page says beside the total's range.
export const validation = { rows: 51, median_error: 0.001 };
