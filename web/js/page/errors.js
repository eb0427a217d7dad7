// An input the core cannot use: its message beside the headline (where the answer would be) and under the field
// it names, which is outlined.
import { dom } from './dom.js';
import { page, view, TRAINING_ALIASES } from './store.js';

const controls = () => dom.form.querySelectorAll('input[id], select, textarea');

// Shown only while an answer is on screen: an input the core cannot use hides every one of them, so no figure
// stays up that no longer matches the inputs.
export const answerParts = () => [dom.summary, dom.answerBar, dom.remediesSection, dom.chartsSection, dom.gpuSection,
  dom.rankingSection, dom.embedSection];

// The controls a request field the core names belong to: its input's URL key, or the page's own (file, ft).
function controlName(field) {
  if (field === 'config') return page.config?.pasted ? 'paste' : 'model';  // a pasted config marks the text it came from
  return page.codec.urlKey(TRAINING_ALIASES[field] ?? field) ?? field;
}

// Focus moves to the field unless the person is typing in a field.
export function showError(field, message, { focus = true } = {}) {
  const text = `${view.t(`field.${field}`)}: ${message}`;
  for (const part of answerParts()) part.hidden = true;
  dom.status.hidden = true;
  dom.resultError.textContent = text;
  dom.resultError.hidden = false;
  page.errorShown = true;
  const name = controlName(field);
  const invalid = [...controls()].filter((input) => input.name === name);
  markInvalid(invalid);
  dom.inputError.textContent = text;
  dom.inputError.hidden = false;
  // The model field's message follows the Hub box under it, so the box (and its button) never moves.
  const anchor = invalid[0] === dom.model ? dom.hub : invalid[0]?.closest('fieldset, .drop, details') ?? invalid[0];
  if (anchor) anchor.after(dom.inputError);
  else dom.form.querySelector('.inputs-body').append(dom.inputError);
  const typing = document.activeElement?.matches?.('input[type="text"], input[type="number"], input:not([type]), textarea');
  if (focus && invalid[0] && !typing && !invalid.includes(document.activeElement)) {
    if (invalid[0].closest('details')) invalid[0].closest('details').open = true;
    invalid[0].focus();
    reveal(dom.inputError);
  }
}

// aria-invalid="" would read as false: the value must be "true".
function markInvalid(invalid) {
  for (const input of controls()) {
    if (invalid.includes(input)) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-errormessage', 'input-error');
    } else {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-errormessage');
    }
  }
}

// Into view under its field: the wide layout's inputs panel scrolls on its own (the window scrolling instead would
// take the message beside the headline out of view); the narrow layout scrolls the page.
function reveal(node) {
  const panel = dom.form;
  if (panel.scrollHeight <= panel.clientHeight) {
    node.scrollIntoView({ block: 'nearest' });
    return;
  }
  const bottom = Math.min(panel.getBoundingClientRect().bottom, window.innerHeight);
  const below = node.getBoundingClientRect().bottom - bottom;
  if (below > 0) panel.scrollTop += below + 16;
}

export function clearError() {
  dom.resultError.hidden = true;
  dom.inputError.hidden = true;
  page.errorShown = false;
  markInvalid([]);
}
