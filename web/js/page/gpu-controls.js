// The GPU's controls: the card picked or described by its figures, a second card, and the share of memory a
// machine whose GPU shares the computer's memory gives it.
import { dom } from './dom.js';
import { page } from './store.js';
import { setLabel } from './language.js';

// A card described by its figures (the core's GPU "custom", or a listed card with other memory): its URL keys.
export const CUSTOM_KEYS = ['gpumem', 'gpubw', 'gputflops', 'gpufp8', 'gpufp4', 'gpuvendor', 'gpuunified'];
export const describesCard = (s) => s.gpu === 'custom' || CUSTOM_KEYS.some((k) => s[k] !== undefined && s[k] !== '');
const saysYes = (value) => ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());

// A machine whose GPU shares the computer's memory (a Mac, a Strix Halo, a DGX Spark or Jetson) behind a GPU id, or
// undefined: only such a GPU has a share to set. A card described by its figures is the answer's, not the catalog's.
const sharesMemory = (g) => g.wired_limit !== undefined || g.shared_memory !== undefined;
export const macOf = (id) => {
  const { calculator, detail } = page;
  return calculator.catalog.gpus.find((g) => g.id === id && sharesMemory(g))
    ?? (detail?.gpus?.length === 1 && detail.gpus[0].id === id && sharesMemory(detail.gpus[0]) ? detail.gpus[0] : undefined);
};

// The share is a shared-memory machine's (its field shows for one only): kept in the state, asked with one chosen.
// A card described by its figures shares memory when the person says so (or is Apple's), as the core reads it.
export function asksShare(state) {
  const sharedCard = describesCard(state) && (saysYes(state.gpuunified)
    || String(state.gpuvendor).toLowerCase() === 'apple' || macOf(state.gpu) !== undefined);
  return macOf(state.gpu) !== undefined || sharedCard;
}

const offered = (select, value) => [...select.options].some((o) => o.value === value);

// The GPU list, the described card's panel, the share and the second card, as the state sets them.
export function writeGpuControls() {
  const { state, detail } = page;
  // A GPU named the way people write it ("H100") shows as the card the core read it as (its one row).
  const named = state.gpu && detail?.gpus?.length === 1 ? detail.gpus[0].id : state.gpu;
  // The panel stays open while the person is in it, though its figures do not describe a card yet.
  const described = describesCard(state) || dom.customGpu.contains(document.activeElement);
  dom.gpu.value = described ? 'custom' : offered(dom.gpu, state.gpu) ? state.gpu : named;  // '' when no option
  showCustomGpu(described);
  showWiredLimit(named);
  showSecondGpu();
}

// A second, different card is llama.cpp's (it splits the layers across unlike cards): its controls show for that
// engine in inference, and whenever one is set, so a link's choice is seen and can be cleared under any engine.
function showSecondGpu() {
  const { state } = page;
  dom.secondGpu.hidden = state.gpu2 === '' && !(state.mode === 'inference' && state.engine === 'llamacpp');
  if (dom.secondGpu.hidden) return;
  dom.gpu2.value = state.gpu2;
  if (document.activeElement !== dom.gpus2Count) dom.gpus2Count.value = state.gpus2;
}

// The field for the GPU's share shows for a machine whose GPU shares the memory, labelled as that machine sets it
// (a Mac's wired limit, a Strix Halo's GTT limit or carve-out, what a DGX Spark or Jetson has free); empty, it shows
// the operating system's default for that machine as its placeholder.
function showWiredLimit(gpuId) {
  const mac = macOf(gpuId);
  dom.wiredControls.hidden = !mac;
  if (!mac) return;
  const kind = mac.shared_memory;  // undefined on a Mac
  setLabel(dom.wiredUnit, kind ? `inputs.wired.unit.${kind}` : 'inputs.wired.unit');
  setLabel(dom.wiredHint, kind ? `inputs.wired.hint.${kind}` : 'inputs.wired.hint');
  dom.wired.placeholder = String(Math.floor(mac.usable_bytes / 2 ** 20));
  if (document.activeElement !== dom.wired) dom.wired.value = page.state.wired;
}

// "Other card…": its fields, and the listed card it is like ('' for a card of its own).
function showCustomGpu(described) {
  dom.customGpu.hidden = !described;
  if (!described) return;
  const { state, detail } = page;
  // The answer names the listed card by its id where the link gave another of its names ("4090").
  const like = detail?.gpus?.length === 1 && detail.gpus[0].custom ? detail.gpus[0].custom : state.gpu;
  const listed = like !== 'custom' && offered(dom.gpuLike, like) ? like : '';
  dom.gpuLike.value = listed;
  // The maker and the sharing describe a card of its own; a listed card keeps its own.
  dom.customGpuOwn.hidden = listed !== '';
  for (const field of [dom.gpumem, dom.gpubw, dom.gputflops, dom.gpufp8, dom.gpufp4]) {
    if (document.activeElement !== field) field.value = String(state[field.name] ?? '');
  }
  // The maker and the sharing as a link may spell them ("NVIDIA", "on"): shown as the lists offer them.
  if (document.activeElement !== dom.gpuvendor) dom.gpuvendor.value = String(state.gpuvendor ?? '').toLowerCase();
  if (document.activeElement !== dom.gpuunified) dom.gpuunified.value = saysYes(state.gpuunified) ? 'yes' : '';
}

// The answer's row for the card the summary describes: a card described by its figures is the answer's own
// ("custom", "rtx-4090-with-48gb"), not the listed card.
export const shownGpu = () => (describesCard(page.state) && page.detail?.gpus?.length === 1
  ? page.detail.gpus[0].id : page.state.gpu);

// Leaves a card picked from the list alone: the figures of one described are dropped.
export function forgetDescribedCard(state) {
  if (state.gpu !== 'custom') for (const k of CUSTOM_KEYS) if (k in state) state[k] = '';
}
