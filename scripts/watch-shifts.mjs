// Before a page's scripts run: its language, and window.shifted summing the layout shifts made without input
// (the Layout Instability API, as cumulative layout shift counts them). For scripts/budgets.mjs and the browser
// tests alike.
export async function openInWatchingShifts(page, lang) {
  await page.addInitScript((l) => {
    localStorage.setItem('vramfit.lang', l);
    window.shifted = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.shifted += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  }, lang);
}
