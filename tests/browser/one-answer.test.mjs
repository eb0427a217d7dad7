// What the page does with what people give it, in English and German at 1280 and 375 px: what people type is
// what the page uses, or an error at the field (1); each new file replaces the last one's answer or error (6); the
// embed shows a way on when the calculator cannot load on another site (7); the narrow and wide layouts keep every
// figure and word whole (8).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { openBrowser, newPage, openInWatchingShifts, brokenWords, cutSelects, wrappedPills, chartProblems, hiddenKeyColumns,
  KEY_COLUMNS } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const answered = (page) => page.locator('#summary').waitFor({ state: 'visible' });
const failed = (page) => page.locator('#result-error').waitFor({ state: 'visible' });
const kvCell = (page) => page.locator('#breakdown tr[data-line="kv_cache"] td.num').first().textContent();
const ANSWER_PARTS = ['summary', 'answer-bar', 'gpu-section', 'charts-section', 'remedies-section', 'ranking-section', 'embed-section'];

async function open(lang, width, query) {
  const opened = await newPage(session, { width, height: 900 });
  await openInWatchingShifts(opened.page, lang);
  await opened.page.goto(`${session.base}/${query}`);
  return opened;
}

// Types into a field as a person does, key by key, then waits for the answer to that text.
async function type(page, selector, text) {
  await page.locator(selector).click();
  await page.locator(selector).selectText().catch(() => {});
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
}

const TEXT = {
  en: {
    read: (n) => `= ${n} tokens`, n: (x) => x.toLocaleString('en-US'), gb: (x) => x,
    allowed: /^Context length: expected a whole number of tokens from 1 to 100,?000,?000, such as 8192 or 8k; got "8x"$/,
    batch: /^Batch size: expected a whole number from 1 to 1,?000,?000; got "8k"$/,
    hint: /k = 1,024/, empty: /^Model: /, modelMax: /131,072 tokens/, notUsed: /^Not used: /,
    crossOrigin: /cross-origin requests \(GitHub Pages does\)/, fallback: /could not load here/,
    link: /^GPU memory for Llama 3\.1 8B: open the calculation on vramfit$/,
  },
  de: {
    read: (n) => `= ${n} Tokens`, n: (x) => x.toLocaleString('de-DE'), gb: (x) => x.replace('.', ','),
    allowed: /^Kontextlänge: erwartet wird eine ganze Zahl von Tokens zwischen 1 und 100\.?000\.?000, etwa 8192 oder 8k; angegeben: "8x"$/,
    batch: /^Batchgröße: erwartet wird eine ganze Zahl zwischen 1 und 1\.?000\.?000; angegeben: "8k"$/,
    hint: /k = 1\.024/, empty: /^Modell: /, modelMax: /131\.072 Tokens/, notUsed: /^Nicht verwendet: /,
    crossOrigin: /Cross-Origin-Anfragen erlauben \(GitHub Pages tut das\)/, fallback: /konnte hier nicht geladen werden/,
    link: /^GPU-Speicher für Llama 3\.1 8B: die Rechnung auf vramfit öffnen$/,
  },
};

// Llama 3.1 8B keeps 32 layers × 2 × 8 KV heads × 128 × 2 B = 131,072 B of bf16 KV cache per token.
const CONTEXTS = [
  // [typed, tokens read, KV cache in GB = tokens × 131,072 B]
  ['8k', 8192, '1.07'],        // 8 × 1,024 = 8,192 tokens; × 131,072 B = 1,073,741,824 B
  ['32K', 32768, '4.29'],      // 32 × 1,024 = 32,768; × 131,072 B = 4,294,967,296 B
  ['1M', 1048576, '137.44'],   // 1,024² = 1,048,576; × 131,072 B = 137,438,953,472 B
  ['128000', 128000, '16.78'], // × 131,072 B = 16,777,216,000 B
  ['1e5', 100000, '13.11'],    // × 131,072 B = 13,107,200,000 B
];

for (const lang of ['en', 'de']) {
  for (const width of [1280, 375]) {
    const text = TEXT[lang];

    test(`the context field takes 8k, 32K, 1M, 128000 and 1e5 and says what it read (${lang}, ${width} px)`, async () => {
      const { page, problems } = await open(lang, width, '?model=llama-3.1-8b');
      await answered(page);
      assert.match(await page.locator('#context-hint').textContent(), text.hint);
      for (const [typed, tokens, kv] of CONTEXTS) {
        await type(page, '#context', typed);
        await page.locator('#context-read').filter({ hasText: text.read(text.n(tokens)) }).waitFor();
        await page.waitForFunction((gb) => document.querySelector('#breakdown tr[data-line="kv_cache"] td.num')?.textContent === gb, text.gb(kv));
        assert.equal(await page.locator('#context').inputValue(), typed, 'the field keeps what was typed');
      }
      // Anything else is refused at the field, naming what it takes.
      await type(page, '#context', '8x');
      await failed(page);
      assert.match(await page.locator('#result-error').textContent(), text.allowed);
      assert.match(await page.locator('#input-error').textContent(), text.allowed);
      assert.equal(await page.locator('#context').getAttribute('aria-invalid'), 'true');
      for (const id of ANSWER_PARTS) assert.equal(await page.locator(`#${id}`).isHidden(), true, `#${id} hidden`);
      // The batch is a whole count: "8k" is refused there (never read as 8, the digits before the letter).
      await type(page, '#context', '8k');
      await answered(page);
      await type(page, '#batch', '8k');
      await failed(page);
      assert.match(await page.locator('#result-error').textContent(), text.batch);
      assert.equal(await page.locator('#batch').getAttribute('aria-invalid'), 'true');
      assert.deepEqual(problems, []);
    });

    test(`an empty model is an error at the field, and an engine never rewrites the context (${lang}, ${width} px)`, async () => {
      const { page, problems } = await open(lang, width, '?model=llama-3.1-8b&gpu=h100-sxm');
      await answered(page);
      // Left empty, the field shows nothing typed and says which context the answer used.
      assert.equal(await page.locator('#context').inputValue(), '');
      assert.match(await page.locator('#context-read').textContent(), new RegExp(text.n(8192)));
      await page.locator('#engine').selectOption('vllm');
      await page.waitForURL(/engine=vllm/);
      await answered(page);
      assert.equal(await page.locator('#context').inputValue(), '', 'choosing vLLM leaves the context field as it was');
      assert.match(await page.locator('#context-read').textContent(), text.modelMax);
      assert.match(await page.locator('#notes').textContent(), /131[,.]?072 [Tt]okens/);
      // What was typed stays through another engine.
      await type(page, '#context', '8192');
      await page.waitForURL(/context=8192/);
      await page.locator('#engine').selectOption('sglang');
      await page.waitForURL(/engine=sglang/);
      await answered(page);
      assert.equal(await page.locator('#context').inputValue(), '8192');
      await page.waitForFunction(() => /8[,.]192/.test(document.querySelector('[data-testid="headline"]').textContent));

      // No model: nothing is estimated for a model nobody named.
      await page.locator('#model').fill('');
      await page.locator('#model').press('Tab');
      await failed(page);
      assert.match(await page.locator('#result-error').textContent(), text.empty);
      assert.equal(await page.locator('#model').getAttribute('aria-invalid'), 'true');
      for (const id of ANSWER_PARTS) assert.equal(await page.locator(`#${id}`).isHidden(), true, `#${id} hidden`);
      await page.locator('#model').fill('Llama 3.1 8B');
      await answered(page);
      assert.deepEqual(problems, []);
    });

    test(`each new file replaces the last one's answer or error, and the status says what was read (${lang}, ${width} px)`, async () => {
      const { page, problems } = await open(lang, width, '?model=llama-3.1-8b');
      await answered(page);
      const file = (name, body) => page.locator('#file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
      const status = () => page.locator('#file-status').textContent();
      await file('garbage_config.json', 'this is not JSON');
      await failed(page);
      await page.locator('#file-status').filter({ hasText: text.notUsed }).waitFor();
      assert.match(await status(), /garbage_config\.json/);
      const first = await page.locator('#result-error').textContent();
      assert.match(first, /garbage_config\.json|config\.json/);
      // A second failed file: its own error, in red beside the headline and at the field; the first one's is gone.
      await page.locator('#file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await page.locator('#result-error').filter({ hasText: 'notes.txt' }).waitFor();
      assert.notEqual(await page.locator('#result-error').textContent(), first);
      assert.match(await page.locator('#input-error').textContent(), /notes\.txt/);
      assert.match(await status(), text.notUsed);
      assert.match(await status(), /notes\.txt/);
      assert.equal(await page.locator('#file').getAttribute('aria-invalid'), 'true');
      // A good file clears the error; a failed one after it hides its figures.
      const config = JSON.stringify({ architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 2048,
        intermediate_size: 8192, num_hidden_layers: 16, num_attention_heads: 32, num_key_value_heads: 8,
        vocab_size: 128256, max_position_embeddings: 131072, torch_dtype: 'bfloat16' });
      await file('config.json', config);
      await answered(page);
      assert.equal(await page.locator('#result-error').isHidden(), true);
      assert.doesNotMatch(await status(), text.notUsed);
      await page.locator('#file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await page.locator('#result-error').filter({ hasText: 'notes.txt' }).waitFor();
      for (const id of ANSWER_PARTS) assert.equal(await page.locator(`#${id}`).isHidden(), true, `#${id} hidden after a refused file`);
      // Back to the list of models: no error is left behind.
      await page.locator('#file-clear').click();
      await answered(page);
      assert.equal(await page.locator('#result-error').isHidden(), true);
      assert.equal(await status(), '');
      assert.deepEqual(problems, []);
    });
  }
}

// ---- Embeds on another site ----

// Two other origins on loopback: a blog that pastes the element's code (`pages`, by path), and a copy of this
// site that sends Access-Control-Allow-Origin for every file (as GitHub Pages does) except the .wasm. This site's
// own server sends no CORS header at all.
let blog;
let copy;
const pages = new Map();
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
before(async () => {
  blog = createServer((req, res) => {
    res.writeHead(pages.has(req.url) ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(pages.get(req.url) ?? 'not found');
  });
  copy = createServer(async (req, res) => {
    const response = await fetch(`${session.base}${req.url}`);
    const headers = Object.fromEntries(['content-type', 'content-security-policy'].map((h) => [h, response.headers.get(h)]).filter(([, v]) => v));
    if (!req.url.split('?')[0].endsWith('.wasm')) headers['Access-Control-Allow-Origin'] = '*';
    res.writeHead(response.status, headers);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  blog.base = await listen(blog);
  copy.base = await listen(copy);
});
after(async () => {
  for (const server of [blog, copy]) await new Promise((resolve) => (server?.listening ? server.close(resolve) : resolve()));
});

// The element's code as the page at `site` offers it, pasted into a page of the blog; that page is opened.
async function pasted(lang, site) {
  const { page, problems } = await newPage(session, { width: 1280, height: 900 });
  await openInWatchingShifts(page, lang);
  await page.goto(`${site}/?model=llama-3.1-8b&weights=int4&gpu=rtx-4090`);
  await page.locator('#embed-section').waitFor({ state: 'visible' });
  await page.locator('label[for="embed-element"]').click();
  const code = await page.locator('#embed-code').inputValue();
  const note = await page.locator('#embed-section').textContent();
  const path = `/${lang}-${pages.size}.html`;
  pages.set(path, `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"></head><body><h1>A blog</h1>${code}</body></html>`);
  await page.goto(`${blog.base}${path}`);
  // The other origins are this test's own; what the browser refuses there is what the test is about.
  const own = (p) => [blog.base, copy.base].some((b) => p.includes(b)) || /CORS|Failed to load|Failed to fetch/.test(p);
  return { page, problems: () => problems.filter((p) => !own(p)), note };
}

for (const lang of ['en', 'de']) {
  const text = TEXT[lang];

  test(`the element says so and links the full page when the calculator cannot load on another site (${lang})`, async () => {
    // The element's script loads from the copy, its .wasm does not (no CORS header for it).
    const { page, problems, note } = await pasted(lang, copy.base);
    assert.match(note, text.crossOrigin);
    // The element is defined and draws its own text in place of the answer (its shadow root, not the code's link).
    await page.waitForFunction(() => document.querySelector('vram-fit').shadowRoot?.querySelector('.c-error, .c-headline'));
    const shown = await page.evaluate(() => {
      const root = document.querySelector('vram-fit').shadowRoot;
      const link = root.querySelector('a');
      return { text: root.querySelector('.c-error')?.textContent, href: link?.href, visible: link?.checkVisibility() };
    });
    assert.match(shown.text, text.fallback);
    assert.equal(shown.visible, true);
    assert.ok(shown.href.startsWith(`${copy.base}/index.html?`), shown.href);
    assert.match(shown.href, /model=llama-3\.1-8b/);
    assert.match(shown.href, /gpu=rtx-4090/);
    assert.equal(await page.evaluate(() => document.querySelector('vram-fit').report?.ok), false);
    assert.deepEqual(problems(), []);
  });

  test(`the element's code shows its text and link when its script cannot load at all (${lang})`, async () => {
    const { page } = await pasted(lang, session.base);
    const link = page.locator('vram-fit > a');
    await page.waitForTimeout(500);
    assert.equal(await page.evaluate(() => customElements.get('vram-fit')), undefined, 'the script did not load');
    assert.equal(await link.isVisible(), true);
    assert.match(await link.textContent(), text.link);
    assert.ok((await link.getAttribute('href')).startsWith(`${session.base}/index.html?`));
    assert.match(await link.getAttribute('href'), /gpu=rtx-4090/);
  });
}

// ---- Layout: 375 and 1280 px ----

const SCENARIOS = [
  { name: 'the plain URL (no GPU chosen)', query: '' },
  { name: 'fits, with speed', query: '?model=llama-3.1-8b&gpu=rtx-4090' },
  { name: 'vLLM would not start', query: '?model=llama-3.1-8b&gpu=rtx-4090&engine=vllm' },
  { name: 'two cards under llama.cpp', query: '?model=llama-3.1-70b&weights=q4_k_m&engine=llamacpp&context=4096&gpu=rtx-3090&gpus=2' },
  { name: 'speed with a note', query: '?model=qwen3.6-35b-a3b&weights=q4_k_m&engine=llamacpp&context=131072&gpu=rtx-3090' },
  { name: 'training', query: '?model=llama-2-7b&mode=train&optimizer=paged-adamw-8bit&gpu=a100-80gb-sxm' },
];

for (const lang of ['en', 'de']) {
  for (const width of [1280, 375]) {
    test(`every word, label and key column whole at ${width} px (${lang})`, async () => {
      for (const scenario of SCENARIOS) {
        const { page, problems } = await open(lang, width, scenario.query);
        await page.locator('#charts-section').waitFor({ state: 'visible' });
        await page.locator('#gpu-section').waitFor({ state: 'visible' });
        const where = `${scenario.name}, ${lang}, ${width} px`;
        assert.deepEqual(await page.evaluate(brokenWords), [], `words broken: ${where}`);
        const charts = await page.evaluate(chartProblems);
        assert.deepEqual(charts.small, [], `chart text under 11 px: ${where}`);
        assert.deepEqual(charts.over, [], `chart label over its curve: ${where}`);
        assert.deepEqual(await page.evaluate(hiddenKeyColumns, KEY_COLUMNS), [], `key columns out of view: ${where}`);
        assert.deepEqual(await page.evaluate(cutSelects), [], `cut-off selects: ${where}`);
        assert.deepEqual(await page.evaluate(wrappedPills), [], `pills on two rows: ${where}`);
        if (width === 375) {
          // The speed block takes the width of the results: no figure squeezed into a narrow column.
          if (await page.locator('#speed').isVisible()) {
            const widths = await page.evaluate(() => {
              const block = document.querySelector('#speed').getBoundingClientRect().width;
              return [...document.querySelectorAll('#speed-figures dd')].map((dd) => dd.getBoundingClientRect().width / block);
            });
            for (const share of widths) assert.ok(share > 0.9, `a speed figure ${Math.round(share * 100)} % wide: ${where}`);
          }
          // The bar that carries the answer while the inputs are edited: two lines at most.
          await page.evaluate(() => window.scrollTo(0, 0));
          const bar = page.locator('#answer-bar');
          await bar.waitFor({ state: 'visible' });
          const lines = await page.evaluate(() => {
            const line = document.querySelector('#answer-headline');
            return line.getBoundingClientRect().height / parseFloat(getComputedStyle(line).lineHeight);
          });
          assert.ok(lines <= 2.05, `the answer bar takes ${lines.toFixed(1)} lines: ${where}`);
        }
        assert.deepEqual(problems, [], where);
        await page.context().close();
      }
    });
  }
}
