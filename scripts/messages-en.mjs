// Writes web/js/i18n/messages/english.js: the core's English sentence for each message that names a byte count,
// which the page renders itself (in GB or GiB) and so needs as a template. The English is written once, in core/;
// scripts/build.sh runs this before the page is bundled, and tests/node/messages.test.mjs fails when the file is
// missing or out of date. A template the page words otherwise (its controls for the CLI's flags) is in messages.js.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreMessages, namesBytes } from './core-messages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const englishFile = path.join(root, 'web/js/i18n/messages/english.js');

/** {id: English} for every message of core/ that names a byte count, sorted by id. */
export function englishTemplates() {
  const { found } = coreMessages(root);
  return Object.fromEntries([...found].filter(([, m]) => namesBytes(m)).map(([id, m]) => [id, m.english])
    .sort(([a], [b]) => (a < b ? -1 : 1)));
}

export const englishSource = (templates) => '// Made by scripts/messages-en.mjs from core/: do not edit (../messages.js).\n'
  + `export default ${JSON.stringify(templates, null, 2)};\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const templates = englishTemplates();
  writeFileSync(englishFile, englishSource(templates));
  console.log(`messages-en: ${Object.keys(templates).length} English templates from core/`);
}
