// A Mac's GPU takes its memory from the RAM, as much as macOS lets it wire: the page judges it by that limit, shows
// the wired-limit field for Apple GPUs only, and offers raising it when the default share is too small.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

async function open(query) {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}
const headline = (page) => page.getByTestId('headline').textContent();

test('an Apple GPU is judged by its wired limit, and the field for it shows for Macs only (EN/DE)', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&gpu=apple-m3-max-36gb');
  await page.locator('#wired-controls').waitFor({ state: 'visible' });
  // macOS's default on 36 GiB: three quarters, 27 GiB = 27,648 MiB (llama.cpp logs 28991.03 MB on such a Mac).
  assert.equal(await page.locator('#wired').getAttribute('placeholder'), '27648');
  assert.match(await headline(page), /^Fits on one Apple M3 Max 36GB.* with .* \(of the 29\.0 GB macOS lets its GPU use by default\)$/);
  // 32,768 MiB = 34.36 GB: the verdict counts it, and the link keeps it.
  await page.locator('#wired').fill('32768');
  await page.waitForFunction(() => /\(of the 34\.4 GB its GPU may use with the limit set\)$/.test(document.querySelector('[data-testid="headline"]').textContent));
  assert.match(page.url(), /wired=32768/);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => /die seine GPU mit der gesetzten Grenze nutzen darf\)$/.test(document.querySelector('[data-testid="headline"]').textContent));
  assert.equal(await page.locator('label[for="wired"] [data-i18n="inputs.wired"]').textContent(), 'GPU-Speichergrenze');
  await page.locator('#lang').selectOption('en');
  // More than the Mac has: the field is named, with its limit.
  await page.locator('#wired').fill('40000');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^GPU memory limit: must be at most the Apple M3 Max 36GB.*'s RAM, 36864 MB/);
  assert.equal(await page.locator('#wired').getAttribute('aria-invalid'), 'true');
  await page.locator('#wired').fill('32768');
  await page.locator('#input-error').waitFor({ state: 'hidden' });
  // A discrete card has memory of its own: no field, and the Mac's limit (kept in the link) is not asked of it.
  await page.locator('#gpu').selectOption('rtx-4090');
  await page.locator('#wired-controls').waitFor({ state: 'hidden' });
  await page.waitForFunction(() => /^Fits on one GeForce RTX 4090 with [\d.]+ GB free$/.test(document.querySelector('[data-testid="headline"]').textContent));
  assert.equal(await page.locator('#result-error').isHidden(), true);
  // Back on a Mac the limit applies again.
  await page.locator('#gpu').selectOption('apple-m3-max-36gb');
  await page.waitForFunction(() => /limit set\)$/.test(document.querySelector('[data-testid="headline"]').textContent));
  assert.deepEqual(problems, []);
});

test('a Mac whose default share is too small is offered raising iogpu.wired_limit_mb, with the risk, and Apply fits it', async () => {
  // Llama 3.1 70B in q4_k_m at 16k under llama.cpp: more than the 48 GiB a 64 GB M2 Max wires by default.
  const { page, problems } = await open('?model=llama-3.1-70b&engine=llamacpp&weights=q4_k_m&context=16384&gpu=apple-m2-max-64gb');
  const row = page.locator('#remedies tr[data-remedy="wired-limit"]');
  await row.waitFor();
  assert.match(await row.locator('th').textContent(), /^Raise the GPU memory limit to [\d,]+ MB$/);
  assert.match(await row.locator('td').first().textContent(), /^\+[\d.]+ GB for the GPU$/);
  assert.match(await row.textContent(), /sudo sysctl iogpu\.wired_limit_mb=\d+ .*freeze or restart/);
  await row.locator('button.apply').click();
  await page.waitForFunction(() => Number(new URL(location.href).searchParams.get('wired')) > 49152);
  await page.waitForFunction(() => /^Fits on one Apple M2 Max 64GB.*limit set\)$/.test(document.querySelector('[data-testid="headline"]').textContent));
  // The command to run sets the limit first: macOS forgets it at every restart.
  assert.match(await page.locator('#command-text').textContent(), /^sudo sysctl iogpu\.wired_limit_mb=\d+\nllama-server /);
  assert.deepEqual(problems, []);
});

// MLX's command (tests/unit/memory/test_mlx.cpp pins its peak to mlx_lm.generate's printed "Peak memory"):
// the checkpoint's repository, --kv-bits 8 for the q8_0-sized cache, the prompt from standard input.
test('MLX in the engine picker: judged on the Mac, its mlx_lm.generate command copies (EN/DE), a GeForce refused', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&engine=mlx&weights=mlx-4bit&kv=q8_0&context=8192&gpu=apple-m2-ultra-192gb');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.base });
  await page.locator('#engine-plan').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#engine').inputValue(), 'mlx');
  assert.equal(await page.locator('#engine option[value="mlx"]').textContent(), 'MLX (Mac)');
  assert.match(await headline(page), /^Fits on one Apple M2 Ultra 192GB/);
  const expected = 'mlx_lm.generate --model meta-llama/Llama-3.1-8B --kv-bits 8 --prompt -  # mlx-lm 0.31.3';
  assert.equal(await page.locator('[data-testid="command"]').textContent(), expected);
  await page.locator('#copy-command').click();
  await page.locator('#action-status').filter({ hasText: 'Copied.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected);
  assert.match(await page.locator('#command-note').textContent(),
    /^MLX runs mlx-4bit from a checkpoint quantized to it: mlx_lm\.convert --hf-path meta-llama\/Llama-3\.1-8B -q, .*The prompt is read from standard input/);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => /^MLX führt mlx-4bit aus einem Checkpoint aus, .*mlx_lm\.convert --hf-path meta-llama\/Llama-3\.1-8B -q .*Der Prompt wird von der Standardeingabe gelesen/
    .test(document.querySelector('#command-note').textContent));
  await page.locator('#lang').selectOption('en');
  // MLX is modelled on Metal only: a discrete card is refused at the GPU field.
  await page.locator('#gpu').selectOption('rtx-4090');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^GPU: MLX is modelled on Apple GPUs only/);
  assert.deepEqual(problems, []);
});

// mlx-lm's version picks which positions the prompt's last call computes logits for (tests/unit/memory/test_mlx.cpp
// pins both rules to generate.py at v0.26.4 and v0.27.0): Qwen3-0.6B at 2048 tokens under 0.26.4 holds 2048 ×
// 151,936 bf16 logits, 0.63 GB of activations; from 0.27 the last token's only.
test('MLX\'s version picker: up to 0.26.4 the prompt\'s last chunk computes its logits, in the URL', async () => {
  const { page, problems } = await open('?model=qwen3-0.6b&engine=mlx&weights=mlx-4bit&context=2048&gpu=apple-m2-ultra-192gb');
  const version = page.locator('#version');
  await version.waitFor({ state: 'visible' });
  assert.deepEqual(await version.locator('option').allTextContents(), ['0.27 and later (default)', '0.22.2 to 0.26.4']);
  await page.waitForFunction(() => document.querySelector('tr[data-line="activations"] td')?.textContent === '0.05');
  await version.selectOption('0.26.4');
  await page.waitForURL(/version=0\.26\.4/);
  await page.waitForFunction(() => document.querySelector('tr[data-line="activations"] td')?.textContent === '0.63');
  assert.deepEqual(problems, []);
});
