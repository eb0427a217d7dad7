// The page's newer inputs and outputs: training modes, weight formats / engine / KV precision, speed and cost,
// the core's GPU ranking, and config.json by file. Figures pinned here are derived by hand in the comments.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { openBrowser, newPage, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const cell = (page, key) => page.locator(`tr[data-line="${key}"] td`).first().textContent();
const waitCell = (page, key, text) => page.waitForFunction(([k, t]) =>
  document.querySelector(`tr[data-line="${k}"] td`)?.textContent === t, [key, text]);
async function open(path, viewport) {
  const { page, problems } = await newPage(session, viewport);
  await page.goto(`${session.base}/${path}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}

test('fine-tune (LoRA) shows the training breakdown and the optimizer choice changes it', async () => {
  const { page, problems } = await open('?model=llama-2-7b&mode=finetune');
  await page.locator('#finetune-controls').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#inference-controls').isHidden(), true);
  // LoRA r=16 on all linear layers of Llama 2 7B: per layer q,k,v,o 4 × 16 × (4096 + 4096) = 524,288,
  // gate, up, down 3 × 16 × (4096 + 11008) = 724,992 → 1,249,280 × 32 layers = 39,976,960 trainable.
  // Weights: 6,738,415,616 × 2 B + adapters 39,976,960 × 2 B = 13,556,785,152 B = 13.56 GB.
  await waitCell(page, 'weights', '13.56');
  // Gradients in fp32 (HF Trainer): 39,976,960 × 4 B = 159,907,840 B = 0.16 GB.
  assert.equal(await cell(page, 'gradients'), '0.16');
  // AdamW 8 B + fp32 master 4 B per trainable param = 479,723,520 B = 0.48 GB; the master copy 0.16 GB of it.
  assert.equal(await cell(page, 'optimizer'), '0.48');
  assert.equal(await cell(page, 'master_weights'), '0.16');
  assert.match(await page.locator('tr[data-line="master_weights"] th').textContent(), /^of which fp32 master weights$/);
  assert.equal(await page.locator('tr[data-line="temporary"]').count(), 1);
  assert.match(await page.locator('#training-facts').textContent(), /^0\.04 B trainable parameters/);
  // The bar stacks the parts of the total only: the master copy is inside the optimizer states.
  assert.equal(await page.locator('#bar .seg-master_weights').count(), 0);
  assert.equal(await page.locator('#optimizer').inputValue(), 'adamw');
  await page.locator('#optimizer').selectOption('adamw-8bit');
  // 8-bit AdamW: 2 B of moments + 4 B master = 6 B × 39,976,960 = 239,861,760 B = 0.24 GB.
  await waitCell(page, 'optimizer', '0.24');
  assert.match(page.url(), /optimizer=adamw-8bit/);
  await page.locator('#ft').selectOption('qlora');
  await page.waitForURL(/ft=qlora/);
  // QLoRA stores the base in NF4 (≈ 4.127 bit/param): well under half the bf16 13.56 GB.
  await page.waitForFunction(() => Number(document.querySelector('tr[data-line="weights"] td').textContent) < 5);
  assert.deepEqual(problems, []);
});

test('full training with 4 GPUs and ZeRO-1 shards the optimizer; offload moves it to host RAM', async () => {
  const { page, problems } = await open('?model=llama-2-7b&mode=train&gpus=4&zero=1');
  // ZeRO paper's mixed-precision AdamW: 12 B/param of optimizer state (fp32 master + two moments), split
  // four ways: 6,738,415,616 × 12 / 4 = 20,215,246,848 B = 20.22 GB. fp32 gradients stay whole at ZeRO-1:
  // × 4 B = 26.95 GB; bf16 weights × 2 B = 13.48 GB.
  await waitCell(page, 'optimizer', '20.22');
  assert.equal(await cell(page, 'gradients'), '26.95');
  assert.equal(await cell(page, 'weights'), '13.48');
  assert.equal(await page.locator('#zero').inputValue(), '1');
  assert.equal(await page.locator('#gpus-count').inputValue(), '4');
  assert.match(await page.locator('#training-facts').textContent(), /memory per GPU of 4/);
  // The figures are per GPU, and so is the verdict: each of the four cards.
  await page.locator('#gpu').selectOption('a100-80gb-sxm');
  await page.waitForFunction(() => document.querySelector('#headline').textContent.startsWith('Fits on each of 4 × NVIDIA A100 80GB SXM with'));
  assert.match(await page.locator('#headline').textContent(), / free on each$/);
  await page.locator('#gpu').selectOption('');
  // One GPU, ZeRO-2, optimizer offloaded: fp32 gradients 4 + master 4 + moments 8 = 16 B/param live in
  // host RAM: 6,738,415,616 × 16 = 107,814,649,856 B = 107.81 GB; the article's 30–40 % longer steps.
  await page.locator('#gpus-count').fill('1');
  await page.locator('#zero').selectOption('2');
  await page.locator('#offload').selectOption('optimizer');
  await page.waitForFunction(() => /host RAM 107\.81 GB/.test(document.querySelector('#training-facts').textContent));
  assert.match(await page.locator('#training-facts').textContent(), /30%–40% slower/);
  assert.equal(await cell(page, 'optimizer'), '0.00');
  // The URL carries every choice; a fresh page shows the same.
  const url = page.url();
  for (const part of ['mode=train', 'zero=2', 'offload=optimizer', 'gpus=1']) assert.ok(url.includes(part), part);
  const fresh = await newPage(session);
  await fresh.page.goto(url);
  await fresh.page.waitForFunction(() => /host RAM 107\.81 GB/.test(document.querySelector('#training-facts')?.textContent ?? ''));
  assert.equal(await fresh.page.locator('#offload').inputValue(), 'optimizer');
  // A choice the core refuses names its field: offload needs ZeRO ≥ 1.
  await page.locator('#zero').selectOption('0');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^(Offload|ZeRO stage): /);
  assert.deepEqual([...problems, ...fresh.problems], []);
});

test('what would help: the article\'s strategies with their saving, and Apply changes the scenario', async () => {
  // The seed article: "Ein 13B-Modell in FP16 belegt 26 GB. Das übersteigt die 24 GB knapp. In INT8 (13 GB)
  // läuft die Inferenz komfortabel". Llama 2 13B in bf16 does not fit an RTX 4090; its 8-bit form does.
  const { page, problems } = await open('?model=llama-2-13b&gpu=rtx-4090&context=4096');
  await page.locator('#remedies-section').waitFor({ state: 'visible' });
  const row = (id) => page.locator(`#remedies tr[data-remedy="${id}"]`);
  assert.match(await row('weights-8bit').locator('th').textContent(), /^8-bit weights \(bnb-int8\)$/);
  assert.match(await row('weights-8bit').locator('.badge').textContent(), /^fits$/);
  // bnb-int8 halves the linear weights: 40 layers × (4 × 5120² + 3 × 5120 × 13824) B = 12.69 GB at most.
  const saved = Number((await row('weights-8bit').locator('td').first().textContent()).replace(/ GB$/, ''));
  assert.ok(saved > 12 && saved <= 12.69, String(saved));
  // German names the strategies in German; the figures stay the core's.
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#remedies tr[data-remedy="weights-8bit"] th')?.textContent === '8-Bit-Gewichte (bnb-int8)');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');  // screen readers read German
  assert.equal(await page.locator('#remedies-title').textContent(), 'Was helfen würde');
  await page.locator('#lang').selectOption('en');
  await page.waitForFunction(() => document.querySelector('#remedies tr[data-remedy="weights-8bit"] th')?.textContent === '8-bit weights (bnb-int8)');
  // Its saving opens the core's explanation: the two totals and the change.
  await row('weights-8bit').locator('button.number').first().click();
  await page.locator('#explain').waitFor({ state: 'visible' });
  assert.match(await page.locator('#explain-values').textContent(), /^[\d,]+ B − [\d,]+ B = [\d,]+ B$/);
  assert.match(await page.locator('#explain-source').textContent(), /the change: weights = bnb-int8$/);
  await page.locator('#explain-close').click();
  // Two RTX 4090s, estimated in full with the GPU count (transformers' device_map="auto"): it can be applied.
  assert.equal(await row('more-gpus').locator('button.apply').count(), 1);
  assert.match(await row('more-gpus').textContent(), /2 × GeForce RTX 4090/);
  // Apply: the weights become bnb-int8, the URL says so, and the headline now fits.
  await row('weights-8bit').locator('button.apply').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('weights') === 'bnb-int8');
  await page.waitForFunction(() => /^Fits on one GeForce RTX 4090/.test(document.querySelector('#headline').textContent));
  assert.equal(await page.locator('#weights-format').inputValue(), 'bnb-int8');
  // Already 8-bit: the 8-bit row is gone; the 4-bit one is still offered.
  await page.waitForFunction(() => !document.querySelector('#remedies tr[data-remedy="weights-8bit"]'));
  assert.equal(await row('weights-4bit').count(), 1);

  // Training: full fine-tuning of Llama 2 7B does not fit an A100 80 GB; LoRA's Apply opens the fine-tune tab.
  await page.goto(`${session.base}/?model=llama-2-7b&mode=train&gpu=a100-80gb-sxm`);
  await page.locator('#remedies tr[data-remedy="lora"]').waitFor();
  // ZeRO-Offload's row names the host RAM it takes: 16 B × 6,738,415,616 = 107.81 GB (fp32 gradients,
  // master and two moments), as the training facts of the same scenario do.
  assert.match(await row('offload-optimizer').textContent(), /needs 107\.81 GB of host RAM/);
  await row('lora').locator('button.apply').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('ft') === 'lora');
  await page.locator('#finetune-controls').waitFor({ state: 'visible' });
  assert.equal(new URL(page.url()).searchParams.get('mode'), 'finetune');
  assert.deepEqual(problems, []);
});

test('training tokens give the time and cost on the chosen GPU; a bad value names the field', async () => {
  const { page, problems } = await open('?model=llama-2-7b&mode=finetune&gpu=a100-80gb-sxm');
  await page.locator('#tokens').fill('300B');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('tokens') === '300B');
  await page.waitForFunction(() => /GPU-hours/.test(document.querySelector('#training-facts').textContent));
  // The page only carries the text and the figure: the core reads "300B" (300 × 10⁹) and the same request
  // with the number gives the same hours (the time formula is pinned by hand in test_training_time.cpp).
  const hours = await page.evaluate(async () => {
    const { openCalculator } = await import('./src/js/core.js');
    const calc = await openCalculator();
    const r = calc.answer({ question: 'estimate', model: 'llama-2-7b', mode: 'lora', batch: 1, tokens: 3e11, gpu: 'a100-80gb-sxm' });
    // No offload: one figure, not a range.
    return r.time.gpu_hours === r.time.gpu_hours_max
      ? `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(r.time.gpu_hours)} GPU-hours` : 'a range';
  });
  assert.ok((await page.locator('#training-facts').textContent()).includes(hours), hours);
  await page.locator('#tokens').fill('lots');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^Training tokens: expected a whole number from 1 to 1e18, such as 7e9, 300B or 1.5T; got "lots"$/);
  assert.equal(await page.locator('#tokens').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(problems, []);
});

test('all weight formats by storage scheme, engine and KV cache precision come from the catalog', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=8192');
  const groups = await page.locator('#weights-format optgroup').evaluateAll((gs) => gs.map((g) => g.label));
  assert.deepEqual(groups, ['16 and 32 bit', 'fp8, int8, int4 linear layers', 'bitsandbytes NF4', 'bitsandbytes LLM.int8',
    'GPTQ', 'AWQ', 'AutoRound', 'FP8 with a scale per row', 'FP8 with 128×128 block scales',
    'FP8 with 128×128 block scales (E8M0)', 'MXFP4 (gpt-oss)', 'MXFP8 (E4M3, block scales)', 'NVFP4 (NVIDIA)',
    'compressed-tensors (LLM Compressor)', 'MLX (Apple)', 'EXL2 (ExLlamaV2)', 'EXL3 (ExLlamaV3)', 'GGUF (llama.cpp)']);
  await page.locator('#weights-format').selectOption('q4_k_m');
  await page.waitForURL(/weights=q4_k_m/);
  // transformers dequantizes a GGUF file to fp32 as it loads it (transformers docs, GGUF): 8,030,261,248 × 4 B.
  await waitCell(page, 'weights', '32.12');
  assert.equal(await page.locator('input[name="weights"]:checked').count(), 0);
  // llama.cpp runs the file: Q4_K_M is 4,912,898,048 B of tensors (the published
  // Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf is 4.92 GB with its tokenizer and metadata), less the token embedding it
  // keeps in system RAM, 128,256 × 4,096 Q4_K elements × 144 B / 256 = 295,501,824 B: 4,617,396,224 B = 4.62 GB.
  await page.locator('#engine').selectOption('llamacpp');
  await waitCell(page, 'weights', '4.62');
  await page.locator('#engine').selectOption('transformers');
  await waitCell(page, 'weights', '32.12');
  await page.locator('label[for="weights-bf16"]').click();
  await waitCell(page, 'weights', '16.06');
  assert.equal(await page.locator('#weights-format').inputValue(), 'bf16');
  // fp8 KV: 1 B instead of 2 per element: 131,072 B/token × 8192 / 2 = 536,870,912 B = 0.54 GB.
  await page.locator('#kv').selectOption('fp8');
  await waitCell(page, 'kv_cache', '0.54');
  assert.match(page.url(), /kv=fp8/);
  assert.deepEqual(await page.locator('#engine option').evaluateAll((os) => os.map((o) => o.value)), ['transformers', 'vllm', 'llamacpp', 'sglang', 'ollama', 'mlx']);
  await page.locator('#engine').selectOption('llamacpp');
  await page.waitForURL(/engine=llamacpp/);
  // llama.cpp has no fp8 cache: the core says so, and the KV select is the control marked invalid.
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^KV cache precision: .*q8_0/);
  assert.equal(await page.locator('#kv').getAttribute('aria-invalid'), 'true');
  // q8_0 blocks: 34 B per 32 elements; 65,536 elements/token × 34 / 32 = 69,632 B × 8192 = 570,425,344 B.
  await page.locator('#kv').selectOption('q8_0');
  await waitCell(page, 'kv_cache', '0.57');
  assert.equal(await page.locator('#input-error').isHidden(), true);
  assert.deepEqual(problems, []);
});

test('every choice list and number range is the core\'s, from its inputs table', async () => {
  const { page, problems } = await open('?model=llama-2-7b&mode=train');
  const { inputs, shown } = await page.evaluate(async () => {
    const { openCalculator } = await import('./src/js/core.js');
    const selects = [...document.querySelectorAll('select[data-choices]')];
    return {
      inputs: (await openCalculator()).catalog.inputs.filter((i) => i.url !== ''),
      shown: Object.fromEntries(selects.map((s) => [s.name, [...s.options].map((o) => o.value)])),
    };
  });
  const byUrl = Object.fromEntries(inputs.map((i) => [i.url, i]));
  assert.deepEqual(Object.keys(shown).sort(), ['attn', 'checkpointing', 'engine', 'offload', 'optimizer', 'policy', 'precision', 'sampler', 'zero']);
  for (const [key, values] of Object.entries(shown)) {
    assert.deepEqual(values, byUrl[key].kind === 'toggle' ? ['on', 'off'] : byUrl[key].values, key);
  }
  // FSDP's names are the core's own spellings of stages 0, 2 and 3: shown as they are.
  assert.deepEqual(await page.locator('#zero option').last().textContent(), 'FULL_SHARD');
  // The context and batch fields take text as people write it ("8k"): the core reads it and names its range when
  // it refuses it (one-answer.test.mjs).
  for (const [id, key] of [['rank', 'rank'], ['gpus-count', 'gpus']]) {
    const field = page.locator(`#${id}`);
    assert.deepEqual([Number(await field.getAttribute('min')), Number(await field.getAttribute('max'))], [byUrl[key].min, byUrl[key].max], id);
  }
  assert.deepEqual(problems, []);
});

test('the attention implementation is one training control, in plain words, and eager keeps the scores', async () => {
  const { page, problems } = await open('?model=llama-2-7b&mode=train');
  const attn = page.locator('#attn');
  await attn.waitFor({ state: 'visible' });
  assert.deepEqual(await attn.locator('option').allTextContents(),
    ['Eager (keeps the s² scores)', 'Standard (SDPA)', 'FlashAttention-2', 'Megatron (unfused)']);
  assert.equal(await attn.inputValue(), 'sdpa');  // the core's default, read back from the report's inputs
  const sdpa = Number(await cell(page, 'activations'));
  // Eager keeps the fp32 softmax and its bf16 cast, (4 + 2)·a·s = 6 × 32 × 2048 = 393,216 B per token and layer,
  // where SDPA keeps a 4·a = 128 B log-sum-exp: 32 layers × 2048 tokens × 393,088 B = 25,761,415,168 B = 25.76 GB.
  await attn.selectOption('eager');
  await page.waitForFunction((before) => Number(document.querySelector('tr[data-line="activations"] td')?.textContent) > before, sdpa);
  assert.equal((Number(await cell(page, 'activations')) - sdpa).toFixed(2), '25.76');
  assert.match(page.url(), /[?&]attn=eager/);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('label[for="attn"]')?.textContent === 'Attention');
  assert.deepEqual(await attn.locator('option').allTextContents(),
    ['Eager (behält die s²-Scores)', 'Standard (SDPA)', 'FlashAttention-2', 'Megatron (ohne Fusion)']);
  await page.locator('#lang').selectOption('en');
  assert.deepEqual(problems, []);
  await page.close();
  // A link from the FlashAttention toggle's days still says what it meant.
  const old = await open('?model=llama-2-7b&mode=train&flash=off');
  await old.page.locator('#attn').waitFor({ state: 'visible' });
  assert.equal(await old.page.locator('#attn').inputValue(), 'eager');
  assert.deepEqual(old.problems, []);
  await old.page.close();
});

test('speed and cost on the chosen GPU, and n/a with the core\'s reason when there is none', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=8192&gpu=rtx-4090');
  await page.locator('#speed').waitFor({ state: 'visible' });
  // The catalog's price for an RTX 4090: $0.34/h (RunPod community, data/gpus.json).
  assert.equal(await page.locator('[data-figure="per_hour"]').textContent(), '$0.34');
  const decode = await page.locator('[data-figure="decode"]').textContent();
  const [low, high] = decode.match(/[\d.]+/g).map(Number);
  // Decode reads every weight once per token: 1008 GB/s ÷ 16.06 GB of weights ≈ 62.8 tokens/s at most.
  assert.ok(low > 0 && low < high && high < 62.8, decode);
  assert.match(await page.locator('[data-figure="prefill"]').textContent(), /^[\d,]+–[\d,]+ tokens\/s$/);
  // The default 512-token prompt's first token comes in milliseconds: 512 tokens at the prefill speed.
  assert.match(await page.locator('[data-figure="ttft"]').textContent(), /^[\d,]+–[\d,]+ ms for a 512-token prompt$/);
  assert.match(await page.locator('[data-figure="per_million"]').textContent(), /^\$\d+\.\d\d–\d+\.\d\d$/);
  // A card without a catalog price; an encoder, which generates no tokens.
  // (Llama 3.2 1B, which fits the 6 GiB card: a speed and price are given only for a setup that fits.)
  await page.goto(`${session.base}/?model=llama-3.2-1b&context=8192&gpu=rtx-2060`);
  await page.waitForFunction(() => document.querySelector('[data-figure="per_hour"]')?.textContent.startsWith('n/a'));
  assert.equal(await page.locator('[data-figure="per_hour"]').textContent(), 'n/a: the catalog has no cloud price for this GPU');
  await page.goto(`${session.base}/?model=bert-base&gpu=rtx-4090`);
  await page.locator('#speed').waitFor({ state: 'visible' });
  assert.match(await page.locator('[data-figure="decode"]').textContent(), /^n\/a: BERT base uncased is an encoder/);
  assert.match(await page.locator('[data-figure="per_million"]').textContent(), /^n\/a: BERT base uncased is an encoder/);
  assert.doesNotMatch(await page.locator('body').textContent(), /NaN|Infinity|undefined|null/);
  // Llama 3.1 70B in bf16 holds 70.6 B × 2 B ≈ 141 GB of weights alone, far over a 24 GiB card: no speed or price
  // for it, only why.
  await page.goto(`${session.base}/?model=llama-3.1-70b&weights=bf16&gpu=rtx-4090`);
  await page.locator('#speed').waitFor({ state: 'visible' });
  assert.equal(await page.locator('[data-figure="decode"]').count(), 0);
  assert.match(await page.locator('#speed').textContent(), /this scenario does not fit on one GeForce RTX 4090/);
  assert.doesNotMatch(await page.locator('#speed').textContent(), /tokens\/s|\$/);
  assert.deepEqual(problems, []);
});

test('the GPU ranking ranks GPU × count and highlights the four picks', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=8192');
  await page.locator('#ranking-section').waitFor({ state: 'visible' });
  const picks = await page.locator('#ranking tr[data-picks]').evaluateAll((rows) => rows.map((r) => [r.dataset.config, r.dataset.picks]));
  const tagged = picks.flatMap(([, p]) => p.split(' ')).sort();
  assert.deepEqual(tagged, ['cheapest_per_hour', 'cheapest_per_million_tokens', 'cheapest_to_buy', 'fastest']);
  // The cheapest to buy shows its purchase price (count × the catalog's street price), dated in its title.
  const buy = page.locator('#ranking tr[data-picks~="cheapest_to_buy"] td').nth(5);
  assert.match(await buy.textContent(), /^[0-9,]+$/);
  assert.match(await buy.getAttribute('title'), /^\d{4}-\d{2}/);
  // ≈ 18.5 GB fits one 24 GiB card; the cheapest catalog price among the fitting ones is the RTX 3090's $0.22/h.
  const cheapest = page.locator('#ranking tr[data-picks~="cheapest_per_hour"]');
  assert.equal(await cheapest.getAttribute('data-config'), 'rtx-3090x1');
  assert.equal(await cheapest.locator('td').nth(3).textContent(), '0.22');
  assert.match(await page.locator('#ranking-picks').textContent(), /^Cheapest per hour: 1 × GeForce RTX 3090/);
  // Every row shown that fits costs at least that per hour.
  const prices = await page.locator('#ranking tr.fit-fits td:nth-child(5)').allTextContents();
  assert.ok(prices.filter((p) => p !== 'n/a').every((p) => Number(p) >= 0.22));
  // Sorted by $/h: ascending prices, the rows without a price last; the header says how it is sorted.
  await page.locator('#ranking-head button[data-sort="per_hour"]').click();
  await page.waitForFunction(() => document.querySelector('#ranking-head th[aria-sort="ascending"] button')?.dataset.sort === 'per_hour');
  const sorted = (await page.locator('#ranking tr td:nth-child(5)').allTextContents());
  const priced = sorted.filter((p) => p !== 'n/a').map(Number);
  assert.deepEqual(priced, [...priced].sort((a, b) => a - b));
  assert.ok(sorted.indexOf('n/a') === -1 || sorted.slice(sorted.indexOf('n/a')).every((p) => p === 'n/a'));
  await page.locator('#ranking-head button[data-sort="per_hour"]').click();
  await page.waitForFunction(() => document.querySelector('#ranking-head th[aria-sort="descending"] button')?.dataset.sort === 'per_hour');
  await page.locator('#ranking-head button[data-sort="rank"]').click();
  // All of it: every catalog GPU × counts 1, 2, 4, 8 (136 × 4 = 544 configurations).
  const catalog = JSON.parse(readFileSync(path.join(root, 'data/gpus.json'), 'utf8'));
  const configurations = (Array.isArray(catalog) ? catalog : catalog.gpus).length * 4;
  assert.equal(configurations, 544);
  await page.locator('#ranking-all').click();
  await page.waitForFunction((n) => document.querySelectorAll('#ranking tr').length === n, configurations);
  assert.equal(await page.locator('#ranking-all').getAttribute('aria-expanded'), 'true');
  assert.doesNotMatch(await page.locator('#ranking').textContent(), /NaN|undefined|null/);
  assert.deepEqual(problems, []);
});

test('a dropped config.json is evaluated and a hostile name in it renders as text', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=4096');
  let dialog = false;
  page.on('dialog', async (d) => { dialog = true; await d.dismiss(); });
  const hostile = '<img src=x onerror=alert(1)>';
  // Llama 2 7B's shape under a hostile architecture name.
  const config = JSON.stringify({ _name_or_path: hostile, model_type: hostile, architectures: [hostile], hidden_size: 4096, intermediate_size: 11008,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, vocab_size: 32000, max_position_embeddings: 4096 });
  // A real drop: a DataTransfer with the file, dispatched on the drop zone.
  const transfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'config.json', { type: 'application/json' }));
    return dt;
  }, config);
  await page.locator('#drop').dispatchEvent('drop', { dataTransfer: transfer });
  await page.locator('#file-status').filter({ hasText: 'Using config.json' }).waitFor();
  // Llama 2 7B's shape with tied embeddings (HF's default when the config does not say): 6,738,415,616 −
  // 32,000 × 4096 = 6,607,343,616 params × 2 B = 13,214,687,232 B = 13.21 GB of bf16 weights.
  await waitCell(page, 'weights', '13.21');
  // The hostile architecture name arrives as text, never as markup: the core names a config after its
  // architecture ("<model_type> (config.json)"), shown in the model field and the facts line.
  assert.equal(await page.locator('#model').inputValue(), `${hostile} (config.json)`);
  assert.ok((await page.locator('#model-facts').textContent()).startsWith(`${hostile} (config.json): 6.61 B parameters`));
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(dialog, false);
  await page.locator('#file-clear').click();
  await page.waitForFunction(() => document.querySelector('#model').value === 'Llama 3.1 8B');
  assert.deepEqual(problems, []);
});

test('a dropped GGUF is read by its header and its weights count exactly', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=4096');
  // tests/data/tiny_llama_v3.gguf.head: the first 4,096 bytes of a 758,032-byte GGUF v3 (tests/node/wasm.test.mjs);
  // padded back to its size, as the real file would be.
  const file = Buffer.alloc(758032);
  readFileSync(path.join(root, 'tests/data/tiny_llama_v3.gguf.head')).copy(file);
  await page.locator('#file').setInputFiles({ name: 'tiny.gguf', mimeType: 'application/octet-stream', buffer: file });
  await page.waitForFunction(() => document.querySelector('#model').value === 'tiny llama');
  assert.match(await page.locator('#file-status').textContent(), /^Using tiny\.gguf: its header \([\d,]+ bytes\) was read/);
  // Tensor data runs from the alignment-padded end of the header (2,048) to the end: 758,032 − 2,048 = 755,984 B.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-csv').click()]);
  assert.match(readFileSync(await download.path(), 'utf8'), /"breakdown","weights","Weights",755984,/);
  // The header carries the architecture, so the core trains the file's model too, and says what would help.
  await page.locator('#mode-train').click();
  await page.locator('tr[data-line="gradients"]').waitFor();
  await page.locator('#remedies tr').first().waitFor();
  assert.equal(await page.locator('#input-error').isHidden(), true);
  assert.equal(await page.locator('#model').inputValue(), 'tiny llama');
  await page.locator('#mode-inference').click();
  await page.locator('tr[data-line="kv_cache"]').waitFor();
  // Something that is not a model file: the core's message, as text, at the file field; it replaces the file
  // before it, so no figure of that one stays.
  await page.locator('#file').setInputFiles({ name: 'broken.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('nope') });
  await page.locator('#input-error').filter({ hasText: /^Model file: broken\.gguf: / }).waitFor();
  assert.equal(await page.locator('#file-status').textContent(), 'Not used: broken.gguf');
  assert.equal(await page.locator('#summary').isHidden(), true);
  assert.deepEqual(problems, []);
});

// A tiny Llama-shaped checkpoint in two safetensors shards (README layout: 8-byte little-endian header length,
// the JSON header, the data), its index and its config.json. hidden 4, intermediate 8, 1 layer, 2 heads of
// head_dim 2, 2 KV heads, vocab 8, tied embeddings. Parameters by hand: embeddings 8 × 4 = 32; attention
// q, k, v, o 4 × (4 × 4) = 64; MLP gate, up, down 3 × (4 × 8) = 96; two layer norms 2 × 4 = 8; final norm 4;
// 32 + 64 + 96 + 8 + 4 = 204 params, in BF16 408 B of tensor data.
const TINY_SHARDS = [
  ['model-00001-of-00002.safetensors', [['model.embed_tokens.weight', [8, 4]], ['model.layers.0.self_attn.q_proj.weight', [4, 4]],
    ['model.layers.0.self_attn.k_proj.weight', [4, 4]], ['model.layers.0.self_attn.v_proj.weight', [4, 4]],
    ['model.layers.0.self_attn.o_proj.weight', [4, 4]]]],
  ['model-00002-of-00002.safetensors', [['model.layers.0.mlp.gate_proj.weight', [8, 4]], ['model.layers.0.mlp.up_proj.weight', [8, 4]],
    ['model.layers.0.mlp.down_proj.weight', [4, 8]], ['model.layers.0.input_layernorm.weight', [4]],
    ['model.layers.0.post_attention_layernorm.weight', [4]], ['model.norm.weight', [4]]]],
];
const TINY_CONFIG = JSON.stringify({ architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4, intermediate_size: 8,
  num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 2, vocab_size: 8, max_position_embeddings: 4096,
  tie_word_embeddings: true });
function tinyCheckpoint() {
  const shards = TINY_SHARDS.map(([name, tensors]) => {
    const header = {};
    let offset = 0;
    for (const [tensor, shape] of tensors) {
      const bytes = shape.reduce((a, b) => a * b, 1) * 2;
      header[tensor] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
      offset += bytes;
    }
    const json = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(json.length));
    return { name, headerEnd: 8 + json.length, data: Buffer.concat([length, json, Buffer.alloc(offset)]) };
  });
  const weightMap = Object.fromEntries(TINY_SHARDS.flatMap(([file, tensors]) => tensors.map(([tensor]) => [tensor, file])));
  const index = JSON.stringify({ metadata: { total_size: 408 }, weight_map: weightMap });
  return { shards, index };
}

// Every Blob.slice the page makes (file name, start, end), every status line it shows, and slow reads (300 ms
// each) so that the progress line has a moment to appear.
function watchReads() {
  const slice = Blob.prototype.slice;
  const arrayBuffer = Blob.prototype.arrayBuffer;
  window.sliced = [];
  window.statusLines = [];
  Blob.prototype.slice = function (start, end, type) {
    window.sliced.push({ name: this.name ?? '', start: start ?? 0, end: end ?? this.size });
    return slice.call(this, start, end, type);
  };
  Blob.prototype.arrayBuffer = function () {
    return new Promise((resolve) => setTimeout(resolve, 300)).then(() => arrayBuffer.call(this));
  };
  document.addEventListener('DOMContentLoaded', () => {
    const status = document.getElementById('file-status');
    new MutationObserver(() => window.statusLines.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
  });
}

test('sharded safetensors, index and config.json dropped together are read by their headers alone', async () => {
  const { page, problems } = await newPage(session);
  await page.addInitScript(watchReads);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const { shards, index } = tinyCheckpoint();
  // One drop, in no particular order: shard 2, config, index, shard 1.
  const transfer = await page.evaluateHandle(({ shards: parts, index: indexText, config }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(parts[1].data)], parts[1].name));
    dt.items.add(new File([config], 'config.json', { type: 'application/json' }));
    dt.items.add(new File([indexText], 'model.safetensors.index.json', { type: 'application/json' }));
    dt.items.add(new File([new Uint8Array(parts[0].data)], parts[0].name));
    return dt;
  }, { shards: shards.map((s) => ({ name: s.name, data: [...s.data] })), index, config: TINY_CONFIG });
  await page.locator('#drop').dispatchEvent('drop', { dataTransfer: transfer });
  await page.waitForFunction(() => document.querySelector('#model').value === 'llama (model file)');
  assert.match(await page.locator('#file-status').textContent(),
    /^Using 2 safetensors shards \+ model\.safetensors\.index\.json \+ config\.json: their headers \([\d,]+ bytes\) were read/);
  // Exact bytes from the headers: 408 B of weights (above); the KV cache from config.json: K and V × 1 layer ×
  // 2 KV heads × head_dim 2 × 2 B = 16 B per token × 4096 tokens = 65,536 B.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-csv').click()]);
  const csv = readFileSync(await download.path(), 'utf8');
  assert.match(csv, /"breakdown","weights","Weights",408,/);
  assert.match(csv, /"breakdown","kv_cache","[^"]+",65536,/);
  // Reads: each shard from byte 0, first its 8-byte length, then up to the end of its JSON header, never a
  // byte of tensor data.
  const sliced = await page.evaluate(() => window.sliced);
  for (const shard of shards) {
    const reads = sliced.filter((r) => r.name === shard.name);
    assert.deepEqual(reads.map((r) => [r.start, r.end]), [[0, 8], [0, shard.headerEnd]], shard.name);
    assert.ok(shard.headerEnd < shard.data.length);
  }
  assert.deepEqual(sliced.filter((r) => !shards.some((s) => s.name === r.name)), []);
  // Three 300 ms reads one after another: the progress line showed, counting the shard headers read.
  const lines = await page.evaluate(() => window.statusLines);
  assert.ok(lines.includes('Reading headers… 1 of 2'), JSON.stringify(lines));
  assert.equal(await page.locator('#file-status').getAttribute('role'), 'status');
  assert.deepEqual(problems, []);
});

test('config.json and hf_quant_config.json are read together, dropped as files or as the checkpoint folder', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=4096');
  // A small Llama: hidden 256, 2 layers, 4 heads, MLP 512, vocab 1000, lm_head apart. NVIDIA ModelOpt's FP8 with
  // lm_head excluded: per layer q, k, v, o 4 × 256² + gate, up, down 3 × 256 × 512 = 655,360 E4M3 weights, 1 B
  // each, and one fp32 scale per matrix (7 × 4 B); × 2 layers = 1,310,776 B. In bf16 the rest: embeddings and
  // lm_head 2 × 256,000, the norms 2 × 2 × 256 + 256 = 513,280 params × 2 B = 1,026,560 B. Total 2,337,336 B.
  const config = JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 256,
    intermediate_size: 512, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 4, vocab_size: 1000,
    max_position_embeddings: 4096, tie_word_embeddings: false });
  const quant = JSON.stringify({ producer: { name: 'modelopt' }, quantization: { quant_algo: 'FP8', exclude_modules: ['lm_head'] } });
  const weightsInCsv = async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-csv').click()]);
    return readFileSync(await download.path(), 'utf8').match(/"breakdown","weights","Weights",(\d+),/)?.[1];
  };
  const transfer = await page.evaluateHandle(({ c, q }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([q], 'hf_quant_config.json', { type: 'application/json' }));
    dt.items.add(new File([c], 'config.json', { type: 'application/json' }));
    return dt;
  }, { c: config, q: quant });
  await page.locator('#drop').dispatchEvent('drop', { dataTransfer: transfer });
  await page.locator('#file-status').filter({ hasText: 'Using config.json + hf_quant_config.json.' }).waitFor();
  assert.equal(await weightsInCsv(), '2337336');
  // The same pair inside a dropped folder, beside files the page passes over (tokenizer, generation config).
  await page.locator('#file-clear').click();
  await page.waitForFunction(() => document.querySelector('#model').value === 'Llama 3.1 8B');
  await page.evaluate(({ c, q }) => {
    const file = (name, text) => ({ isFile: true, isDirectory: false, name, file: (ok) => ok(new File([text], name)) });
    const children = [file('tokenizer.json', '{}'), file('generation_config.json', '{}'), file('config.json', c),
      file('hf_quant_config.json', q)];
    const folder = { isFile: false, isDirectory: true, name: 'Tiny-FP8',
      createReader: () => { let given = false; return { readEntries: (ok) => { ok(given ? [] : children); given = true; } }; } };
    const drop = new Event('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(drop, 'dataTransfer', { value: { items: [{ webkitGetAsEntry: () => folder }], files: [] } });
    document.querySelector('#drop').dispatchEvent(drop);
  }, { c: config, q: quant });
  await page.locator('#file-status').filter({ hasText: 'Using config.json + hf_quant_config.json.' }).waitFor();
  assert.equal(await weightsInCsv(), '2337336');
  // Alone, with no config.json loaded, the quantization file has no model to describe (after a config.json it joins
  // it: tests/browser/checkpoint.test.mjs).
  await page.locator('#file-clear').click();
  await page.waitForFunction(() => document.querySelector('#model').value === 'Llama 3.1 8B');
  await page.locator('#file').setInputFiles([{ name: 'hf_quant_config.json', mimeType: 'application/json', buffer: Buffer.from(quant) }]);
  await page.locator('#input-error').filter({ hasText: 'drop it together with its config.json' }).waitFor();
  assert.equal(await page.locator('#file-status').textContent(), 'Not used: hf_quant_config.json');
  assert.deepEqual(problems, []);
});

test('a shard missing from the index is named, and a lone index asks for its shards', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=4096');
  const { shards, index } = tinyCheckpoint();
  await page.locator('#file').setInputFiles([
    { name: shards[0].name, mimeType: 'application/octet-stream', buffer: shards[0].data },
    { name: 'model.safetensors.index.json', mimeType: 'application/json', buffer: Buffer.from(index) },
  ]);
  // The core's message names the first index entry (in name order) whose shard was not given.
  await page.locator('#input-error').filter({ hasText: /^Model file: index\.weight_map/ }).waitFor();
  assert.equal(await page.locator('#input-error').textContent(), 'Model file: index.weight_map["model.layers.0.input_layernorm.weight"]: ' +
    'names shard "model-00002-of-00002.safetensors", which was not given; add every shard');
  assert.equal(await page.locator('#file-status').textContent(), `Not used: ${shards[0].name}, model.safetensors.index.json`);
  assert.equal(await page.locator('#model').inputValue(), 'Llama 3.1 8B');
  await page.locator('#file').setInputFiles([{ name: 'model.safetensors.index.json', mimeType: 'application/json', buffer: Buffer.from(index) }]);
  await page.locator('#input-error').filter({ hasText: 'only lists the shards' }).waitFor();
  assert.deepEqual(problems, []);
});

test('a pasted config.json is evaluated; invalid JSON gets the core\'s message naming the field', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=4096');
  await page.locator('#paste summary').click();
  await page.locator('#paste-text').fill('{"hidden_size": 4096,');
  await page.locator('#paste-use').click();
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#input-error').textContent(), 'config.json: is not valid JSON');
  assert.equal(await page.locator('#paste-text').getAttribute('aria-invalid'), 'true');
  // Llama 2 7B's shape with untied embeddings: 6,738,415,616 params × 2 B = 13,476,831,232 B = 13.48 GB.
  await page.locator('#paste-text').fill(JSON.stringify({ model_type: 'llama', hidden_size: 4096, intermediate_size: 11008,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 32, vocab_size: 32000, max_position_embeddings: 4096,
    tie_word_embeddings: false }));
  await page.locator('#paste-use').click();
  await waitCell(page, 'weights', '13.48');
  assert.equal(await page.locator('#input-error').isHidden(), true);
  assert.equal(await page.locator('#paste-text').getAttribute('aria-invalid'), null);
  assert.match(await page.locator('#file-status').textContent(), /^Using the pasted config\.json/);
  assert.equal(await page.locator('#model').inputValue(), 'llama (config.json)');
  await page.locator('#file-clear').click();
  await page.waitForFunction(() => document.querySelector('#model').value === 'Llama 3.1 8B');
  assert.deepEqual(problems, []);
});

test('embed.html answers a training scenario from its query', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/embed.html?model=llama-2-7b&mode=train`);
  await page.locator('[data-testid="headline"]').waitFor();
  // Full training, mixed bf16 + AdamW: fp32 gradients 6,738,415,616 × 4 B = 26,953,662,464 B = 26.95 GB.
  assert.match(await page.locator('li[data-line="gradients"]').textContent(), /^Gradients 26\.95 GB/);
  assert.match(await page.locator('.c-model').textContent(), /^Llama 2 7B · Train · 2,048 tokens · ×1$/);
  assert.deepEqual(problems, []);
});

test('a hybrid model shows its layers by kind and its per-sequence state as a line of its own, in both languages', async () => {
  // Qwen3.6-35B-A3B's config: 40 layers, full_attention_interval 4 → 10 full-attention and 30 Gated DeltaNet layers,
  // experts in every layer.
  const { page, problems } = await open('?model=qwen3.6-35b-a3b&engine=llamacpp&weights=q4_k_m&context=32768');
  const facts = page.locator('[data-testid="layer-kinds"]');
  await facts.waitFor({ state: 'visible' });
  assert.equal(await facts.textContent(), '40 layers: 30 linear attention, 10 full attention · mixture of experts in every layer');
  // llama.cpp keeps f32 state (llama-hparams.cpp n_embd_r, n_embd_s): per layer (4 − 1) × (2·16·128 + 32·128)
  // = 24,576 conv + 32·128·128 = 524,288 recurrent elements, × 4 B = 2,195,456 B; × 30 layers = 65,863,680 B = 0.07 GB.
  assert.equal(await cell(page, 'state_cache'), '0.07');
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('[data-testid="layer-kinds"]')?.textContent.startsWith('40 Schichten'));
  assert.equal(await facts.textContent(), '40 Schichten: 30 lineare Attention, 10 volle Attention · Mixture of Experts in jeder Schicht');
  assert.equal(await page.locator('tr[data-line="state_cache"] th').textContent().then((t) => t.startsWith('Zustand je Sequenz')), true);
  await page.locator('#lang').selectOption('en');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a preset counts in the format its checkpoint ships in until another is picked', async () => {
  // gpt-oss-20b ships its experts in MXFP4 (config.json quantization_config.quant_method "mxfp4"): 24 layers ×
  // 32 experts × 3 matrices of 2880 × 2880 = 19,110,297,600 expert weights × 4.25 / 8 B = 10,152,345,600 B; the
  // other ~1.8B parameters in bf16 add ~3.6 GB: 13.76 GB as published, not the 41.8 GB of bf16.
  const { page, problems } = await open('?model=gpt-oss-20b');
  const weights = Number(await cell(page, 'weights'));
  assert.ok(weights > 13.5 && weights < 14.0, `weights ${weights} GB`);
  assert.equal(await page.locator('#weights-format').inputValue(), 'mxfp4');
  assert.doesNotMatch(page.url(), /weights=/);
  // The weights figure opens the tensor groups with their formats: experts in MXFP4, attention kept in bf16
  // (config.json modules_to_not_convert: "model.layers.*.self_attn", "model.layers.*.mlp.router", embeddings, lm_head).
  await page.locator('button[data-explain="weights"]').first().click();
  const groups = page.locator('#explain-groups');
  await groups.waitFor({ state: 'visible' });
  const rows = await groups.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.ok(rows.some(([what, format]) => what === 'Routed experts' && format === 'mxfp4'), JSON.stringify(rows));
  assert.ok(rows.some(([what, format]) => what === 'Attention' && format === 'bf16'), JSON.stringify(rows));
  await page.locator('#explain-close').click();
  // Picking bf16 is the user's choice and enters the URL.
  await page.locator('#weights-bf16').check();
  await page.waitForURL(/weights=bf16/);
  await page.waitForFunction(() => Number(document.querySelector('tr[data-line="weights"] td')?.textContent) > 40);
  assert.deepEqual(problems, []);
});

test('the weights explanation lists the multi-token-prediction layer the files hold, apart from the weights', async () => {
  // Qwen3.6-35B-A3B's config: mtp_num_hidden_layers 1, one full-attention layer with the MoE, fc and norms (vLLM
  // qwen3_5_mtp.py): 844,640,768 weights by hand (test_checkpoint_recipes.cpp), 1.69 GB in bf16. The files hold it;
  // the weights line does not count it (engines load it only to draft tokens).
  const { page, problems } = await open('?model=qwen3.6-35b-a3b');
  await page.locator('button[data-explain="weights"]').first().click();
  const groups = page.locator('#explain-groups');
  await groups.waitFor({ state: 'visible' });
  const rows = await groups.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const mtp = rows.filter(([what]) => what.startsWith('Multi-token prediction'));
  assert.equal(mtp.length, 1, JSON.stringify(rows));
  assert.equal(mtp[0][1], 'bf16');
  assert.match(mtp[0][2], /^0\.84/);
  await page.locator('#explain-close').click();
  assert.deepEqual(problems, []);
});

test('a GPU named as people write it shows as the card it was read as', async () => {
  // "H100" is the catalog's alias of the SXM card: 80 GiB = 85.9 GB, 10 % kept free; gpt-oss-120b in MXFP4 needs
  // 65.25 GB of weights and about 67 GB in all, so it fits; the note says how "H100" was read.
  const { page, problems } = await open('?model=gpt-oss-120b&gpu=H100');
  await page.locator('#headline').filter({ hasText: 'NVIDIA H100 SXM' }).waitFor();
  assert.match(await page.locator('#headline').textContent(), /^Fits on one NVIDIA H100 SXM/);
  assert.equal(await page.locator('#gpu').inputValue(), 'h100-sxm');
  assert.match(await page.locator('#summary').textContent(), /"H100" read as NVIDIA H100 SXM/);
  assert.deepEqual(problems, []);
});

test('llama.cpp\'s fit plan and its command line show for the chosen GPU, and Copy command copies the command', async () => {
  const { page, problems } = await newPage(session);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.base });
  await page.goto(`${session.base}/?model=qwen3-30b-a3b&engine=llamacpp&weights=f16&gpu=rtx-4060-ti-16gb`);
  await page.locator('#engine-plan').waitFor({ state: 'visible' });
  // By hand (tests/unit/memory/test_llamacpp_fit.cpp): 16 GiB less 544 MiB of CUDA context and cuBLAS less the
  // 1024 MiB margin leaves 14816 MiB; at the 4096 floor 2465.5 MiB of attention, KV and compute leave room for
  // 10 layers' experts at 1152 MiB each, so the experts of layers 10-47 (38) stay in RAM.
  const expected = 'llama-server -m Qwen3-30B-A3B-F16.gguf -c 4096 -ngl 48 --n-cpu-moe 38  # llama.cpp b10488';
  assert.equal(await page.locator('[data-testid="command"]').textContent(), expected);
  assert.match(await page.locator('#fit-plan').textContent(),
    /context lowered from 40,960 to 4,096; the experts of 38 layers stay in system RAM \(--n-cpu-moe 38 in the command\)/);
  // The headline agrees with the plan: 61.7 GB of F16 weights do not fit the card whole, llama.cpp runs them so.
  assert.equal(await page.locator('#headline').textContent(),
    'Runs on one GeForce RTX 4060 Ti 16GB as llama.cpp --fit places it: the experts of 38 layers in system RAM, context 4,096');
  // The speed block agrees with the plan: the split's speed, never the whole model on the GPU. By hand: each token
  // reads 8 of 128 experts in each of the 38 layers from RAM, 38 × 1152 MiB × 8/128 = 2736 MiB = 2.87 GB, at most
  // 80 % of the default 60 GB/s: at least 0.060 s per token, so at most 16.7 tokens/s.
  const speed = await page.locator('#speed').textContent();
  const [, high] = speed.match(/Decode[\d.]+–([\d.]+) tokens\/s/);
  assert.ok(Number(high) < 16.7, speed);
  assert.doesNotMatch(speed, /not modelled|if it did/);
  await page.locator('#copy-command').click();
  await page.locator('#action-status').filter({ hasText: 'Copied.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#fit-plan')?.textContent.includes('Kontext von 40.960 auf 4.096 gesenkt'));
  assert.equal(await page.locator('#copy-command').textContent(), 'Befehl kopieren');
  assert.equal(await page.locator('#command-note').textContent(), 'Ersetzen Sie den .gguf-Namen durch den Pfad Ihrer Datei.');
  assert.match(await page.locator('#headline').textContent(), /^Läuft auf einer GeForce RTX 4060 Ti 16GB, wie llama.cpp --fit es aufteilt: die Experten von 38 Schichten im Arbeitsspeicher, Kontext 4\.096$/);
  await page.locator('#lang').selectOption('en');
  // transformers is a library: no command, and the page says why.
  await page.goto(`${session.base}/?model=llama-3.1-8b`);
  await page.locator('#engine-plan').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#command-line').isVisible(), false);
  assert.match(await page.locator('#command-note').textContent(), /^No command: transformers is a library/);
  assert.deepEqual(problems, []);
});

// SGLang's pool (tests/unit/memory/test_sglang.cpp pins it to printed logs), by hand for Llama-3.1-8B on an H100 at
// mem_fraction_static 0.88: free before the weights 79.18 GiB (85,018,877,624 B) less 512 MiB of CUDA context =
// 84,482,006,712 B; floor(0.88 × that) − 16,060,522,496 B of weights = 58,283,643,410 B; / 131,072 B per token
// (32 layers × 8 KV heads × (128 + 128) × 2 B) = 444,668 tokens (SGLang printed 444,500 and 442,750 for this
// model and GPU); 444,668 / 131,072 = 3 whole sequences of the model's 131,072-token context.
test('llama.cpp\'s build in the version picker, in the URL, and at the end of the command (EN/DE)', async () => {
  // b9297 to b9304 plan --fit without room for a draft model; b9305 (PR #23485) to b10488, the default, keep it
  // (tests/unit/memory/test_llamacpp_fit.cpp).
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=qwen2.5-7b&engine=llamacpp&gpu=rtx-4060-ti-8gb`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const version = page.locator('#version');
  assert.deepEqual(await version.locator('option').allTextContents(), ['b9305 to b10488 (default)', 'b9297 to b9304']);
  assert.match(await page.getByTestId('command').textContent(), /  # llama\.cpp b10488$/);
  await version.selectOption('b9297');
  await page.waitForURL(/version=b9297/);
  await page.waitForFunction(() => document.querySelector('[data-testid="command"]')?.textContent.endsWith('  # llama.cpp b9297'));
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#version option')?.textContent.includes('Standard'));
  assert.deepEqual(await version.locator('option').allTextContents(), ['b9305 bis b10488 (Standard)', 'b9297 bis b9304']);
  assert.deepEqual(problems, []);
});

test('SGLang on a chosen GPU: the headline gives its KV pool and concurrency, and the command copies', async () => {
  const { page, problems } = await newPage(session);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.base });
  await page.goto(`${session.base}/?model=llama-3.1-8b&engine=sglang&gpu=h100-sxm&memfrac=0.88`);
  await page.locator('#engine-plan').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#engine').inputValue(), 'sglang');
  assert.equal(await page.locator('#engine option[value="sglang"]').textContent(), 'SGLang');
  assert.equal(await page.locator('#headline').textContent(),
    'Fits on one NVIDIA H100 SXM: SGLang keeps 444,668 tokens of KV cache (mem_fraction_static 0.88), 3 sequences of 131,072 at once');
  const expected = 'python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --mem-fraction-static 0.88  # SGLang 0.5.10';
  assert.equal(await page.locator('[data-testid="command"]').textContent(), expected);
  await page.locator('#copy-command').click();
  await page.locator('#action-status').filter({ hasText: 'Copied.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#headline').textContent.startsWith('Passt auf eine'));
  assert.equal(await page.locator('#headline').textContent(),
    'Passt auf eine NVIDIA H100 SXM: SGLang hält 444.668 Tokens KV-Cache bereit (mem_fraction_static 0,88), 3 Sequenzen zu 131.072 gleichzeitig');
  assert.deepEqual(problems, []);
});

// Ollama's estimate (tests/unit/memory/test_ollama.cpp pins it to printed offload lines), by hand for Llama-3.1-8B
// (bf16 GGUF) at num_ctx 8192 on an RTX 4060 (8 GiB = 8,589,934,592 B, the catalog's nominal memory):
// a layer is 218,112,000 parameters × 2 B + 8192 × 8 KV heads × 256 × 2 B of KV = 469,778,432 B (norms aside); the
// graph's partial estimate (GraphSize, llama, b 512, ctx 8192) 8,388,608 + 701,997,056 = 710,385,664 B is the larger.
// Ollama starts at 457 MiB + one spare layer = 948,977,664 B and adds layers while 948,977,664 + k × 469,778,432 +
// 710,385,664 < 8,589,934,592: k = 14 (15 would need 8,706,039,808). System RAM: the other 18 layers' weights and
// KV (8,456,011,776 B) + the output layer and the token embeddings (2 × 1,050,673,152 B) = 10,557,358,080 B = 10.6 GB.
test('Ollama on a chosen GPU: the headline gives its offloaded layers and system RAM, and the command copies', async () => {
  const { page, problems } = await newPage(session);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.base });
  await page.goto(`${session.base}/?model=llama-3.1-8b&engine=ollama&version=0.11.10&gpu=rtx-4060&context=8192`);
  await page.locator('#engine-plan').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#engine').inputValue(), 'ollama');
  assert.equal(await page.locator('#engine option[value="ollama"]').textContent(), 'Ollama');
  assert.equal(await page.locator('#headline').textContent(),
    'Runs on one GeForce RTX 4060 with Ollama: 14 of 33 layers on the GPU, 10.6 GB in system RAM, num_ctx 8,192');
  // The speed block speaks of that placement (the core reads the 19 layers in RAM at system bandwidth), with no
  // "does not fit" beside a headline that says it runs.
  const speed = await page.locator('#speed-figures').textContent();
  assert.match(speed, /Decode[\d.,–]+ tokens\/s/);
  assert.doesNotMatch(speed, /does not fit|if it did/);
  // Its row in the GPU table says the same as the headline (the core's verdict), not "does not fit — needs 2".
  const badge = page.locator('#gpus tr[data-gpu="rtx-4060"] .badge');
  await badge.waitFor();
  assert.equal(await badge.textContent(), 'runs with 14 of 33 layers on the GPU');
  const expected = 'OLLAMA_CONTEXT_LENGTH=8192 ollama serve  # Ollama 0.11.10';
  assert.equal(await page.locator('[data-testid="command"]').textContent(), expected);
  await page.locator('#copy-command').click();
  await page.locator('#action-status').filter({ hasText: 'Copied.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#headline').textContent.startsWith('Läuft mit Ollama'));
  assert.equal(await page.locator('#engine option[value="ollama"]').textContent(), 'Ollama');
  assert.equal(await page.locator('#headline').textContent(),
    'Läuft mit Ollama auf einer GeForce RTX 4060: 14 von 33 Schichten auf der GPU, 10,6 GB im Arbeitsspeicher, num_ctx 8.192');
  await page.waitForFunction(() => document.querySelector('#gpus tr[data-gpu="rtx-4060"] .badge')?.textContent.startsWith('läuft'));
  assert.equal(await badge.textContent(), 'läuft mit 14 von 33 Schichten auf der GPU');
  assert.deepEqual(problems, []);
});

test('the engine version where its memory rule changed: Ollama 0.30 and later size the context by the GPU, in the URL', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&engine=ollama&gpu=rtx-4090`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const version = page.locator('#version');
  assert.deepEqual(await version.locator('option').allTextContents(),
    ['0.31.2 and later (default)', '0.30.11 to 0.31.1', '0.30.0 to 0.30.10', '0.6.7 to 0.11.10', 'up to 0.6.6']);
  // Ollama from 0.30 (server/routes.go) picks num_ctx by the GPUs' memory: the RTX 4090's driver total, 23.49 GiB,
  // is at least 23 GiB, so 32768 tokens. Llama 3.1 8B's f16 KV cache per token: 32 layers × 2 × 8 heads × 128 × 2 B
  // = 131,072 B; × 32768 = 4 GiB = 4.29 GB. The context is Ollama's default, so the command sets nothing.
  await waitCell(page, 'kv_cache', '4.29');
  // The field stays empty (nothing was typed): its placeholder and the line under it say what Ollama picked.
  assert.equal(await page.locator('#context').inputValue(), '');
  assert.equal(await page.locator('#context').getAttribute('placeholder'), '32768');
  assert.equal(await page.locator('#context-read').textContent(), 'Empty: 32,768 tokens, the default of Ollama');
  assert.equal(await page.getByTestId('command').textContent(), 'ollama serve  # Ollama 0.32.15');
  // Up to 0.11.10 num_ctx is 4096 whatever the GPU: 131,072 B × 4096 = 0.54 GB.
  await version.selectOption('0.11.10');
  await page.waitForURL(/version=0\.11\.10/);
  await waitCell(page, 'kv_cache', '0.54');
  assert.equal(await page.locator('#context').getAttribute('placeholder'), '4096');
  // A version is its engine's: another engine starts at its own default.
  await page.locator('#engine').selectOption('vllm');
  await page.waitForFunction(() => !location.search.includes('version='));
  assert.deepEqual(await version.locator('option').allTextContents(),
    ['0.27 (default)', '0.25 to 0.26', '0.21 to 0.24', '0.9.2 to 0.20']);
  // A version given for an engine without versions is refused on its field, which stays in view to clear it.
  await page.goto(`${session.base}/?model=llama-3.1-8b&version=0.30`);
  await page.locator('#result-error').waitFor({ state: 'visible' });
  assert.equal(await version.isVisible(), true);
  assert.equal(await version.getAttribute('aria-invalid'), 'true');
  assert.deepEqual(problems, []);
});
