// The Hub's hosts routed to the local Hub (tests/hub/server.mjs) for the browser tests: nothing leaves the machine.
import { newPage } from './helpers.mjs';

export const CDN = 'https://cas-bridge.xethub.hf.co';
export const HUB_HOSTS = /^https:\/\/(huggingface\.co|cas-bridge\.xethub\.hf\.co)\//;

// Every request to huggingface.co or the CDN is answered by the local Hub: method, path and Range (and
// Authorization, never sent by the page) forwarded; its status, headers and body returned as they are.
// The Hub's 302 to the https CDN host is followed here, with the same headers, rather than handed to the page:
// Chromium follows a redirect answered by route.fulfill() outside the routes (Playwright 1.61: the CDN hop went to
// DNS, net::ERR_NAME_NOT_RESOLVED), which would leave the machine. `rewrite` maps a path first.
// `seen.offline = true` answers as a browser without a network does (routes are asked before the browser's
// offline emulation, so it alone would not stop them).
export async function routeHub(context, hub, { rewrite = (p) => p } = {}) {
  const seen = [];
  const handler = async (route) => {
    if (seen.offline) {
      await route.abort('internetdisconnected');
      return;
    }
    const request = route.request();
    const url = new URL(request.url());
    seen.push({ method: request.method(), url: request.url(), range: request.headers().range ?? null });
    const headers = {};
    for (const name of ['range', 'authorization']) {
      const value = await request.headerValue(name);
      if (value) headers[name] = value;
    }
    try {
      let response = await fetch(hub.url + rewrite(url.pathname + url.search), { method: request.method(), headers, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status === 302 && location?.startsWith(`${CDN}/`)) {
        await response.arrayBuffer();
        const cdn = new URL(location);
        seen.push({ method: request.method(), url: location, range: headers.range ?? null });
        response = await fetch(hub.url + cdn.pathname + cdn.search, { method: request.method(), headers, redirect: 'manual' });
      }
      const body = Buffer.from(await response.arrayBuffer());
      const out = Object.fromEntries([...response.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)));
      await route.fulfill({ status: response.status, headers: out, body });
    } catch {
      await route.abort().catch(() => {});  // the server went away (a hanging repository at the end)
    }
  };
  await context.route('https://huggingface.co/**', handler);
  await context.route(`${CDN}/**`, handler);
  return seen;
}


/** A new page of `session` whose Hub requests `hub` answers, opened at `query`: {page, problems, seen}. */
export async function openOnHub(session, hub, query, viewport) {
  const { page, problems } = await newPage(session, viewport);
  const seen = await routeHub(page.context(), hub);
  await page.goto(`${session.base}/${query}`);
  return { page, problems, seen };
}

/** A page's problems less its requests to the Hub's hosts, which the routes answered locally. */
export const offHub = (problems) => problems.filter((p) => !(p.startsWith('foreign request: ') && HUB_HOSTS.test(p.slice(17))));
