// Offline after the first visit: network first (so a deploy is seen at once), the cache when the network
// fails. Only this origin's GET requests are handled; the page never asks any other origin for anything.
const CACHE = 'vramfit-v1';
const SHELL = ['./', 'index.html', 'embed.html', 'vram-fit.js', 'css/tokens.css', 'css/app.css', 'css/compact.css', 'favicon.svg',
  'vramfit.mjs', 'vramfit.wasm', 'js/app.js', 'js/core.js', 'js/render.js', 'js/view.js', 'js/state.js',
  'js/i18n.js', 'js/format.js', 'js/export.js', 'js/chart.js', 'js/charts.js', 'js/snippet.js', 'js/compact.js',
  'js/embed.js', 'js/vram-fit-element.js', 'css/embed.css', 'js/training.js', 'js/advice.js'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  }).catch(() => caches.match(request, { ignoreSearch: true }).then((hit) => hit ?? Response.error())));
});
