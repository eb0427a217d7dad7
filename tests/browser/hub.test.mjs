// Looking a model up on the Hugging Face Hub from the page: the Hub and its CDN are the local stand-in of
// tests/hub/server.mjs, reached through Playwright routes, so no test leaves the machine. The page asks the network
// only when the person picks "Look up on Hugging Face".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage, englishTexts } from './helpers.mjs';
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

async function hubPage({ lang = 'en', width = 1280, rewrite } = {}) {
  const { page, problems } = await newPage(session, { width, height: 900 });
  const seen = await routeHub(page.context(), hub, { rewrite });
  if (lang === 'de') await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
  await page.goto(`${session.base}/?model=llama-3.1-8b`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const foreign = () => problems.filter((p) => p.startsWith('foreign request: ') && !HUB_HOSTS.test(p.slice(17)));
  const others = () => problems.filter((p) => !p.startsWith('foreign request: ') && !/Failed to load resource|ERR_INTERNET_DISCONNECTED|ERR_FAILED/.test(p));
  return { page, problems, seen, foreign, others };
}

// Types a name in the model search and picks the offer to look it up.
async function lookUp(page, name) {
  await page.locator('#model').fill(name);
  await page.locator('#hub-lookup').waitFor({ state: 'visible' });
  await page.locator('#hub-lookup').click();
}

const hubStatus = (page) => page.locator('#hub-status').textContent();
const weightsCell = (page) => page.locator('tr[data-line="weights"] td').first().textContent();
// The local Hub writes a GGUF header of several MB the first time it is asked (about 2 s), and CI's two cores
// are shared: a generous wait, still far below the page's own 15 s without progress.
const answered = async (page) => {
  await page.locator('#summary').waitFor({ state: 'visible', timeout: 45_000 });
  await page.locator('#hub-status a').waitFor();
};

test('presets and a typed repository make no request until the lookup is picked', async () => {
  const { page, problems, seen } = await hubPage();
  await page.locator('#model').fill('Qwen3 32B');
  await page.locator('#model').press('Enter');
  await page.waitForURL(/model=qwen3-32b/);
  await page.locator('#model').fill('microsoft/phi-4');
  await page.locator('#hub-lookup').waitFor({ state: 'visible' });
  assert.match(await page.locator('#hub-offer').textContent(), /^microsoft\/phi-4 is not one of the presets\. .*huggingface\.co/);
  await page.locator('#model').press('Enter');
  await page.waitForURL(/model=microsoft%2Fphi-4/);
  // No figure stands for a model not read yet; the status says how to get one.
  assert.equal(await page.locator('#summary').isHidden(), true);
  assert.match(await page.locator('#status').textContent(), /look it up on Hugging Face/);
  // A shared link names the repository: the page offers the lookup and waits for it.
  await page.goto(`${session.base}/?model=${encodeURIComponent('unsloth/gpt-oss-20b-GGUF:Q4_K_M')}`);
  await page.locator('#hub-lookup').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#model').inputValue(), 'unsloth/gpt-oss-20b-GGUF:Q4_K_M');
  assert.match(await page.locator('#hub-offer').textContent(), /asks huggingface\.co/);
  assert.equal(await page.locator('#summary').isHidden(), true);
  assert.deepEqual(seen, []);
  assert.deepEqual(problems, []);
});

test('a repository id and a pasted link are read from their headers, never their weights', async () => {
  const { page, seen, foreign, others } = await hubPage();
  const before = hub.requests.length;
  await lookUp(page, 'microsoft/phi-4');
  await answered(page);
  const status = await hubStatus(page);
  // config.json and the headers of the 6 shards (5,117,178,104 + 4 × 4,771,169,1xx + 5,117,188,432 = 29,319,042,960 B
  // as the listing gives them); the Hub's own count, 14,659,507,200 BF16 parameters, beside it.
  assert.match(status, /^microsoft\/phi-4: config\.json and the headers of 6 safetensors files \(29\.32 GB\); the Hub counts 14,659,507,200 parameters \(BF16\)\./);
  assert.equal(await page.locator('#hub-status a').getAttribute('href'), 'https://huggingface.co/microsoft/phi-4');
  // The shards' tensors: 14,659,507,200 × 2 B = 29,319,014,400 B of BF16 weights.
  assert.equal(await weightsCell(page), '29.32');
  assert.match(await page.locator('#model-facts').textContent(), /^microsoft\/phi-4: 14\.66 B parameters/);
  assert.match(page.url(), /model=microsoft%2Fphi-4/);
  assert.equal(await page.locator('#model').inputValue(), 'microsoft/phi-4');
  // Only bounded reads: each shard from its start, by Range, and never more than its first read.
  const mine = hub.requests.slice(before).filter((r) => r.method === 'GET');
  const byFile = new Map();
  for (const r of mine) byFile.set(r.path.split('?')[0], (byFile.get(r.path.split('?')[0]) ?? 0) + r.bytesSent);
  for (const r of mine.filter((r) => r.path.startsWith('/cdn/'))) assert.match(r.range ?? '', /^bytes=\d+-\d+$/, r.path);
  for (const [file, bytes] of byFile) assert.ok(bytes <= 262_144, `${file}: ${bytes} bytes`);
  assert.ok(seen.every((s) => HUB_HOSTS.test(s.url)));

  // The same repository as a link from the browser's address bar: read the same way.
  await page.locator('#model').fill('llama-3.1-8b');
  await page.locator('#summary').waitFor({ state: 'visible' });
  await lookUp(page, 'https://huggingface.co/microsoft/phi-4/tree/main');
  await answered(page);
  assert.match(await hubStatus(page), /^microsoft\/phi-4: config\.json and the headers of 6 safetensors file/);
  assert.equal(await page.locator('#model').inputValue(), 'microsoft/phi-4');
  assert.deepEqual(foreign(), []);
  assert.deepEqual(others(), []);
});

test('a GGUF repository with :QUANT reads that file, and another quantization re-reads its header', async () => {
  const { page, foreign, others } = await hubPage();
  const before = hub.requests.length;
  await lookUp(page, 'unsloth/gpt-oss-20b-GGUF:Q4_K_M');
  await answered(page);
  // gpt-oss-20b-Q4_K_M.gguf is 11,624,759,488 B in the listing: 11.62 GB in the summary and the choice.
  assert.match(await hubStatus(page), /^unsloth\/gpt-oss-20b-GGUF: Q4_K_M, 11\.62 GB in 1 file \(as asked\)/);
  const options = await page.locator('#hub-quant option').allTextContents();
  assert.deepEqual(options, ['Q4_K_M (11.62 GB)', 'F16 (13.79 GB)']);
  assert.equal(await page.locator('#hub-quant').inputValue(), 'Q4_K_M');
  // The weights line is the file's tensor data: its size less the header.
  const weights = Number(await weightsCell(page));
  assert.ok(weights > 11.5 && weights <= 11.62, `weights ${weights}`);
  const gguf = hub.requests.slice(before).filter((r) => r.path.startsWith('/cdn/'));
  assert.ok(gguf.reduce((sum, r) => sum + r.bytesSent, 0) <= 64 * 2 ** 20);
  // F16 (13,786,023,936 B): a header read of its own file, the listing kept from the first read.
  const listings = hub.requests.filter((r) => r.path.startsWith('/api/models/unsloth/gpt-oss-20b-GGUF')).length;
  await page.locator('#hub-quant').selectOption('F16');
  await page.waitForFunction(() => document.querySelector('#hub-status').textContent.includes('F16, 13.79 GB'));
  await page.locator('#summary').waitFor({ state: 'visible' });
  assert.match(page.url(), /model=unsloth%2Fgpt-oss-20b-GGUF%3AF16/);
  assert.equal(hub.requests.filter((r) => r.path.startsWith('/api/models/unsloth/gpt-oss-20b-GGUF')).length, listings);
  assert.deepEqual(foreign(), []);
  assert.deepEqual(others(), []);
});

// llama-server fetches a Hub file from the repository's default branch only (-hf; common/hf-cache.cpp at 0216dab3, as
// tests/node/lookup-draft-cli.test.mjs quotes it), so a GGUF read at another revision is fetched by its URL, -mu
// (tools/server/README.md at 00dc8057): the page hands the core the revision read (model_revision). The test Hub's
// vramfit-test/qwen3-0.6b-draft-quants-GGUF has a tag v1 beside main (tests/hub/README.md).
test('a Hub GGUF read at a tag: llama-server fetches that file by its URL, and the link keeps the tag', async () => {
  const { page, foreign, others } = await hubPage();
  const repo = 'vramfit-test/qwen3-0.6b-draft-quants-GGUF';
  const tree = `https://huggingface.co/${repo}/tree/v1`;
  const fileUrl = (quant) => `https://huggingface.co/${repo}/resolve/v1/qwen3-0.6b-draft-${quant}.gguf`;
  const commandIs = (quant) => page.waitForFunction((start) => document.querySelector('#command-text').textContent
    .startsWith(start), `llama-server -mu ${fileUrl(quant)} -c 4096 `, { timeout: 45_000 });
  // Read again after a reload of the page's own link: the lookup is offered, and picked, as a person would.
  const reloaded = async (quant) => {
    await page.reload();
    await page.locator('#hub-lookup').click();
    await answered(page);
    await commandIs(quant);
    assert.equal(await page.locator('#hub-quant').inputValue(), quant);
  };
  await page.goto(`${session.base}/?model=qwen3-8b&engine=llamacpp&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await lookUp(page, tree);
  await answered(page);
  const quant = await page.locator('#hub-quant').inputValue();
  await commandIs(quant);
  assert.doesNotMatch(await page.locator('#command-text').textContent(), / -hf /);
  assert.equal(new URL(page.url()).searchParams.get('model'), tree);
  await reloaded(quant);
  // The other quantization: its own file at the same tag, and a link naming both.
  const other = quant === 'Q8_0' ? 'F16' : 'Q8_0';
  await page.locator('#hub-quant').selectOption(other);
  await commandIs(other);
  assert.equal(new URL(page.url()).searchParams.get('model'), `${tree}/${other}`);
  await reloaded(other);
  assert.equal(new URL(page.url()).searchParams.get('engine'), 'llamacpp');
  assert.deepEqual(foreign(), []);
  assert.deepEqual(others(), []);
});

test('a GGUF split in parts is read as one model', async () => {
  const { page, others } = await hubPage();
  await lookUp(page, 'unsloth/Qwen3-235B-A22B-Instruct-2507-GGUF');
  await answered(page);
  // 51,851,523,904 + 51,499,294,496 + 48,791,110,048 = 152,141,928,448 B in the listing.
  assert.match(await hubStatus(page), /Q4_K_M, 152\.14 GB in 3 files/);
  assert.deepEqual(await page.locator('#hub-quant option').allTextContents(), ['Q4_K_M (152.14 GB in 3 files)']);
  assert.deepEqual(others(), []);
});

test('a gated, a missing and a rate-limited repository say so at the model field, and nothing stale stays', async () => {
  // The gated fixture's name is a preset's (Llama 3.1 8B): asked under another name, the Hub answers for it.
  const { page, others } = await hubPage({ rewrite: (p) => p.replaceAll('vramfit-test/gated-llama', 'meta-llama/Llama-3.1-8B-Instruct') });
  const error = page.locator('#input-error');
  await lookUp(page, 'vramfit-test/gated-llama');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /^Model: vramfit-test\/gated-llama is gated: its files need an approved Hugging Face account/);
  for (const id of ['summary', 'answer-bar', 'gpu-section', 'charts-section', 'remedies-section', 'ranking-section']) {
    assert.equal(await page.locator(`#${id}`).isHidden(), true, `#${id} stays hidden`);
  }
  assert.equal(await page.locator('#model').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#hub-lookup').isVisible(), true);  // to try again

  await lookUp(page, 'vramfit-test/no-such-repo');
  await page.waitForFunction(() => document.querySelector('#input-error').textContent.includes('no-such-repo'));
  assert.match(await error.textContent(), /^Model: the Hugging Face Hub has no model vramfit-test\/no-such-repo \(or it is private\)$/);

  await lookUp(page, 'vramfit-test/rate-limited');
  await page.waitForFunction(() => document.querySelector('#input-error').textContent.includes('rate-limited'));
  assert.match(await error.textContent(), /too many requests/);
  assert.equal(await page.locator('#summary').isHidden(), true);
  // A preset again: the error goes, the answer comes back.
  await page.locator('#model').fill('llama-3.1-8b');
  await page.locator('#summary').waitFor({ state: 'visible' });
  assert.equal(await error.isHidden(), true);
  assert.equal(await page.locator('#hub').isHidden(), true);
  assert.deepEqual(others(), []);
});

test('offline or blocked, the lookup says so; a repository read once answers from its copy', async () => {
  const { page, seen, others } = await hubPage();
  const error = page.locator('#input-error');
  const offline = async (on) => {
    seen.offline = on;
    await page.context().setOffline(on);
  };
  await offline(true);
  await lookUp(page, 'nvidia/Qwen3-235B-A22B-NVFP4');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /^Model: the Hugging Face Hub cannot be reached \(offline\?\) to look up nvidia\/Qwen3-235B-A22B-NVFP4$/);
  await offline(false);

  // Read once, with the network.
  await page.locator('#hub-lookup').click();
  await answered(page);
  assert.match(await hubStatus(page), /^nvidia\/Qwen3-235B-A22B-NVFP4: config\.json only/);
  assert.doesNotMatch(await hubStatus(page), /copy read on/);
  const total = await page.locator('#total-gb').textContent();
  // Gone from the network: the copy in this browser answers, and says from when. A second page of the same
  // browser (its Cache Storage, not this page's memory) loads while online, then asks with the network gone.
  const second = await page.context().newPage();
  await second.goto(`${session.base}/?model=llama-3.1-8b`);
  await second.locator('#summary').waitFor({ state: 'visible' });
  await offline(true);
  await lookUp(second, 'nvidia/Qwen3-235B-A22B-NVFP4');
  await answered(second);
  assert.match(await hubStatus(second), /huggingface\.co could not be reached: this is the copy read on /);
  assert.equal(await second.locator('#total-gb').textContent(), total);
  await second.close();
  await offline(false);

  // A request the browser blocks (a filter, the cross-origin rules): named as such.
  await page.context().route('https://huggingface.co/api/models/microsoft/**', (route) => route.abort('blockedbyclient'));
  await lookUp(page, 'microsoft/phi-4');
  await page.waitForFunction(() => document.querySelector('#input-error').textContent.includes('could not be reached'));
  assert.match(await error.textContent(), /^Model: huggingface\.co could not be reached about microsoft\/phi-4: a network filter, the browser's cross-origin rules or a redirect to an insecure address stopped it$/);
  assert.deepEqual(others(), []);
});

test('a newer lookup supersedes one still running', async () => {
  const { page, others } = await hubPage();
  await lookUp(page, 'vramfit-test/hang');
  await page.waitForFunction(() => document.querySelector('#hub-status').textContent.startsWith('Asking huggingface.co about vramfit-test/hang'));
  assert.equal(await page.locator('#summary').isHidden(), true);
  assert.match(await page.locator('#status').textContent(), /Asking huggingface\.co about vramfit-test\/hang/);
  await lookUp(page, 'unsloth/gpt-oss-20b-GGUF');
  await answered(page);
  assert.match(await hubStatus(page), /^unsloth\/gpt-oss-20b-GGUF: Q4_K_M/);
  assert.match(page.url(), /model=unsloth%2Fgpt-oss-20b-GGUF/);
  // A preset typed while a lookup runs: the preset answers, the lookup's result never shows.
  await lookUp(page, 'vramfit-test/hang');
  await page.locator('#model').fill('llama-3.1-8b');
  await page.locator('#summary').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#hub').isHidden(), true);
  assert.deepEqual(others(), []);
});

test('an Ollama name is told how to go on', async () => {
  const { page, seen, others } = await hubPage();
  await page.locator('#model').fill('phi4');
  await page.locator('#model').press('Enter');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  const text = await page.locator('#input-error').textContent();
  assert.match(text, /^Model: no model in the list is called "phi4"/);
  assert.match(text, /cannot reach Ollama's library from the browser\. Type the Hugging Face repository of a GGUF instead \(for example unsloth\/phi-4-GGUF:Q4_K_M\), or use the command-line tool: vramfit --model phi4$/);
  assert.deepEqual(seen, []);
  assert.deepEqual(others(), []);
});

test('an Ollama tag of a preset answers as Ollama runs it, with no request', async () => {
  const { page, seen, others } = await hubPage();
  await page.locator('#model').fill('llama3.1:8b');
  await page.locator('#model').press('Enter');
  // models.json cites the Q4_K_M file llama3.1:8b ships; the engine is Ollama, said beside the answer.
  await page.waitForFunction(() => document.body.textContent.includes("Ollama's llama3.1:8b: the engine is Ollama"));
  assert.equal(await page.locator('#engine').inputValue(), 'ollama');
  assert.equal(await page.locator('#model').inputValue(), 'llama3.1:8b');
  assert.ok((await page.locator('body').textContent()).includes("Ollama's llama3.1:8b ships Q4_K_M weights"));
  assert.deepEqual(seen, []);
  assert.deepEqual(others(), []);
});

test('in German: the offer, the reading and its errors', async () => {
  const { page, foreign, others } = await hubPage({ lang: 'de', width: 375 });
  await page.locator('#model').fill('microsoft/phi-4');
  await page.locator('#hub-lookup').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#hub-lookup').textContent(), 'Auf Hugging Face nachschlagen');
  assert.match(await page.locator('#hub-offer').textContent(), /^microsoft\/phi-4 ist keine der Vorlagen\./);
  await page.locator('#hub-lookup').click();
  await answered(page);
  assert.match(await hubStatus(page), /^microsoft\/phi-4: config\.json und die Header von 6 safetensors-Dateien \(29,32 GB\)/);
  assert.equal(await weightsCell(page), '29,32');
  assert.deepEqual(await englishTexts(page), []);
  await lookUp(page, 'vramfit-test/no-such-repo');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^Modell: /);
  assert.deepEqual(await englishTexts(page), []);
  await page.locator('#model').fill('phi4');
  await page.locator('#model').press('Enter');
  await page.waitForFunction(() => document.querySelector('#input-error').textContent.includes('Ollama'));
  assert.match(await page.locator('#input-error').textContent(), /Kommandozeilenwerkzeug: vramfit --model phi4$/);
  assert.deepEqual(foreign(), []);
  assert.deepEqual(others(), []);
});
