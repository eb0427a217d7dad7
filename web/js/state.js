// The scenario state and its URL form: the URL holds the whole state, so links are shareable.
// The same keys are the <vram-fit> element's attributes and embed.html's query. An empty value means
// "the core's default" (the report's inputs say which value that was), so it never enters the URL.
export const DEFAULTS = Object.freeze({
  model: 'llama-3.1-8b', weights: 'bf16', context: null, batch: 1, gpu: '', mode: 'inference',
  // inference
  engine: '', kv: '',
  // fine-tune (ft: lora | qlora) and train
  ft: '', rank: '', optimizer: '', precision: '', checkpointing: '', flash: '', zero: '', gpus: '', offload: '', tokens: '',
});

export const KEYS = Object.freeze(Object.keys(DEFAULTS));
const NUMERIC = new Set(['context', 'batch', 'rank', 'gpus']);

// Numbers stay strings if malformed: the core refuses them with a message naming the field (and a negative
// one as the number it is).
function parseValue(key, value) {
  return NUMERIC.has(key) && /^-?\d+$/.test(value) ? Number(value) : value;
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

export const MODES = ['inference', 'finetune', 'train'];
export const FINETUNE_METHODS = ['lora', 'qlora'];

/** A mode or fine-tune method the page has no tab or choice for, as {field, value, allowed}; null when known. */
export function unknownChoice(state) {
  if (!MODES.includes(state.mode)) return { field: 'mode', value: state.mode, allowed: MODES.join(', ') };
  if (state.mode === 'finetune' && state.ft !== '' && !FINETUNE_METHODS.includes(state.ft)) {
    return { field: 'ft', value: state.ft, allowed: FINETUNE_METHODS.join(', ') };
  }
  return null;
}

/** The core's mode for the page's tab: fine-tune is LoRA or QLoRA (the `ft` choice), train is full training. */
export function coreMode(state) {
  if (state.mode === 'finetune') return state.ft === 'qlora' ? 'qlora' : 'lora';
  if (state.mode === 'train') return 'train';
  return state.mode;
}

/** Whether the state asks for a training estimate. */
export const isTraining = (state) => coreMode(state) !== 'inference';

// Training request keys fed from the state: [state key, request key, how to send it].
const TRAINING_KEYS = [
  ['optimizer', 'optimizer'], ['precision', 'precision'], ['checkpointing', 'checkpointing'], ['zero', 'zero'],
  ['offload', 'offload'], ['gpus', 'gpus'], ['flash', 'flash_attention'], ['tokens', 'tokens'],
];

// The request the core evaluates. A non-number context or batch is passed through so the core's
// error (field + allowed range) reaches the user rather than a silent default. `config` (a dropped
// config.json's text) stands in for the preset.
export function requestFromState(state, { config = null } = {}) {
  const source = config !== null ? { config } : { model: state.model };
  if (isTraining(state)) {
    const mode = coreMode(state);
    const request = { ...source, mode, batch: state.batch };
    if (state.context !== null) request.context = state.context;
    for (const [key, field] of TRAINING_KEYS) if (state[key] !== '') request[field] = state[key];
    if (mode !== 'train' && state.rank !== '') request.lora_rank = state.rank;
    return request;
  }
  const request = { ...source, weights: state.weights, batch: state.batch };
  if (state.context !== null) request.context = state.context;
  if (state.engine !== '') request.engine = state.engine;
  if (state.kv !== '') request.kv_dtype = state.kv;
  return request;
}
