// Issue 31: a draft model named by its Hugging Face repository under "Also on this GPU", looked up only when the
// person asks, as the main model's box does. The Hub is the local stand-in of tests/hub/server.mjs behind Playwright
// routes (hub-routes.mjs): nothing leaves the machine. vramfit-test/qwen3-0.6b-draft holds Qwen3-0.6B's tensors as
// its config.json implies (tests/hub/README.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, newPage, root } from './helpers.mjs';
import { startHub } from '../hub/server.mjs';
import { routeHub, CDN, HUB_HOSTS } from './hub-routes.mjs';

let session;
let hub;
before(async () => {
  session = await openBrowser();
  hub = await startHub({ cdnOrigin: CDN });
});
after(async () => {
  await hub?.close();
  await session?.close();
});

const SCENARIO = '?model=qwen3-8b&engine=llamacpp&weights=q8_0&context=4096';
const draftCell = (page) => page.locator('tr[data-line="draft"] td').first().textContent();

async function open(query) {
  const { page, problems } = await newPage(session);
  const seen = await routeHub(page.context(), hub);
  await page.goto(`${session.base}/${query}`);
  return { page, problems, seen };
}

test('a draft by Hub id: nothing is asked until the lookup, then it weighs what the preset weighs', async () => {
  // The preset's line first: llama.cpp drafts in the format given for the model, Q8_0 here, as the repository's file
  // holds it (468,189,176 B on the GPU: tests/node/lookup-draft-cli.test.mjs works it out by hand).
  const preset = await open(`${SCENARIO}&draft=qwen3-0.6b`);
  await preset.page.locator('#summary').waitFor({ state: 'visible' });
  const presetLine = await draftCell(preset.page);

  const { page, problems, seen } = await open(SCENARIO);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  // What is said before anything is sent: only the name goes to huggingface.co, and only on the button.
  assert.match(await page.locator('#draft-hub-status').textContent(), /looked up on Hugging Face only when you press the button.*Nothing else you enter leaves this browser/);
  await page.locator('#draft-repo').fill('vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  assert.deepEqual(seen, []);
  await page.locator('#draft-lookup').click();
  await page.waitForFunction(() => document.querySelector('#draft-hub-status').textContent.startsWith('Read from huggingface.co/'), null, { timeout: 45_000 });
  await page.locator('tr[data-line="draft"]').waitFor();
  assert.equal(await draftCell(page), presetLine);
  assert.equal(new URL(page.url()).searchParams.get('draft'), 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  assert.equal(await page.locator('#draft').inputValue(), 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  // Only the listing and the header were read, by ranges: the file's 636,290,432 B are never asked for.
  assert.ok(seen.length > 0 && seen.every((s) => HUB_HOSTS.test(s.url)));
  const reads = seen.filter((s) => s.url.includes('.gguf') || s.url.startsWith(CDN));
  assert.ok(reads.length > 0 && reads.every((s) => /^bytes=\d+-\d+$/.test(s.range ?? '')), JSON.stringify(reads));
  const asked = reads.filter((s) => s.url.startsWith(CDN)).reduce((sum, s) => {
    const [, from, to] = /^bytes=(\d+)-(\d+)$/.exec(s.range);
    return sum + Number(to) - Number(from) + 1;
  }, 0);
  assert.ok(asked < 16 * 2 ** 20, `${asked} B asked`);

  // A link carrying the name offers the lookup again and shows no figure for a draft not read.
  const again = await open(new URL(page.url()).search);
  await again.page.waitForFunction(() => /look it up under Draft model/.test(document.body.textContent));
  assert.equal(await again.page.locator('#draft-repo').inputValue(), 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  assert.deepEqual(again.seen, []);
  assert.deepEqual(problems.filter((p) => !(p.startsWith('foreign request: ') && HUB_HOSTS.test(p.slice(17)))), []);
  assert.deepEqual(preset.problems, []);
});

test('the draft\'s Hub box in German', async () => {
  const { page, problems } = await newPage(session);
  await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
  await page.goto(`${session.base}/${SCENARIO}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  assert.match(await page.locator('#draft-hub-status').textContent(), /erst auf Hugging Face nachgeschlagen, wenn Sie die Schaltfläche drücken/);
  assert.match(await page.locator('label[for="draft-repo"]').textContent(), /^Oder ein Modell auf Hugging Face/);
  assert.deepEqual(problems, []);
});

test('another model by Hub id, with its context: its line is the preset\'s for the same model', async () => {
  const lineOf = (page, key) => page.locator(`tr[data-line="${key}"] td`).first().textContent();
  const VLLM = '?model=qwen3-8b&engine=vllm&gpu=h100-sxm&context=8192';
  const preset = await open(`${VLLM}&also=qwen3-0.6b%404096`);
  await preset.page.locator('tr[data-line="other_model:qwen3-0.6b@4096"]').waitFor();
  const presetLine = await lineOf(preset.page, 'other_model:qwen3-0.6b@4096');

  const { page, problems, seen } = await open(VLLM);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('[data-testid="also-add-hub"]').click();
  assert.match(await page.locator('[data-testid="also-hub-status"]').textContent(), /Nothing else you enter leaves this browser/);
  await page.locator('[data-testid="also-context"]').last().fill('4096');
  await page.locator('[data-testid="also-context"]').last().dispatchEvent('change');
  await page.locator('[data-testid="also-hub-name"]').fill('vramfit-test/qwen3-0.6b-draft');
  assert.deepEqual(seen, []);
  await page.locator('[data-testid="also-hub-lookup"]').click();
  const key = 'other_model:vramfit-test/qwen3-0.6b-draft@4096';
  await page.locator(`tr[data-line="${key}"]`).waitFor({ timeout: 45_000 });
  // The same config.json as the preset's, its BF16 tensors as the config implies (tests/hub/README.md): vLLM starts it
  // with the same share of the GPU.
  assert.equal(await lineOf(page, key), presetLine);
  assert.equal(new URL(page.url()).searchParams.get('also'), 'vramfit-test/qwen3-0.6b-draft@4096');
  assert.ok(seen.every((s) => HUB_HOSTS.test(s.url)));
  assert.deepEqual(problems.filter((p) => !(p.startsWith('foreign request: ') && HUB_HOSTS.test(p.slice(17)))), []);
  assert.deepEqual(preset.problems, []);
});

test('a draft\'s own config.json, picked here: read in this browser, as heavy as the preset', async () => {
  const preset = await open(`${SCENARIO}&draft=qwen3-0.6b`);
  await preset.page.locator('#summary').waitFor({ state: 'visible' });
  const presetLine = await draftCell(preset.page);
  const { page, problems, seen } = await open(SCENARIO);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  // Qwen3-0.6B's own config.json (tests/hub/fixtures): llama.cpp drafts it in the model's format, as the preset.
  await page.locator('#draft-file').setInputFiles(path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json'));
  await page.locator('tr[data-line="draft"]').waitFor();
  assert.equal(await draftCell(page), presetLine);
  assert.match(await page.locator('#draft-hub-status').textContent(), /^config\.json was read in this browser .*nothing was sent/);
  assert.deepEqual(seen, []);
  // A file picked here stays in this browser, its name too: neither the link nor the embed code names it.
  assert.equal(new URL(page.url()).searchParams.get('draft'), null);
  assert.doesNotMatch(await page.locator('#embed-code').inputValue(), /config\.json|draft=/);
  // A link that names a file by hand: the page asks for it rather than guess.
  const again = await open(`${SCENARIO}&draft=draft.gguf`);
  await again.page.waitForFunction(() => /pick it again under Draft model/.test(document.body.textContent));
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});
