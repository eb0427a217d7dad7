// "Also on this GPU": what shares the card beside the model (memory already in use, other models, a vision model's
// images, a draft model for speculative decoding). Each control shows the state's values; the section opens by itself when
// the state (a link's) sets one of their keys. A control joins with alsoControl({keys, show(current)}).
import { dom } from './dom.js';
import { page, view, shown } from './store.js';
import { fillOptions } from '../render/controls.js';
import { isTraining } from '../state.js';
import { showAlsoModels } from './also-models.js';
import { showDraftHub } from './draft-hub.js';

const controls = [];
export const ALSO_KEYS = [];

/** Adds a control to the section: its state keys, and show(current) writing them (current: the answer or null). */
export function alsoControl({ keys, show }) {
  controls.push({ keys, show });
  ALSO_KEYS.push(...keys);
}

/** Every control of the section as the state sets them; `current`: the answer, or null without one. */
export function showAlso(current) {
  dom.alsoOnGpu.hidden = isTraining(page.state);  // what shares the card is asked of inference only
  for (const control of controls) control.show(current);
  if (ALSO_KEYS.some((k) => page.state[k] !== undefined && page.state[k] !== '')) dom.alsoOnGpu.open = true;
}

const showField = (field) => {
  if (document.activeElement !== field) field.value = String(page.state[field.name] ?? '');
};

// Memory already in use on the card.
alsoControl({ keys: ['inuse'], show: () => showField(dom.inuse) });

// Other models loaded first, each with its context.
alsoControl({ keys: ['also'], show: showAlsoModels });

// A vision model's images: shown for a model with a vision tower (the answer's `vision`), or while the state carries
// them (so a refused value can be cleared).
alsoControl({
  keys: ['images', 'imgsize'],
  show(current) {
    const asked = ['images', 'imgsize'].some((k) => page.state[k] !== undefined && page.state[k] !== '');
    dom.alsoVision.hidden = !(current?.vision || asked);
    showField(dom.images);
    showField(dom.imgsize);
    if (current?.vision && current.vision.image_width) dom.imgsize.placeholder = `${current.vision.image_width}x${current.vision.image_height}`;
  },
});

// Speculative decoding's draft: none, the model's own MTP layers where its files hold them, a preset, or a model on the
// Hugging Face Hub (page/draft-hub.js).
alsoControl({ keys: ['draft', 'drafttokens', 'acceptance'], show: showDraft });

function showDraft() {
  const { state, calculator } = page;
  const mtp = (shown()?.weights?.mtp_layers?.bytes ?? 0) > 0 || state.draft === 'mtp';
  const ids = ['', ...(mtp ? ['mtp'] : []), ...calculator.catalog.models.map((m) => m.id)];
  if (state.draft !== '' && !ids.includes(state.draft)) ids.push(state.draft);
  const text = (id) => (id === '' ? view.t('draft.none') : id === 'mtp' ? view.t('draft.mtp')
    : calculator.catalog.models.find((m) => m.id === id)?.name ?? id);
  const choices = ids.map(text).join('\n');
  if (view.draftChoices !== choices) {
    fillOptions(dom.draft, ids.map((id) => [id, text(id)]));
    view.draftChoices = choices;
  }
  if (document.activeElement !== dom.draft) dom.draft.value = state.draft;
  showField(dom.draftTokens);
  showField(dom.acceptance);
  showDraftHub();
}
