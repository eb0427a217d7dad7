// One script tag gives a page the <vram-fit> element:
//   <script type="module" src="https://…/vram-fit.js"></script>
//   <vram-fit model="llama-3.1-8b" weights="int4" context="8192"></vram-fit>
// Registration only; the class is in js/embed/vram-fit-element.js (import it and await VramFitElement.ready to
// register it under another name).
import { VramFitElement } from './js/embed/vram-fit-element.js';

await VramFitElement.ready;  // its attributes are the core's inputs, known once the core is loaded
if (!customElements.get('vram-fit')) customElements.define('vram-fit', VramFitElement);

export { VramFitElement };
