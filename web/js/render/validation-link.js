// Beside the total's range: how many published figures vramfit is checked against and the span of the median errors
// of the kinds of figure, each kind in the title (file sizes and parameter counts are near exact, engine logs and
// measured peaks are not, so one median over all of them would mislead), linking the table (validation.html,
// written from tests/data/validation.json by scripts/validation.mjs).
import { validation } from '../validation-summary.js';

export function showValidationLink(link, { t, f }) {
  if (!link) return;
  const medians = validation.kinds.map((k) => k.median_error);
  const range = `${f.share(Math.min(...medians), 1)}–${f.share(Math.max(...medians), 1)}`;
  link.textContent = t('validation.link', { n: f.count(validation.rows), range });
  link.title = validation.kinds.map((k) => t(`validation.kind_rows.${k.kind}`,
    { n: f.count(k.rows), median: f.share(k.median_error, 1) })).join('\n');
}
