// The German templates use the one word docs/glossary-de.md gives for each term: a variant it rules out fails here,
// with the template's id (or the page text's key) and the word to use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESSAGES } from '../../web/js/i18n/messages.js';
import { TEXTS } from '../../web/js/i18n/i18n.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

// The glossary's table: | English | German | Ruled out (`regex`, …) | Why |.
function glossary() {
  const rows = readFileSync(join(root, 'docs/glossary-de.md'), 'utf8').split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| English') && !/^\|[-| ]+\|$/.test(line));
  return rows.map((line) => {
    const [english, german, ruledOut] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
    return { english, german, ruledOut: [...ruledOut.matchAll(/`([^`]+)`/g)].map((m) => new RegExp(m[1])) };
  });
}

const germanTexts = () => [
  ...Object.entries(MESSAGES.de).map(([id, text]) => [`messages ${id}`, text]),
  ...Object.entries(TEXTS.de).map(([key, text]) => [`i18n ${key}`, text]),
];

test('the glossary lists terms, each with the variants it rules out', () => {
  const terms = glossary();
  assert.ok(terms.length >= 10, `only ${terms.length} rows read from docs/glossary-de.md`);
  for (const t of terms) assert.ok(t.ruledOut.length > 0, `${t.english}: no variant ruled out`);
  assert.ok(germanTexts().length > 500, 'the German texts are no longer read');
});

test('no German template uses a variant the glossary rules out', () => {
  const found = [];
  for (const [where, text] of germanTexts()) {
    if (typeof text !== 'string') continue;
    for (const t of glossary()) {
      for (const pattern of t.ruledOut) {
        const m = text.match(pattern);
        if (m) found.push(`${where}: "${m[0]}" (use ${t.german} for ${t.english})`);
      }
    }
  }
  assert.deepEqual(found, []);
});

test('the check is not blind: a ruled-out variant in a text is found', () => {
  const hits = (text) => glossary().some((t) => t.ruledOut.some((p) => p.test(text)));
  assert.equal(hits('Die Optimizer-States liegen im Arbeitsspeicher'), true);
  assert.equal(hits('{n} Schicht(en) auf der GPU'), true);
  assert.equal(hits('Die Optimiererzustände liegen im Arbeitsspeicher'), false);
});
