// The scenario state and its URL form: the URL holds the whole state, so links are shareable. The keys are the
// core's inputs that have a URL key (catalog.inputs: `kv` for kv_dtype, `rank` for lora_rank, …) and the page's own
// two: the mode tab and the fine-tune method. The same keys are the <vram-fit> element's attributes and
// embed.html's query. An empty value means "the core's default" (the report's inputs say which value that was), so
// it never enters the URL.

export const MODES = ['inference', 'finetune', 'train'];
export const FINETUNE_METHODS = ['lora', 'qlora', 'grpo'];
// Inputs only RL fine-tuning reads (request keys); the prompt length and vLLM's share are inference's too.
const GRPO_ONLY = ['policy', 'completion_tokens', 'num_generations', 'generation_batch', 'beta', 'sampler'];
const GRPO_SHARED = ['prompt_tokens', 'gpu_util'];

// Where a first visit starts (a preset, one sequence, inference), and the page's own keys (the mode tab, the
// fine-tune method, and a second kind of card beside the chosen GPU with its count). The weights stay
// unset: each model then counts in the format its checkpoint ships in (gpt-oss in MXFP4, an FP8 config in FP8).
const START = { model: 'llama-3.1-8b', batch: 1, mode: 'inference', ft: '', gpu2: '', gpus2: '' };
// Kinds the core reads as numbers: a whole number reaches it as one. Anything else stays text, so the core
// refuses it with a message naming the field (and "300B" as the core reads it). Token counts stay as typed
// ("8k", "32K", "1e5", "128000"): the core reads them all (parse_tokens, k = 1,024), and the field keeps the text.
const NUMERIC_KINDS = new Set(['count', 'quantity', 'number', 'fraction']);
// Sent per question rather than from the state: the model (or a config.json in its place) and the GPU.
const SENT_APART = new Set(['model', 'gpu']);

const used = (input, use) => input.use === 'both' || input.use === 'any' || input.use === use;

/** A mode or fine-tune method the page has no tab or choice for, as {field, value, allowed}; null when known. */
export function unknownChoice(state) {
  if (!MODES.includes(state.mode)) return { field: 'mode', value: state.mode, allowed: MODES.join(', ') };
  if (state.mode === 'finetune' && state.ft !== '' && !FINETUNE_METHODS.includes(state.ft)) {
    return { field: 'ft', value: state.ft, allowed: FINETUNE_METHODS.join(', ') };
  }
  return null;
}

/** The core's mode for the page's tab: fine-tune is LoRA, QLoRA or GRPO (the `ft` choice), train is full training. */
export function coreMode(state) {
  if (state.mode === 'finetune') return state.ft === 'qlora' || state.ft === 'grpo' ? state.ft : 'lora';
  if (state.mode === 'train') return 'train';
  return state.mode;
}

// Cards of two kinds, in device order ([3090, 3090, 4060 Ti]), as the request's `gpus` list: {list}; null with
// one kind; {error: {field, key}} (key: the page's text, {max} in it) for a second card without a first or a count
// that is no whole number from 1. The core judges the list itself (which engines split layers across unlike cards,
// how many devices); a count over 1,024, its limit for a count, is refused here before the list is built.
export const MAX_CARDS = 1024;
export function ownedCards(state) {
  if (state.gpu2 === '') return null;
  if (!state.gpu) return { error: { field: 'gpu2', key: 'error.gpu2First' } };
  const counts = [];
  for (const [field, value] of [['gpus', state.gpus], ['gpus2', state.gpus2]]) {
    const n = value === '' ? 1 : value;
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_CARDS) return { error: { field, key: 'error.cardCount' } };
    counts.push(n);
  }
  return { list: [...Array(counts[0]).fill(state.gpu), ...Array(counts[1]).fill(state.gpu2)] };
}

/** The GPU fields of a request: the cards in `gpus` (ownedCards'), else the chosen one in `gpu`; the core takes
 * one or the other. */
export const gpuFields = (state, cards) => (cards?.list ? { gpus: cards.list } : state.gpu ? { gpu: state.gpu } : {});

/** Whether the state asks for a training estimate. */
export const isTraining = (state) => coreMode(state) !== 'inference';

const codecs = new WeakMap();

/** The state's keys and its URL and request forms, from the core's catalog (one per catalog). */
export function stateCodec(catalog) {
  if (!codecs.has(catalog)) codecs.set(catalog, makeCodec(catalog.inputs.filter((i) => i.url !== '')));
  return codecs.get(catalog);
}

function makeCodec(inputs) {
  const defaults = { ...Object.fromEntries(inputs.map((i) => [i.url, ''])), ...START };
  const keys = Object.keys(defaults);
  // gpus2, the page's own count of the second card, is a number too (the request's `gpus` list is built from it).
  const numeric = new Set([...inputs.filter((i) => NUMERIC_KINDS.has(i.kind)).map((i) => i.url), 'gpus2']);
  // "1e3" is a whole number as the number fields take it; a figure beyond what a double holds exactly (a pasted
  // 400-digit context) stays text, so the core refuses it rather than reading it as Infinity or a rounded value.
  const parse = (key, text) => {
    if (!numeric.has(key) || !/^[+-]?\d+(\.\d*)?(e[+-]?\d+)?$/i.test(text)) return text;
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : text;
  };

  /** State from any string-valued source: URLSearchParams, or an element's attributes via get(name). */
  function from(get) {
    const state = { ...defaults };
    for (const key of keys) {
      const value = get(key);
      if (value !== null && value !== undefined && value !== '') state[key] = parse(key, value);
    }
    // Links made when the page had a FlashAttention on/off toggle (`flash`) name the same setting as `attn`.
    const flash = get('flash');
    if (state.attn === '' && (flash === 'on' || flash === 'off')) state.attn = flash === 'on' ? 'sdpa' : 'eager';
    return state;
  }

  function query(state) {
    const params = new URLSearchParams();
    for (const key of keys) if (state[key] !== '' && state[key] !== defaults[key]) params.set(key, String(state[key]));
    return params.toString();
  }

  return {
    keys,
    parse,
    from,
    fromUrl(search) {
      const params = new URLSearchParams(search);
      return from((key) => params.get(key));
    },
    query,
    url(state) {
      const q = query(state);
      return q ? `?${q}` : location.pathname;
    },
    /** The core's input behind a URL key; where one key is a count in training and a list in the ranking (gpus),
     * the count, which the page's field takes in every mode. */
    input: (key) => inputs.find((i) => i.url === key && numeric.has(key) && NUMERIC_KINDS.has(i.kind))
      ?? inputs.find((i) => i.url === key),
    /** The URL key of a request key; undefined where the page has no control for it. */
    urlKey: (requestKey) => inputs.find((i) => i.key === requestKey)?.url,

    // The request the core evaluates: every input of the mode's kind that the state sets (requestOf).
    // `config` (a dropped config.json's text) stands in for the preset.
    request: (state, { config = null } = {}) => requestOf(inputs, state, config),
    /** The state change that sets these request inputs (a remedy's) in `mode`; null when one has no control here. */
    patch: (requestInputs, mode) => patchOf(inputs, requestInputs, mode),
  };
}

// A non-number is passed through so the core's error (field + allowed range) reaches the user rather than a
// silent default.
function requestOf(inputs, state, config) {
  const mode = coreMode(state);
  const use = mode === 'inference' ? 'inference' : 'training';
  const request = config !== null ? { config } : { model: state.model };
  if (use === 'training') request.mode = mode;
  for (const input of inputs) {
    if (!SENT_APART.has(input.key) && used(input, use) && state[input.url] !== '') request[input.key] = state[input.url];
  }
  if (mode === 'train') delete request.lora_rank;  // the rank is the fine-tune tab's
  // GRPO trains on prompt + completion (its own fields), and only GRPO takes them in training.
  if (mode === 'grpo') for (const key of ['context', 'sequence']) delete request[key];
  else if (use === 'training') for (const key of [...GRPO_ONLY, ...GRPO_SHARED]) delete request[key];
  else for (const key of GRPO_ONLY) delete request[key];
  return request;
}

function patchOf(inputs, requestInputs, mode) {
  const use = mode === 'inference' ? 'inference' : 'training';
  const patch = {};
  for (const [key, value] of Object.entries(requestInputs)) {
    if (key === 'mode') {
      Object.assign(patch, { mode: 'finetune', ft: value });  // lora | qlora: the fine-tune tab
      continue;
    }
    const input = inputs.find((i) => i.key === key && used(i, use));
    if (!input) return null;
    patch[input.url] = value;
  }
  return patch;
}
