// Beside the total's range: how many published measurements vramfit is checked against and the median error of each
// kind of figure (file sizes and parameter counts are near exact, engine logs and measured peaks are not, so one
// median over all of them would mislead), linking the table (validation.html, written from
// tests/data/validation.json by scripts/validation.mjs).
import { validation } from '../validation-summary.js';

export function showValidationLink(link, { t, f }) {
  if (!link) return;
  const kinds = validation.kinds.map((k) => t(`validation.kind.${k.kind}`, { median: f.share(k.median_error, 1) }));
  link.textContent = t('validation.link', { n: f.count(validation.rows), kinds: kinds.join(', ') });
  link.title = validation.kinds.map((k) => t(`validation.kind_rows.${k.kind}`,
    { n: f.count(k.rows), median: f.share(k.median_error, 1) })).join('\n');
}
