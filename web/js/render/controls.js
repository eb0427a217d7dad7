// The form's pickers, filled from the core's catalog: the weight formats by storage scheme, the GPUs by segment,
// each <select data-choices> with the values its input allows, and the number fields' ranges. The labels are the
// page's (i18n/i18n.js); the values are the core's, which checks them and names the field if one is wrong.
import { el } from './view.js';

/** Each <select data-choices name=KEY> offers the allowed values of the input behind URL key KEY; a toggle is on/off. */
export function fillChoices(form, codec, t) {
  for (const select of form.querySelectorAll('select[data-choices]')) {
    const input = codec.input(select.name);
    const values = input.kind === 'toggle' ? ['on', 'off'] : input.values;
    const keep = select.value;
    select.replaceChildren(...values.map((v) => el('option', { value: v, text: t(`${select.name}.${v}`) })));
    select.value = keep;
  }
}

/** The engine's versions into the select: its default ('') and one per other memory rule, as the core lists them
 * (its engine_version input's `versions`); false when the engine has none to choose and none is set. A version
 * from a link that is none of these shows as itself. */
export function fillVersions(select, input, engine, version, t) {
  const versions = input?.versions?.[engine] ? ['', ...input.versions[engine]] : [];
  if (!versions.length && version === '') return false;
  const options = versions.map((v) => el('option', { value: v, text: t(`version.${engine}.${v || 'default'}`) }));
  if (!versions.includes(version)) options.push(el('option', { value: version, text: version }));
  select.replaceChildren(...options);
  select.value = version;
  return true;
}

/** Number fields take their range from their input (min and max attributes). */
export function setRanges(form, codec) {
  for (const field of form.querySelectorAll('input[type="number"]')) {
    const input = codec.input(field.name);
    if (!input) continue;
    field.min = input.min;
    if (input.max !== null) field.max = input.max;
  }
}

/**
 * What a control shows: the state's value, or (when the state leaves it to the core, or a select lacks that
 * spelling, such as adam for adamw) the value the core used, from report.inputs; '' when neither says.
 */
export function shownValue(control, state, report, codec) {
  const key = control.name;
  const own = String(state[key]);
  if (state[key] !== '' && (control.tagName !== 'SELECT' || [...control.options].some((o) => o.value === own))) return own;
  const input = codec.input(key);
  const value = report?.inputs[input.key];
  if (value === undefined || value === null) return '';
  if (input.kind === 'toggle') return value ? 'on' : 'off';
  return String(value);
}

/** The weight formats the catalog lists, one group per storage scheme in the catalog's order. */
export function fillWeightFormats(select, formats, selected, t) {
  const groups = new Map();
  for (const { name, scheme } of formats) {
    if (!groups.has(scheme)) groups.set(scheme, el('optgroup', { label: t(`weights.scheme.${scheme}`) }));
    groups.get(scheme).append(el('option', { value: name, text: name }));
  }
  select.replaceChildren(...groups.values());
  select.value = selected;
}

/**
 * Shows `name` in the weight-format select; a format the list lacks (a checkpoint's own, such as gptq-4bit-32g)
 * gets its own option at the end, so the select never shows a blank or another format.
 */
export function showWeightFormat(select, name) {
  select.querySelector('option[data-own]')?.remove();
  if (name !== '' && ![...select.options].some((o) => o.value === name)) {
    select.append(el('option', { value: name, text: name, 'data-own': '' }));
  }
  select.value = name;
}

/** The catalog's GPUs by segment, after an empty choice labelled by `none` (the core's pick when no GPU is named). */
// `other`: an "Other card…" choice at the end, a card described by its figures (the core's GPU "custom").
export function fillGpuSelect(select, gpus, selected, t, none = 'inputs.gpu.auto', other = false) {
  const groups = new Map();
  for (const g of gpus) {
    if (!groups.has(g.segment)) groups.set(g.segment, el('optgroup', { label: t(`segment.${g.segment}`) }));
    groups.get(g.segment).append(el('option', { value: g.id, text: g.name }));
  }
  const last = other ? [el('option', { value: 'custom', text: t('inputs.gpu.other') })] : [];
  select.replaceChildren(el('option', { value: '', text: t(none) }), ...groups.values(), ...last);
  select.value = selected;
}

export function fillSegmented(container, name, options, selected) {
  container.replaceChildren(...options.map(({ value, label, title }) => {
    const input = el('input', { type: 'radio', name, value, id: `${name}-${value}` });
    input.checked = value === selected;
    return el('label', { class: 'segment', for: `${name}-${value}`, title }, input, el('span', { text: label }));
  }));
}

export function fillOptions(select, pairs) {
  const keep = select.value;
  select.replaceChildren(...pairs.map(([value, text, title]) => el('option', { value, text, title })));
  select.value = keep;
}
