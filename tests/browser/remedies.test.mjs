// "What would help" for the person's GPU: on one RTX 4090, Llama 3.1 70B in bf16 does not fit,
// and the list starts with what runs there — llama.cpp with the layers that do not fit in system RAM, with its speed
// — and ends with more GPUs; it says so in English and German, at 1280 and 375 px, and applying the first change
// gives the headline that row announced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage, englishTexts } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const SCENARIO = '?model=llama-3.1-70b&gpu=rtx-4090';

async function open(lang, width) {
  const { page, problems } = await newPage(session, { width, height: 900 });
  await page.addInitScript((l) => localStorage.setItem('vramfit.lang', l), lang);
  await page.goto(`${session.base}/${SCENARIO}`);
  await page.locator('#remedies tr[data-remedy="more-gpus"]').waitFor();
  return { page, problems };
}

const rows = (page) => page.locator('#remedies tr').evaluateAll((trs) => trs.map((tr) => ({
  id: tr.dataset.remedy,
  name: tr.querySelector('th').textContent,
  then: tr.querySelectorAll('td')[1].textContent,
  cost: tr.querySelectorAll('td')[2].textContent,
})));

// Llama 3.1 70B: 80 layers of 855,638,016 bf16 weights, 1.71 GB each, 141 GB in all; 24 GiB hold none of
// transformers' variants (4-bit ~45 GB). llama.cpp's --fit keeps 13 layers in the card's ~22 GiB (less its 1 GiB
// margin), the other 67 (~115 GB) in system RAM; in Q4_K_M (0.52 GB a layer) 42 layers. More GPUs: 8 hold it.
const TEXT = {
  en: {
    summary: /^Nothing here fits on your GeForce RTX 4090 with the headroom free; what runs with a cost/,
    offload: 'llama.cpp with system RAM',
    q4: '4-bit weights (q4_k_m) + llama.cpp with system RAM',
    more: 'Split across 8 GPUs',
    then: /^\d+\.\d\d GB \+ \d{3}\.\d\d GB in system RAM partly in RAM$/,
    cost: /^llama\.cpp from a GGUF file: 13 of 80 layers on the GPU as --fit places them, the rest in system RAM: decoding at [\d.]+-[\d.]+ tokens\/s/,
    q4cost: /42 of 80 layers on the GPU/,
    nofit: 'does not fit',
    headline: /^Runs on one GeForce RTX 4090 as llama\.cpp --fit places it: 13 of 80 layers on the GPU, context 8,192/,
  },
  de: {
    summary: /^Nichts hier passt mit freier Reserve auf Ihre GeForce RTX 4090; was mit Abstrichen läuft/,
    offload: 'llama.cpp mit Arbeitsspeicher',
    q4: '4-Bit-Gewichte (q4_k_m) + llama.cpp mit Arbeitsspeicher',
    more: 'Auf 8 GPUs verteilen',
    then: /^\d+,\d\d GB \+ \d{3},\d\d GB im Arbeitsspeicher teils im RAM$/,
    cost: /^llama\.cpp mit einer GGUF-Datei: 13 von 80 Schichten auf der GPU, wie --fit sie verteilt, der Rest im Arbeitsspeicher: Generierung mit [\d,]+–[\d,]+ Tokens\/s/,
    q4cost: /42 von 80 Schichten auf der GPU/,
    nofit: 'passt nicht',
    headline: /^Läuft auf einer GeForce RTX 4090/,
  },
};

for (const lang of ['en', 'de']) {
  for (const width of [1280, 375]) {
    test(`${lang} at ${width} px: what runs on one RTX 4090 comes first, more GPUs last`, async () => {
      const { page, problems } = await open(lang, width);
      const T = TEXT[lang];
      assert.match(await page.locator('#remedies-intro strong').textContent(), T.summary);
      const list = await rows(page);
      assert.equal(list[0].id, 'offload');
      assert.equal(list[0].name, T.offload);
      assert.match(list[0].then, T.then);
      assert.match(list[0].cost, T.cost);
      const q4 = list.find((r) => r.id === 'weights-4bit+offload');
      assert.ok(q4, 'no 4-bit + offload row');
      assert.equal(q4.name, T.q4);
      assert.match(q4.cost, T.q4cost);
      assert.ok(list.findIndex((r) => r.id === 'weights-4bit+offload') < list.findIndex((r) => r.id === 'weights-4bit'));
      assert.match(list.find((r) => r.id === 'weights-4bit').then, new RegExp(`${T.nofit}$`));
      assert.equal(list.at(-1).id, 'more-gpus');
      assert.equal(list.at(-1).name, T.more);
      assert.ok(await page.locator('#remedies tr').first().isVisible());
      if (lang === 'de') assert.deepEqual(await englishTexts(page), []);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }
}

test('applying the first change gives the headline its row announced', async () => {
  for (const lang of ['en', 'de']) {
    const { page, problems } = await open(lang, 1280);
    await page.locator('#remedies tr[data-remedy="offload"] button.apply').click();
    await page.waitForFunction(() => new URL(location.href).searchParams.get('engine') === 'llamacpp');
    assert.equal(new URL(page.url()).searchParams.get('context'), '8192');
    await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('#headline')?.textContent ?? ''),
      TEXT[lang].headline.source);
    assert.deepEqual(problems, []);
    await page.context().close();
  }
});
