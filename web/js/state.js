// The scenario state and its URL form: the URL holds the whole state, so links are shareable.
export const DEFAULTS = Object.freeze({ model: 'llama-3.1-8b', weights: 'bf16', context: null, batch: 1 });

const KEYS = ['model', 'weights', 'context', 'batch'];

export function stateFromUrl(search) {
  const params = new URLSearchParams(search);
  const state = { ...DEFAULTS };
  for (const key of KEYS) {
    const value = params.get(key);
    if (value === null || value === '') continue;
    // Numbers stay strings if malformed: the core refuses them with a message naming the field.
    state[key] = key === 'context' || key === 'batch' ? (/^\d+$/.test(value) ? Number(value) : value) : value;
  }
  return state;
}

export function urlFromState(state) {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    if (state[key] !== null && state[key] !== DEFAULTS[key]) params.set(key, String(state[key]));
  }
  const query = params.toString();
  return query ? `?${query}` : location.pathname;
}

// The request the core evaluates. A non-number context or batch is passed through so the core's
// error (field + allowed range) reaches the user rather than a silent default.
export function requestFromState(state) {
  const request = { model: state.model, weights: state.weights, batch: state.batch };
  if (state.context !== null) request.context = state.context;
  return request;
}
