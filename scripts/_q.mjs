import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';
const s = await startServer('/work/main/dist', 0, '127.0.0.1', { '/src/': '/work/main/web' });
const base = `http://127.0.0.1:${s.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage();
for (const q of process.argv.slice(2)) {
  await page.goto(`${base}/?${q}`); await page.waitForTimeout(1500);
  console.log(q, '|', await page.evaluate(() => [document.querySelector('#headline')?.textContent, document.querySelector('#input-error')?.textContent, document.querySelector('#result-error')?.textContent, location.search].join(' | ')));
}
process.exit(0);
