// Host side of the iframe embed: size each vramfit iframe to the height it reports.
const vramfitOrigin = new URL('..', import.meta.url).origin;
addEventListener('message', (event) => {
  if (event.origin !== vramfitOrigin || event.data?.type !== 'vramfit:resize') return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) frame.height = String(event.data.height);
  }
});
