// docs/validation.md and web/js/validation-summary.js are what scripts/validation.mjs writes from
// tests/data/validation.json with the native CLI: edit the rows, then run the script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { generate } from '../../scripts/validation.mjs';

const root = new URL('../../', import.meta.url);
const cli = new URL('build/native/cli/vramfit', root).pathname;

test('the committed validation page and summary are the rows as vramfit answers them now', { skip: !existsSync(cli) && 'no native CLI' }, () => {
  const { result, markdown, summary, html } = generate(cli);
  assert.equal(readFileSync(new URL('docs/validation.md', root), 'utf8'), markdown,
    'docs/validation.md is stale: run node scripts/validation.mjs');
  assert.equal(readFileSync(new URL('web/js/validation-summary.js', root), 'utf8'), summary,
    'web/js/validation-summary.js is stale: run node scripts/validation.mjs');
  assert.ok(result.rows.length >= 40);
  // A known miss stays outside its tolerance and says why beside its error; every other row is within.
  for (const r of result.rows) {
    assert.equal(Math.abs(r.error) <= r.tolerance + 1e-9, !r.known_miss, `${r.id}: ${r.error}`);
    if (r.known_miss) assert.ok(Math.abs(r.error) <= 2 * r.tolerance, `${r.id}: a known miss beyond twice its tolerance`);
    if (r.known_miss) assert.ok(markdown.includes(`(known miss: ${r.known_miss})`), r.id);
  }
  // Every group says its median and worst error; the page links every source.
  for (const g of result.groups) assert.ok(markdown.includes(`${g.rows.length} rows, median error`));
  for (const r of result.rows) assert.ok(html.includes(r.source.url.replaceAll('&', '&amp;')), r.id);
});
