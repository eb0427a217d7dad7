// Beside the total's range: how many published measurements vramfit is checked against and its median error,
// linking the table (validation.html, written from tests/data/validation.json by scripts/validation.mjs).
import { validation } from '../validation-summary.js';

export function showValidationLink(link, { t, f }) {
  if (!link) return;
  link.textContent = t('validation.link', { n: f.count(validation.rows), median: f.share(validation.median_error, 1) });
}
