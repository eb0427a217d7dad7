// Offline after the first visit: network first (so a deploy is seen at once), the cache when the network
// fails. Only this origin's GET requests are handled. The one other origin the page asks, huggingface.co when the
// person looks a model up, is read by js/hub.js itself, which keeps each bounded read (the listing, config.json,
// the headers' byte ranges; never weights) in the cache HUB_CACHE: Cache Storage keeps no partial (206) answers, so
// the page stores them as its own; this worker keeps that cache across deploys.
// Both filled in by scripts/bundle.mjs: the cache named after the site's content, and every file of it.
const CACHE = 'vramfit-dev';
const SHELL = ['./', 'index.html'];
const HUB_CACHE = 'vramfit.hub';  // js/hub.js's CACHE

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE && k !== HUB_CACHE).map((k) => caches.delete(k))))
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
