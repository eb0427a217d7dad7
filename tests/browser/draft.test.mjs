// Issue 31, part 1: speculative decoding's draft under "Also on this GPU": its own line in the breakdown, the link
// keeps it, and the section opens by itself for a link that carries it (EN/DE, 375 px).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

async function open(query, viewport) {
  const { page, problems } = await newPage(session);
  if (viewport) await page.setViewportSize(viewport);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}

test('a draft model: chosen under "Also on this GPU", its line in the breakdown, kept by the link (EN/DE)', async () => {
  const { page, problems } = await open('?model=qwen2.5-7b&engine=llamacpp&weights=q4_k_m&context=4096');
  assert.equal(await page.locator('#also-on-gpu').getAttribute('open'), null);
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('#draft').selectOption('qwen2.5-0.5b');
  await page.waitForFunction(() => document.querySelector('#breakdown').textContent.includes('Draft model'));
  assert.equal(new URL(page.url()).searchParams.get('draft'), 'qwen2.5-0.5b');
  await page.locator('#drafttokens').fill('8');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('drafttokens') === '8');
  // The shared link opens the section with the draft chosen.
  const again = await open(new URL(page.url()).search);
  assert.notEqual(await again.page.locator('#also-on-gpu').getAttribute('open'), null);
  assert.equal(await again.page.locator('#draft').inputValue(), 'qwen2.5-0.5b');
  assert.equal(await again.page.locator('#drafttokens').inputValue(), '8');
  await again.page.locator('#lang').selectOption('de');
  await again.page.waitForFunction(() => document.querySelector('#also-on-gpu > summary').textContent === 'Außerdem auf dieser GPU');
  await again.page.waitForFunction(() => document.querySelector('#breakdown').textContent.includes('Entwurfsmodell'));
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});

test('the draft section at 375 px: nothing wider than the screen', async () => {
  const { page, problems } = await open('?model=qwen2.5-7b&engine=llamacpp&draft=qwen2.5-0.5b', { width: 375, height: 800 });
  assert.notEqual(await page.locator('#also-on-gpu').getAttribute('open'), null);
  const wide = await page.evaluate(() => [...document.querySelectorAll('#also-draft *')]
    .filter((n) => n.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((n) => n.id || n.tagName));
  assert.deepEqual(wide, []);
  assert.deepEqual(problems, []);
});
