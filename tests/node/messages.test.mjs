// Every message id the core can write has a template in English and German on the page, with the same
// {parameters} as the core's English sentence. The ids are read from core/ itself (scripts/core-messages.mjs): each
// message("id", "English {param} …", …) call, its string literals joined as the compiler joins them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESSAGES, MESSAGE_PARTS, messageText } from '../../web/js/i18n/messages.js';
import { makeFormat } from '../../web/js/i18n/format.js';
import english from '../../web/js/i18n/messages/english.js';
import { coreMessages as readCore, paramsOf } from '../../scripts/core-messages.mjs';
import { englishTemplates } from '../../scripts/messages-en.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const coreMessages = () => {
  const read = readCore(root);
  assert.deepEqual(read.clashes, [], 'an id with other parameters in two places');
  return read;
};

test('every message() in core/ names its id and English sentence as literals', () => {
  const { found, dynamic } = coreMessages();
  assert.deepEqual(dynamic, [], 'message ids must be literals so this test can list them');
  assert.ok(found.size > 50, `only ${found.size} message ids found in core/: the pattern no longer matches the code`);
});

// The CLI's own words, which the page says with its controls instead: vramfit's flags (core/json/inputs.cpp) but
// those an engine has by the same name (vLLM's --max-num-seqs, SGLang's --mem-fraction-static, MLX's --model and
// --max-kv-size: a note quoting the engine keeps them), and the CLI's way to give a file.
const ENGINE_FLAGS = new Set(['--model', '--max-num-seqs', '--max-num-batched-tokens', '--enforce-eager', '--mem-fraction-static',
  '--max-total-tokens', '--max-kv-size', '--tp', '--pp', '--quant-config', '--params', '--mode', '--attention', '--kv-allocation',
  '--avg-tokens', '--expandable-segments', '--mmproj', '--language-model-only']);
function cliWords() {
  const table = readFileSync(join(root, 'core/json/inputs.cpp'), 'utf8');
  const flags = [...new Set([...table.matchAll(/\{"\w+", "(--[\w-]+)"/g)].map((m) => m[1]))].filter((f) => !ENGINE_FLAGS.has(f));
  assert.ok(flags.includes('--weights') && flags.includes('--engine'), 'the flags are no longer read from inputs.cpp');
  return new RegExp(`(?:${flags.join('|')})(?![\\w-])|pass its path`);
}

test('every id the core writes has a German template with its parameters, and an English one when it names bytes', () => {
  const { found } = coreMessages();
  const cli = cliWords();
  const missing = [];
  for (const [id, { params, where, english }] of found) {
    // English: only a text naming a byte count needs the page's own (GB or GiB), or one naming the CLI's flags (the
    // page names its control); the rest is the core's sentence.
    const langs = params.some((p) => p.endsWith('bytes')) || cli.test(english) ? ['en', 'de'] : ['de'];
    for (const lang of langs) {
      const template = MESSAGES[lang][id];
      if (template === undefined) { missing.push(`${lang} ${id} (${where})`); continue; }
      assert.deepEqual(paramsOf(template), params, `${lang} ${id}: parameters differ from the core's (${where})`);
    }
    if (!langs.includes('en')) assert.equal(MESSAGES.en[id], undefined, `en ${id}: names no byte count, so the core's English is shown`);
  }
  assert.deepEqual(missing, [], 'ids without a template');
});

test('the page\'s English templates are the core\'s English, made from core/ as it is now (scripts/messages-en.mjs)', () => {
  assert.deepEqual(english, englishTemplates(), 'web/js/i18n/messages/english.js is out of date: run node scripts/messages-en.mjs');
  // No English written twice: a template of the page's own is worded otherwise than the core's.
  const { found } = coreMessages();
  const copies = Object.keys(MESSAGE_PARTS).flatMap((name) => Object.entries(MESSAGE_PARTS[name].en))
    .filter(([id, template]) => found.get(id)?.english === template).map(([id]) => id);
  assert.deepEqual(copies, [], 'templates that copy the core\'s English: messages/english.js has them');
});

test('the page\'s templates name its controls, not the CLI\'s flags', () => {
  const cli = cliWords();
  for (const lang of ['en', 'de']) {
    const cliWorded = Object.entries(MESSAGES[lang]).filter(([, template]) => cli.test(template)).map(([id]) => id);
    assert.deepEqual(cliWorded, [], `${lang}: templates that tell a page user a CLI flag`);
  }
  // Not blind: the core's own English names them.
  assert.ok(coreMessages().found.get('llamacpp.gguf_for_checkpoint').english.match(cli));
});

test('no template on the page for an id the core does not write', () => {
  const { found } = coreMessages();
  for (const lang of ['en', 'de']) {
    const stale = Object.keys(MESSAGES[lang]).filter((id) => !found.has(id));
    assert.deepEqual(stale, [], `${lang}: templates for ids no longer in core/`);
  }
});

test('an id has its templates in one file of web/js/i18n only, in both languages there', () => {
  const home = new Map();
  for (const [name, part] of Object.entries(MESSAGE_PARTS)) {
    for (const id of Object.keys(part.en)) assert.ok(id in part.de, `${name}: ${id} has no German template beside its English one`);
    for (const id of Object.keys(part.de)) {
      assert.ok(!home.has(id), `${id} is in ${home.get(id)} and in ${name}`);
      home.set(id, name);
    }
  }
});

test('German templates are written with umlauts and ß, not ae/oe/ue/ss stand-ins', () => {
  const standIn = /\b(?:fuer|ueber|koenn|muess|groess|moeglich|waehl|naechst|haelt|laeuft|faellt|haengt|spaeter|zurueck|gross|schaetz|aender|zaehl|benoet|hoeh|groeß|ausser)\w*/i;
  for (const [id, template] of Object.entries(MESSAGES.de)) assert.doesNotMatch(template, standIn, id);
});

test('a figure of 10^15 and more is written with a power of ten, in the locale\'s digits', () => {
  // By hand: 433,116,413,952,000,000,000 FLOPs = 4.331 × 10^20; 9.99996e19 rounds up to 1.000 × 10^20.
  const saved = MESSAGES.de['test.example'];
  MESSAGES.de['test.example'] = '{flops} FLOPs';
  try {
    assert.equal(messageText('de', makeFormat('de-DE', 'GB'), { id: 'test.example', args: { flops: 433116413952000000000 }, text: 'x' }), '4,331e+20 FLOPs');
    assert.equal(messageText('de', makeFormat('de-DE', 'GB'), { id: 'test.example', args: { flops: 9.99996e19 }, text: 'x' }), '1e+20 FLOPs');
  } finally {
    if (saved === undefined) delete MESSAGES.de['test.example']; else MESSAGES.de['test.example'] = saved;
  }
});

test('args are formatted in the locale and unit: bytes in GB or GiB, counts with the locale\'s grouping', () => {
  const saved = MESSAGES.de['test.example'];
  MESSAGES.de['test.example'] = '{n} Schichten, {ram_bytes} im Arbeitsspeicher, Anteil {share}, {name}';
  try {
    const i18n = { id: 'test.example', args: { n: 12345, ram_bytes: 2_500_000_000, share: 0.92, name: 'RTX 4090' } };
    assert.equal(messageText('de', makeFormat('de-DE', 'GB'), { ...i18n, text: 'English' }),
      '12.345 Schichten, 2,50 GB im Arbeitsspeicher, Anteil 0,92, RTX 4090');
    assert.equal(messageText('de', makeFormat('de-DE', 'GiB'), { ...i18n, text: 'English' }),
      '12.345 Schichten, 2,33 GiB im Arbeitsspeicher, Anteil 0,92, RTX 4090');
    assert.equal(messageText('de', makeFormat('de-DE', 'GB'), { id: 'no.such', args: {}, text: 'English' }), 'English');
    assert.equal(messageText('de', makeFormat('de-DE', 'GB'), { id: '', args: {}, text: 'Plain' }), 'Plain');
  } finally {
    if (saved === undefined) delete MESSAGES.de['test.example']; else MESSAGES.de['test.example'] = saved;
  }
});

test('a range whose two ends read the same in the page\'s digits is one figure, as in the core\'s English', () => {
  const saved = MESSAGES.de['test.example'];
  MESSAGES.de['test.example'] = 'mit {low}–{high} Tokens/s';
  try {
    const f = makeFormat('de-DE', 'GB');
    // 5.21 and 5.24 both read "5,2" at one decimal (f.number(x, 3) keeps three: 5,21 and 5,24 differ).
    assert.equal(messageText('de', f, { id: 'test.example', args: { low: 5.2, high: 5.2 }, text: 'x' }), 'mit 5,2 Tokens/s');
    assert.equal(messageText('de', f, { id: 'test.example', args: { low: 5.2, high: 5.3 }, text: 'x' }), 'mit 5,2–5,3 Tokens/s');
  } finally {
    if (saved === undefined) delete MESSAGES.de['test.example']; else MESSAGES.de['test.example'] = saved;
  }
});
