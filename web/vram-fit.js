// One script tag gives a page the <vram-fit> element:
//   <script type="module" src="https://…/vram-fit.js"></script>
//   <vram-fit model="llama-3.1-8b" weights="int4" context="8192"></vram-fit>
// Registration only; the class is in js/vram-fit-element.js (import it to register under another name).
import { VramFitElement } from './js/vram-fit-element.js';

if (!customElements.get('vram-fit')) customElements.define('vram-fit', VramFitElement);

export { VramFitElement };
