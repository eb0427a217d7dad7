import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';
const s = await startServer('/work/main/dist', 0, '127.0.0.1', {});
const base = `http://127.0.0.1:${s.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const agg = {};
for (let i = 0; i < 5; i++) {
  const ctx = await browser.newContext({ serviceWorkers: 'block' });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 100 }); await cdp.send('Profiler.start');
  await page.goto(base + '/');
  await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas; const counts = {};
  profile.samples.forEach((id, k) => { counts[id] = (counts[id] ?? 0) + (dt[k] ?? 0); });
  for (const [id, us] of Object.entries(counts)) {
    const n = byId.get(Number(id)); const f = n.callFrame;
    const key = `${f.functionName || "(anon)"} ${f.url.split("/").pop()}:${f.lineNumber}:${f.columnNumber}`;
    agg[key] = (agg[key] ?? 0) + us / 1000 / 5;
  }
  await ctx.close();
}
for (const [k, v] of Object.entries(agg).sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log(v.toFixed(1).padStart(7), k);
process.exit(0);
