// Pieces shared by the full page, embed.html and <vram-fit>: DOM building with textContent only (names from
// a URL or a config file never become markup), the breakdown lines a report carries, and the headline.
const KNOWN_ORDER = ['weights', 'gradients', 'optimizer', 'master_weights', 'kv_cache', 'state_cache', 'activations',
  'temporary', 'overhead'];
const KNOWN_COLOURS = new Set(['weights', 'kv_cache', 'state_cache', 'activations', 'overhead', 'gradients',
  'optimizer', 'master_weights', 'temporary']);
// Lines only some models have (the per-sequence state of linear-attention and Mamba layers): left out at 0.
const ONLY_WHEN_USED = new Set(['state_cache']);

/** A table's header of sort buttons; `sort` / `direction` say which column is active and how (aria-sort). */
export function sortHeader(columns, sort, direction, t) {
  return columns.map((c) => {
    const active = c.key === sort;
    return el('th', { scope: 'col', class: c.num ? 'num' : null, 'aria-sort': active ? direction : null },
      el('button', { type: 'button', class: 'sort', 'data-sort': c.key, 'aria-label': t('gpus.sort', { column: t(c.label) }) },
        t(c.label), el('span', { class: 'sort-mark', 'aria-hidden': 'true', text: active ? (direction === 'descending' ? ' ▼' : ' ▲') : '' })));
  });
}

// Verdicts best first, for every table that sorts by them.
export const FIT_ORDER = { fits: 0, tight: 1, does_not_fit: 2 };

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// Lines that are a part of another line (the fp32 master copy is inside the optimizer states): shown as
// "of which" under their parent, never stacked or summed a second time.
const WITHIN = { master_weights: 'optimizer' };

/**
 * Every numeric line of report.breakdown except the total, known ones in a fixed order and new ones after
 * (as the core adds lines they appear without a page change). Each carries its colour class; a line that is
 * part of another carries `within` (the parent's key) and follows its parent.
 */
export function breakdownLines(breakdown) {
  const keys = Object.keys(breakdown).filter((k) => k !== 'total' && Number.isFinite(breakdown[k])
    && !(ONLY_WHEN_USED.has(k) && breakdown[k] === 0));
  keys.sort((a, b) => rank(a) - rank(b));
  let extra = 0;
  const lines = keys.map((key) => ({
    key, bytes: breakdown[key], colour: KNOWN_COLOURS.has(key) ? `seg-${key}` : `seg-extra-${extra++ % 4}`,
    within: WITHIN[key] && keys.includes(WITHIN[key]) ? WITHIN[key] : null,
  }));
  const parts = lines.filter((l) => l.within);
  const out = [];
  for (const line of lines.filter((l) => !l.within)) out.push(line, ...parts.filter((p) => p.within === line.key));
  return out;
}

/** The lines that stack up to the total (bar, charts): no "of which" parts. */
export const stackedLines = (lines) => lines.filter((l) => !l.within);
const rank = (key) => { const i = KNOWN_ORDER.indexOf(key); return i < 0 ? KNOWN_ORDER.length : i; };

/** Whether the core gave both ends of a range ({low, high}). */
export const isRange = (r) => r && Number.isFinite(r.low) && Number.isFinite(r.high);

/** "23.9–48.1" (or one number when both ends agree). */
export function rangeText(r, f, digits) {
  const low = f.number(r.low, digits); const high = f.number(r.high, digits);
  return low === high ? low : `${low}–${high}`;
}

/** The uncertainty range of the total, when the report carries one: {low, high} in bytes. */
export function totalRange(report) {
  const r = report.range;
  return r && Number.isFinite(r.low) && Number.isFinite(r.high) ? r : null;
}

/**
 * Which row of the report's GPU list the headline speaks about. Choosing, not computing: the chosen GPU if
 * there is one; otherwise the smallest card that fits with headroom (then a tight one) among the cards people
 * most likely have: consumer cards first, then workstation, data-centre and Apple (in the segment shown); then
 * the one needing the fewest cards (largest memory on a tie).
 */
export function headlineGpu(gpus, { gpu = '', segment = 'all' } = {}) {
  // A GPU named by a short form ("H100") has one row, the card the core read it as.
  if (gpu) return gpus.find((g) => g.id === gpu) ?? (gpus.length === 1 ? gpus[0] : null);
  const pool = gpus.filter((g) => segment === 'all' || g.segment === segment);
  const rank = (g) => { const i = SEGMENTS.indexOf(g.segment); return i < 0 ? SEGMENTS.length : i; };
  const smallest = (fit) => pool.filter((g) => g.fit === fit)
    .sort((a, b) => rank(a) - rank(b) || a.usable_bytes - b.usable_bytes)[0];
  return smallest('fits') ?? smallest('tight') ?? pool.filter((g) => g.gpus_needed > 0)
    .sort((a, b) => a.gpus_needed - b.gpus_needed || b.usable_bytes - a.usable_bytes)[0] ?? null;
}
const SEGMENTS = ['consumer', 'workstation', 'datacenter', 'apple'];

/**
 * With no GPU chosen the headline speaks of a class of cards ("24 GB cards such as the GeForce RTX 3090 / 4090"):
 * the cards of the row's segment, vendor and memory with the same verdict, oldest and newest in catalogue order.
 */
export function cardClass(gpus, row) {
  const peers = gpus.filter((g) => g.segment === row.segment && g.memory_bytes === row.memory_bytes && g.fit === row.fit
    && g.vendor === row.vendor);
  const names = [...new Set(peers.map((g) => g.name))];
  return { size: Math.round(row.memory_bytes / 2 ** 30), names: names.length > 1 ? [names[0], names.at(-1)] : [row.name] };
}

/**
 * The headline for the row headlineGpu chose. `vllm` (the report's vLLM pool, passed only when it was sized for
 * that GPU): vLLM takes its share of the card for the KV cache, so what it leaves is KV room, not free memory.
 * `jobGpus`: a training job's GPUs, each holding the breakdown. `cards`: cardClass's, when no GPU was chosen.
 * `plan`: llama.cpp's --fit plan on the chosen GPU. `sglang`: the report's SGLang pool, passed as `vllm` is.
 * `ollama`: Ollama's own estimate, its layers placed on the chosen GPU.
 */
/** Whether llama.cpp's --fit plan runs on the row's GPU what the whole model there would not (part in system RAM). */
export const runsByPlan = (plan, row) => Boolean(plan?.fits && row?.fit === 'does_not_fit'
  && (plan.step === 'experts' || plan.step === 'layers'));

// "one H100", "4 × H100" or "your 4 × H100": the GPUs an engine's pool (tensor × pipeline parallel) is sized across.
const deploymentText = (pool, row, t, f, owned) => {
  const gpus = pool.tensor_parallel * pool.pipeline_parallel;
  const many = owned > 1 ? 'headline.yourGpus' : 'headline.gpus';
  return gpus > 1 ? t(many, { count: f.count(gpus), gpu: row.name }) : t('headline.oneGpu', { gpu: row.name });
};

/** Whether Ollama runs the model on the row's GPU with some layers in system RAM. */
export const ollamaSplits = (ollama) => Boolean(ollama?.planned && ollama.gpu_usable && ollama.layers_offload > 0
  && ollama.layers_offload < ollama.layers_model);

export function headlineText(row, t, f, options = {}) {
  const text = verdictHeadline(row, t, f, options);
  // A Mac's GPU takes its memory from the RAM: the headline says how much of it the verdict counted.
  if (!row?.wired_limit || runsByPlan(options.plan, row)) return text;
  return text + t(`headline.wired.${row.wired_limit}`, { usable: f.bytesShort(row.usable_bytes) });
}

function verdictHeadline(row, t, f, {
  vllm = null, sglang = null, ollama = null, jobGpus = 1, cards = null, plan = null, owned = 1,
} = {}) {
  if (!row) return t('headline.none');
  if (ollama?.planned && ollama.layers_offload === ollama.layers_model) {
    return t('headline.ollama', { gpu: row.name, layers: f.count(ollama.layers_model), context: f.count(ollama.num_ctx),
      vram: f.bytesShort(ollama.required_partial_bytes) });
  }
  if (ollamaSplits(ollama)) {
    return t('headline.ollamaSplit', { gpu: row.name, n: f.count(ollama.layers_offload), total: f.count(ollama.layers_model),
      ram: f.bytesShort(ollama.system_ram_bytes), context: f.count(ollama.num_ctx) });
  }
  // The headline says what the plan does, as the plan's own text does.
  if (runsByPlan(plan, row)) {
    const how = plan.step === 'experts' ? t('headline.plan.experts', { n: f.count(plan.cpu_expert_layers) })
      : t('headline.plan.layers', { n: f.count(plan.gpu_layers), total: f.count(plan.total_layers) });
    return t('headline.plan', { gpu: row.name, how, context: f.count(plan.context) });
  }
  const free = f.bytesShort(Math.max(0, row.free_bytes));
  if (cards && jobGpus === 1 && (row.fit === 'fits' || row.fit === 'tight')) {
    const key = `headline.${row.fit}Class${owned > 1 ? 'Owned' : ''}`;
    return t(key, { count: f.count(owned), size: f.count(cards.size), names: cards.names.join(' / '), free });
  }
  // A training job over several GPUs: the breakdown is per GPU, so the verdict is about each of them.
  if (jobGpus > 1 && (row.fit === 'fits' || row.fit === 'tight')) {
    return t(`headline.${row.fit}Each`, { count: f.count(jobGpus), gpu: row.name, free: f.bytesShort(Math.max(0, row.free_bytes)) });
  }
  if (vllm && (row.fit === 'fits' || row.fit === 'tight') && vllm.max_concurrency >= 1) {
    return t('headline.vllm', {
      gpus: deploymentText(vllm, row, t, f, owned),
      tokens: f.count(vllm.kv_capacity_tokens), seqs: f.count(vllm.max_concurrency), length: f.count(vllm.sequence_tokens),
    });
  }
  if (sglang && (row.fit === 'fits' || row.fit === 'tight') && sglang.max_concurrency >= 1) {
    return t('headline.sglang', {
      gpus: deploymentText(sglang, row, t, f, owned),
      tokens: f.count(sglang.max_total_num_tokens), seqs: f.count(sglang.max_concurrency),
      length: f.count(sglang.context_len), fraction: f.number(sglang.mem_fraction_static, 3),
    });
  }
  // The GPUs the person has: the verdict is the fullest one's, its free memory is what each keeps at least.
  if (owned > 1) {
    if (row.fit === 'fits' || row.fit === 'tight') return t(`headline.${row.fit}Owned`, { count: f.count(owned), gpu: row.name, free });
    if (Number.isFinite(row.free_bytes) && row.free_bytes < 0) {
      return t('headline.shortOwned', { count: f.count(owned), gpu: row.name, short: f.bytesShort(-row.free_bytes) });
    }
  }
  if (row.fit === 'fits') return t('headline.fits', { gpu: row.name, free: f.bytesShort(row.free_bytes) });
  if (row.fit === 'tight') return t('headline.tight', { gpu: row.name, free: f.bytesShort(Math.max(0, row.free_bytes)) });
  if (row.gpus_needed > 0) return t('headline.needs', { count: f.count(row.gpus_needed), gpu: row.name });
  if (row.fit === 'does_not_fit' && Number.isFinite(row.free_bytes)) {
    return t('headline.short', { gpu: row.name, short: f.bytesShort(-row.free_bytes) });
  }
  return t('headline.none');
}

/** The headline of a report as the page, its exports and the embeds show it: {row, text, fit} (fit: its colour). */
export function headline(report, { t, f, gpu = '', segment = 'all' }) {
  const row = headlineGpu(report.gpus, { gpu, segment });
  const chosen = Boolean(gpu) && row !== null;
  const plan = chosen ? report.llamacpp_fit : null;
  const ollama = chosen ? report.ollama ?? null : null;
  const text = headlineText(row, t, f, { vllm: chosen ? report.vllm : null, sglang: chosen ? report.sglang ?? null : null, ollama,
    jobGpus: report.inputs?.gpus ?? 1, plan,
    cards: !gpu && row ? cardClass(report.gpus, row) : null, owned: report.per_gpu?.gpus ?? 1 });
  // Running with part of the model in system RAM is a yes with a cost: the colour of a tight fit.
  return { row, text, fit: runsByPlan(plan, row) || ollamaSplits(ollama) ? 'tight' : row?.fit ?? 'none' };
}

export function verdictText(row, t, f) {
  if (row.fit === 'does_not_fit' && row.gpus_needed > 1) return t('fit.needs', { n: f.count(row.gpus_needed) });
  return t(`fit.${row.fit}`);
}

/** The stacked bar: one segment per line, widths proportional to bytes (flex-grow set through CSSOM). */
export function fillBar(bar, lines, total, t, f) {
  const stacked = stackedLines(lines);
  bar.replaceChildren(...stacked.filter((l) => l.bytes > 0).map((line) => {
    const seg = el('span', { class: `seg ${line.colour}`, title: `${t(`line.${line.key}`)}: ${f.bytes(line.bytes)}` });
    seg.style.flexGrow = String(line.bytes);
    return seg;
  }));
  bar.setAttribute('role', 'img');
  bar.setAttribute('aria-label', `${t('breakdown.bar')}: ${stacked.map((l) => `${t(`line.${l.key}`)} ${f.bytes(l.bytes)} (${f.share(l.bytes, total)})`).join(', ')}`);
}

/**
 * The layer summary from the core's counts (report.model.layer_mixers, layer_mlps): "40 layers: 30 linear attention,
 * 10 full attention · mixture of experts in every layer"; null without layers.
 */
export function layerSummary(model, t, f) {
  const { layer_mixers: mixers, layer_mlps: mlps } = model;
  if (!mixers.length) return null;
  const list = (counts, key, prefix) => (counts.length === 1 ? t('layers.every', { kind: t(`${prefix}.${counts[0][key]}`) })
    : counts.map((c) => `${f.count(c.count)} ${t(`${prefix}.${c[key]}`)}`).join(', '));
  return `${t('layers.mixers', { n: f.count(model.layers), kinds: list(mixers, 'mixer', 'mixer') })} · ${list(mlps, 'mlp', 'mlp')}`;
}
