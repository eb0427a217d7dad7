// The scenario state and its URL form: the URL holds the whole state, so links are shareable.
// The same keys are the <vram-fit> element's attributes and embed.html's query.
export const DEFAULTS = Object.freeze({
  model: 'llama-3.1-8b', weights: 'bf16', context: null, batch: 1, gpu: '', mode: 'inference',
});

export const KEYS = Object.freeze(Object.keys(DEFAULTS));
const NUMERIC = new Set(['context', 'batch']);

// Numbers stay strings if malformed: the core refuses them with a message naming the field.
function parseValue(key, value) {
  return NUMERIC.has(key) && /^\d+$/.test(value) ? Number(value) : value;
}

/** State from any string-valued source: URLSearchParams, or an element's attributes via get(name). */
export function stateFrom(get) {
  const state = { ...DEFAULTS };
  for (const key of KEYS) {
    const value = get(key);
    if (value === null || value === undefined || value === '') continue;
    state[key] = parseValue(key, value);
  }
  return state;
}

export const stateFromUrl = (search) => {
  const params = new URLSearchParams(search);
  return stateFrom((key) => params.get(key));
};

export function queryFromState(state) {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    if (state[key] !== null && state[key] !== '' && state[key] !== DEFAULTS[key]) params.set(key, String(state[key]));
  }
  return params.toString();
}

export function urlFromState(state) {
  const query = queryFromState(state);
  return query ? `?${query}` : location.pathname;
}

// The request the core evaluates. A non-number context or batch is passed through so the core's
// error (field + allowed range) reaches the user rather than a silent default. `mode` is sent only when
// the core lists it (catalog.modes), so today's core never sees a key it would refuse.
export function requestFromState(state, { modes = [] } = {}) {
  const request = { model: state.model, weights: state.weights, batch: state.batch };
  if (state.context !== null) request.context = state.context;
  if (state.mode !== 'inference' && modes.includes(state.mode)) request.mode = state.mode;
  return request;
}

/** Whether the core can answer this mode yet (inference always; others once the catalog lists them). */
export const modeSupported = (mode, modes = []) => mode === 'inference' || modes.includes(mode);
