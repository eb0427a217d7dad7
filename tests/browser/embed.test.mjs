// The embeddable forms: the <vram-fit> element from one script tag, and embed.html in an iframe that
// reports its height to the host page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

test('<vram-fit> renders from its attributes and batches attribute changes into one update', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/examples/element.html`);
  const small = page.locator('#small');
  await page.waitForFunction(() => document.querySelector('#small').report?.ok && document.querySelector('#large').report?.ok);
  // Llama 3.1 70B: 70,553,706,496 params × 2 B (bf16) = 141,107,412,992 B = 141.11 GB of weights.
  assert.match(await page.locator('#large li[data-line="weights"]').textContent(), /^Weights 141\.11 GB/);
  assert.match(await small.locator('[data-testid="headline"]').textContent(), /^Fits on one GeForce RTX 4090 with/);
  const updates = await page.evaluate(async () => {
    const el = document.querySelector('#small');
    let count = 0;
    el.addEventListener('vramfit:update', () => { count += 1; });
    el.setAttribute('weights', 'bf16');
    el.context = 16384; // property reflects to the attribute
    el.setAttribute('batch', '2');
    await new Promise((resolve) => el.addEventListener('vramfit:update', resolve, { once: true }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { count, context: el.getAttribute('context'), total: el.report.breakdown.total, batch: el.report.inputs.batch };
  });
  assert.equal(updates.count, 1);
  assert.equal(updates.context, '16384');
  assert.equal(updates.batch, 2);
  // bf16 weights 16,060,522,496 + KV 2 × 16384 × 131,072 B = 4,294,967,296 + activations + overhead.
  assert.ok(updates.total > 16060522496 + 4294967296);
  assert.match(await page.evaluate(() => document.querySelector('#large').shadowRoot.querySelector('[data-testid="headline"]').textContent), /^Fits \d+(?:\.\d)? GB cards such as the /);
  assert.deepEqual(problems, []);
});

test('a bad attribute shows the core message as text inside the element', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/examples/element.html`);
  await page.waitForFunction(() => document.querySelector('#small').report?.ok);
  await page.evaluate(() => document.querySelector('#small').setAttribute('model', '<img src=x onerror=alert(1)>'));
  await page.waitForFunction(() => document.querySelector('#small').report?.ok === false);
  const text = await page.locator('#small .c-error').textContent();
  assert.match(text, /^Model: no model in the list is called "<img src=x onerror=alert\(1\)>"/);
  assert.equal(await page.evaluate(() => document.querySelector('#small').shadowRoot.querySelectorAll('img').length), 0);
  assert.deepEqual(problems, []);
});

test('embed.html in an iframe resizes itself through postMessage', async () => {
  const { page, problems } = await newPage(session);
  const messages = [];
  await page.exposeFunction('recordMessage', (m) => messages.push(m));
  await page.addInitScript(() => addEventListener('message', (e) => window.recordMessage(e.data)));
  await page.goto(`${session.base}/examples/iframe.html`);
  const frame = page.frameLocator('#vramfit-frame');
  // Mistral 7B: 7,241,732,096 params × 2 B (fp16) = 14,483,464,192 B = 14.48 GB of weights.
  await frame.locator('li[data-line="weights"]').filter({ hasText: 'Weights 14.48 GB' }).waitFor();
  await page.waitForFunction(() => document.querySelector('#vramfit-frame').height !== '150');
  const reported = messages.filter((m) => m?.type === 'vramfit:resize').at(-1);
  const { frameHeight, contentHeight } = await page.evaluate(() => {
    const f = document.querySelector('#vramfit-frame');
    return { frameHeight: Number(f.height), contentHeight: Math.ceil(f.contentDocument.documentElement.getBoundingClientRect().height) };
  });
  assert.equal(frameHeight, reported.height);
  assert.equal(frameHeight, contentHeight);
  assert.deepEqual(problems, []);
});

test('/examples/ lists the embedding examples, and each link opens', async () => {
  const { page, problems } = await newPage(session);
  const response = await page.goto(`${session.base}/examples/`);
  assert.equal(response.status(), 200);
  const links = await page.locator('main a[href$=".html"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.deepEqual(links, ['element.html', 'iframe.html']);
  for (const href of links) assert.equal((await page.request.get(`${session.base}/examples/${href}`)).status(), 200);
  assert.deepEqual(problems, []);
});
