// Hand-written declarations for the vramfit WebAssembly module (vramfit.mjs + vramfit.wasm); wasm/README.md says
// what each key means. Every function takes and returns JSON text: JSON.stringify a Request, JSON.parse an Answer.
// Byte counts are numbers (exact up to 2^53). To use them, copy this file beside vramfit.mjs as vramfit.d.mts.

/** Options of the Emscripten factory that the module reads. */
export interface VramfitModuleOptions {
  /** The .wasm bytes: needed in Node.js (its fetch rejects file paths) and in a page opened from file://. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the .wasm lives, given its file name and the glue's directory. */
  locateFile?: (path: string, scriptDirectory: string) => string;
  /** Emscripten's hook to instantiate the .wasm yourself (the page passes one compiled while it loads): call
   * `receive` with the instance and module, and return {}. */
  instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

/** One shard of a sharded safetensors checkpoint: its name, its size and its first bytes. */
export interface Shard {
  name: string;
  size: number;
  bytes: Uint8Array;
}

export interface VramfitModule {
  /** A Request as JSON text → an Answer as JSON text. */
  answer(requestJson: string): string;
  /** The lists for pickers → Catalog as JSON text. */
  catalog(): string;
  /** The same questions about a .gguf / .safetensors file, by its first bytes, its size and its name. */
  answer_file(prefix: Uint8Array, fileSize: number, fileName: string, requestJson: string): string;
  /** The same questions about a sharded safetensors checkpoint; `indexJson` may be ''. */
  answer_shards(files: Shard[], indexJson: string, requestJson: string): string;
  /** What a typed model name is: a file's path, a preset, a Hub repository or an Ollama model (NameReading as JSON text). */
  read_model_name(name: string, revision: string): string;
  /** After the Hub's model API answered `listingJson`: which files to read, bounded (HubPlan as JSON text). */
  plan_hub_reads(name: string, revision: string, listingJson: string): string;
  /** A failed read as a person should read it (LookupFailure as JSON text in, an error Answer out). */
  lookup_failure(failureJson: string): string;
  /** Reads a ModelRead (as JSON text) once and keeps it under `key`, replacing what the key held: requests name it by
   * the key in place of the description (`draft_read: key`, `also_read: {name: key}`). KeptRead as JSON text. */
  keep_read(key: string, descriptionJson: string): string;
  /** Drops the read kept under `key` (nothing when none is). */
  forget_read(key: string): void;
}

/** keep_read's answer; an error names the description's field under the key ("KEY.files[0]"). */
export type KeptRead = { ok: true; key: string; name: string } | ErrorAnswer;

/** read_model_name's answer. */
export type NameReading =
  | { ok: true; kind: 'file'; name: string }
  | { ok: true; kind: 'preset'; model: string;
      /** Named by one of the preset's Ollama tags: where the registry keeps that tag's file. */
      ollama?: { namespace: string; name: string; tag: string; manifest: string; max_bytes: number;
        /** The lookup's summary when that file cannot be read and the preset answers without it. */
        unread: Message } }
  | { ok: true; kind: 'hub'; repo: string; revision: string; quant: string; file: string; listing: string; max_bytes: number }
  | { ok: true; kind: 'ollama'; namespace: string; name: string; tag: string; manifest: string; max_bytes: number; preset_error: Message }
  | { ok: false; error: { field: string; message: Message } };

/** plan_hub_reads' answer: paths are relative to the Hub's endpoint. */
export interface HubPlan {
  ok: true;
  kind: 'gguf' | 'safetensors' | 'config';
  repo: string;
  commit: string;
  gated: '' | 'auto' | 'manual';
  /** Whole texts to read: the request key they go to ("config", "quant_config"), their path and bound. */
  texts: { role: 'config' | 'quant_config'; path: string; max_bytes: number }[];
  /** Files to read from their start: first_read_bytes first, then what answer_shards' need_prefix_bytes asks. */
  headers: { name: string; path: string; size: number }[];
  first_read_bytes: number;
  max_header_bytes: number;
  gguf?: { quant: string; picked: 'asked' | 'default' | 'first'; choices: { quant: string; size: number; files: number }[] };
  parameters: Record<string, number>;
  parameters_total: number;
  summary: Message;
  /** What else the repository holds that the estimate does not count (a vision projector, other safetensors). */
  notes: Message[];
}

/** lookup_failure's input. */
export interface LookupFailure {
  service: 'hub' | 'ollama';
  name: string;
  status?: number;
  error_code?: string;
  token?: boolean;
  gated?: boolean;
  failure?: 'timeout' | 'offline' | 'too_large' | 'insecure_redirect' | 'redirects' | 'blocked' | 'not_cached' | 'bad_range';
  limit?: number;
}

declare function createVramfit(options?: VramfitModuleOptions): Promise<VramfitModule>;
export default createVramfit;

// ---- Requests ----

export type Question = 'estimate' | 'limits' | 'curve' | 'gpu_ranking' | 'biggest_model' | 'remedies';
export type Engine = 'transformers' | 'vllm' | 'llamacpp' | 'sglang' | 'ollama' | 'mlx';
export type TrainingMode = 'train' | 'full' | 'lora' | 'qlora' | 'grpo';

/** The model: one of a preset id, a config.json (object or text) or a bare parameter count. */
/** A model a client read for a draft or another model, as it reads the model asked about: its config.json (and
 * hf_quant_config.json), and each file's header (its first bytes, the whole header, in base64) as answer_file and
 * answer_shards read them. */
export interface ModelRead {
  name?: string;
  /** The Hugging Face repository read, for the command line. */
  repo?: string;
  config?: string | Record<string, unknown>;
  quant_config?: string | Record<string, unknown>;
  config_name?: string;
  files?: { name: string; size: number; header: string }[];
  /** The model.safetensors.index.json text. */
  index?: string;
}

export interface ModelInputs {
  model?: string;
  config?: string | Record<string, unknown>;
  /** With `config`: the checkpoint's hf_quant_config.json (NVIDIA ModelOpt), object or text. */
  quant_config?: string | Record<string, unknown>;
  /** With `config`: its file's or folder's name; one saying FP8 or NVFP4 over a config.json naming no quantization
   * asks for its hf_quant_config.json (`missing_files`). */
  config_name?: string;
  params?: number;
}

export interface InferenceRequest extends ModelInputs, CustomGpu {
  question?: Exclude<Question, 'curve'>;
  mode?: 'inference';
  /** A weight format ("bf16", "int4", "q4_k_m", "awq-4bit-128g", …: Catalog.weight_formats). */
  weights?: string;
  /** Catalog.kv_dtypes names; default: the engine's. */
  kv_dtype?: string;
  /** Tokens; default: the engine's default context. */
  context?: number;
  batch?: number;
  /** Share of each GPU kept free when judging a fit, 0–0.9 (default 0.1). */
  headroom?: number;
  /** A catalog GPU id or name: one fit verdict, speed and cost; default: a verdict for every GPU. "custom": a card of
   * your own, described by the CustomGpu keys (gpu_memory needed); a catalog card with gpu_memory: that card with
   * other memory (an RTX 4090 with 48 GB). */
  gpu?: string;
  /** A GPU sharing the machine's RAM: what it may use, in MiB, at most the RAM; needs `gpu`. A Mac's wired limit
   * (sudo sysctl iogpu.wired_limit_mb=N), a Strix Halo's GTT limit, carve-out or Variable Graphics Memory, what a DGX
   * Spark or Jetson has free. 0 or absent: the operating system's default. */
  wired_limit_mb?: number;
  engine?: Engine;
  attention?: 'sdpa' | 'eager';
  kv_allocation?: 'static' | 'paged';
  avg_tokens?: number;
  expandable_segments?: boolean;
  /** vLLM's gpu_memory_utilization (default 0.9; 0.92 with engine_version 0.21 or later); refused with another
   * engine, which does not read it. */
  gpu_util?: number;
  /** vLLM's version, for its memory rule: "0.9.2" to "0.20" (default: as 0.11) keep the CUDA graphs outside the
   * budget; "0.21" and later subtract their estimate from the pool. Older versions are refused. SGLang's: up to
   * "0.5.2" its default mem_fraction_static goes by tensor parallel size, from "0.5.3" (the default) by GPU memory.
   * Ollama's: "0.30" and later (default: as "0.32.15"): llama-server's --fit places the layers, num_ctx 4096 / 32768
   * / 262144 by GPU memory, capped at the model's context; a vision projector on the GPU where it and 1 GiB fit
   * (from "0.30.11"; before, above 10 GiB), with --fit keeping that room from "0.31.2". Up to "0.11.10" its
   * estimator; up to "0.6.6" num_ctx defaults to 2048, later to 4096. "0.11.11" to "0.29" are refused.
   * mlx-lm's: "0.27" and later (default: as 0.31.3) compute logits for the prompt's last token only; "0.22.2" to
   * "0.26.4" for each token of its last chunk (up to 2048); older versions are refused. */
  engine_version?: string;
  /** Ollama's OLLAMA_GPU_OVERHEAD: bytes kept free on each GPU (default 0). */
  ollama_gpu_overhead?: number;
  /** Memory other programs already hold on each GPU, in GB (GiB) or as text ("1.5GB"): each engine finds it gone
   * from the free memory it measures (default 0). */
  memory_in_use?: number | string;
  /** SGLang --mem-fraction-static: weights + KV pool as a share of the free memory (default: SGLang's for the GPU). */
  mem_fraction_static?: number;
  /** SGLang --max-total-tokens: caps the pool's tokens. */
  max_total_tokens?: number;
  /** MLX --max-kv-size: every layer's cache rotates at this many tokens (not with a q8_0 / q4_0 cache). */
  max_kv_size?: number;
  /** vLLM --enforce-eager: no CUDA graphs. */
  enforce_eager?: boolean;
  /** vLLM --language-model-only: a vision model's language model alone (no vision tower, no image profiling). */
  language_model_only?: boolean;
  max_num_batched_tokens?: number;
  max_num_seqs?: number;
  /** llama.cpp -ngl: the layers kept on the GPU. */
  gpu_layers?: number;
  /** llama-server --mmproj: a vision model's projector (its mmproj file, F16) loaded on the GPU; llama.cpp only. */
  mmproj?: boolean;
  /** A vision model's images per request (0 to 1000, default 0): the vision encoder's compute peak, and their
   * tokens inside `context`. Refused for a model without a vision tower. */
  images?: number;
  /** The images' size in pixels, "1024x768" or "1024" (a square); default: the size each engine profiles with or
   * resizes to. */
  image_size?: string;
  /** Other models loaded first: preset ids or names read by the client (`also_read`), each optionally "@" its
   * context, comma-separated ("qwen3-0.6b@8192,owner/name"). */
  also?: string;
  /** What the client read for each name in `also` that is no preset. */
  also_read?: Record<string, ModelRead | string>;
  /** Speculative decoding's draft: a preset id, "mtp", or the name of a model read by the client (`draft_read`). */
  draft?: string;
  /** A draft's config.json (an EAGLE or EAGLE-3 head when its architectures say so), object or text. */
  draft_config?: string | Record<string, unknown>;
  /** What the client read for `draft` (a Hub repository, an Ollama model, a file), or the key it kept it under
   * (keep_read). */
  draft_read?: ModelRead | string;
  draft_tokens?: number;
  /** The chance the model accepts a draft token, above 0 and at most 1 (default: the range 0.6 to 0.8). */
  acceptance?: number | string;
  /** vLLM --tensor-parallel-size and --pipeline-parallel-size (default 1): with either above 1 the answer carries
   * `per_gpu`. */
  tp?: number;
  pp?: number;
  /** GB/s between host RAM and the CPU (llama.cpp's CPU layers). */
  system_bandwidth?: number;
  prompt_tokens?: number;
  usd_per_kwh?: number;
  /** A number: how many of `gpu` you have (default 1). vLLM serves them tensor parallel where the heads divide, else
   * as pipeline stages; llama.cpp splits the layers (--split-mode layer, --tensor-split equal); transformers places
   * them with device_map="auto". The answer then carries `per_gpu`, its busiest GPU deciding the fit.
   * GPU names (an array or one comma-separated string): under llama.cpp different cards together, CUDA0 first, the
   * layers split by each card's free memory and `gpus` judging each card by its part (no `gpu` then).
   * gpu_ranking: GPU ids or names to rank; default: the catalog. */
  gpus?: number | string[] | string;
  /** gpu_ranking: the most a whole configuration may cost per hour, in dollars. */
  budget_per_hour?: number;
}

/** A curve's own keys: the x values, along context (a training sequence) or batch (a training micro-batch). */
export interface CurveKeys {
  axis?: 'context' | 'batch';
  /** 2–1024 x values spaced from `from` to `to` (default 256). */
  points?: number;
  /** The first x; default 1, or for a log context axis 256 (or `to` / 8 if less). */
  from?: number;
  /** The last x; default: the larger of the model's max context and 4 × the request's context, or batch 256; for a
   * log context axis, the model's max context (else the request's context), at least 2048. */
  to?: number;
  /** 'linear' (the default) or 'log': geometric steps, for a chart with a log axis. */
  spacing?: 'linear' | 'log';
  /** These x values (1–1024 of them) instead of `points`; a value not above the one before it is skipped. */
  values?: number[];
}

export interface CurveRequest extends Omit<InferenceRequest, 'question'>, CurveKeys {
  question: 'curve';
}

/** A training curve: the training keys with a curve's own. */
export interface TrainingCurveRequest extends Omit<TrainingRequest, 'question'>, CurveKeys {
  question: 'curve';
}

/** One entry of `questions`: a name, or the question with its own keys. */
export type AskedQuestion =
  | Exclude<Question, 'biggest_model'>
  | ({ question: 'curve' } & CurveKeys)
  /** `every_gpu`: answered as the request without `gpu` would be (every GPU judged; the ranking over the catalog). */
  | { question: 'estimate' | 'gpu_ranking'; every_gpu?: boolean }
  | { question: 'limits' | 'remedies' };

/** Several questions about one scenario, resolved and estimated once: answered by a SeveralAnswer. */
export type SeveralRequest =
  | (Omit<InferenceRequest, 'question'> & { questions: AskedQuestion[] })
  | (Omit<TrainingRequest, 'question'> & { questions: AskedQuestion[] });

/** The estimate or the remedies of a training run: `mode` decides. */
export interface TrainingRequest extends ModelInputs, CustomGpu {
  question?: 'estimate' | 'remedies';
  mode: TrainingMode;
  precision?: 'fp32' | 'mixed-fp16' | 'mixed-bf16' | 'bf16';
  grad_dtype?: 'fp32' | 'half';
  optimizer?: string;
  lora_rank?: number;
  /** "q,v", "q_proj,v_proj" or "all-linear" (default). */
  lora_targets?: string;
  /** Tokens per sequence; alias `context`. */
  sequence?: number;
  context?: number;
  /** Alias `batch`. */
  micro_batch?: number;
  batch?: number;
  grad_accum?: number;
  /** Default: none in train, full in lora and qlora (as TRL, PEFT and Unsloth run them). */
  checkpointing?: 'none' | 'selective' | 'full';
  /** Whose saved tensors the activations count; default sdpa. */
  attn_implementation?: 'eager' | 'sdpa' | 'flash_attention_2' | 'megatron';
  dropout?: boolean | 'on' | 'off';
  /** 0–3, or an FSDP name: NO_SHARD, SHARD_GRAD_OP, FULL_SHARD. */
  zero?: number | string;
  /** The job's GPU count. */
  gpus?: number;
  tp?: number;
  pp?: number;
  sp?: boolean | 'on' | 'off';
  offload?: 'none' | 'optimizer' | 'params' | 'nvme';
  gpu?: string;
  /** Apple GPUs: the wired limit in MiB, as for inference. */
  wired_limit_mb?: number;
  headroom?: number;
  /** Training tokens, all epochs: a number or text such as "300B" or "2T". */
  tokens?: number | string;
  /** Model FLOPs utilisation, above 0 and at most 1. */
  mfu?: number;
  /** Accepted and ignored: training stores weights by `precision`. */
  weights?: string;
  /** mode "grpo" only (TRL GRPOConfig's defaults): what trains in the policy; default train. */
  policy?: 'train' | 'lora' | 'qlora';
  /** Default 512. */
  prompt_tokens?: number;
  /** TRL max_completion_length; default 512. */
  completion_tokens?: number;
  /** Completions per prompt; default 8. */
  num_generations?: number;
  /** Completions one GPU generates at once; default micro_batch × grad_accum in whole groups. */
  generation_batch?: number;
  /** KL coefficient; above 0 a full fine-tune loads a reference model. Default 0. */
  beta?: number;
  sampler?: 'hf' | 'vllm-colocate' | 'vllm-server';
  /** vLLM colocate's gpu_memory_utilization; default 0.3 (needs `gpu`); refused with another sampler. */
  gpu_util?: number;
}

export type Request = InferenceRequest | CurveRequest | TrainingRequest | TrainingCurveRequest | SeveralRequest;

// ---- Answers ----

/**
 * A text of the core for people, in one key: `text` is the English sentence (what the CLI prints), `id` names the
 * sentence ("vllm.kv_short") and `args` are its values, raw, so a client renders it in its own language: a name
 * ending in "bytes" is a byte count, other numbers are counts or plain numbers, strings are names or values as
 * given. The page's templates (web/js/i18n/messages.js) use `{name}` for each arg.
 */
export interface Message {
  id: string;
  args: Record<string, MessageArgValue>;
  text: string;
}

/** A value of a sentence: a number, a string, or a clause of its own. */
export type MessageArgValue = number | string | Message;

/** Decode and prefill on the chosen GPU (the answer's `speed`); ranges are {low: slow end, high: fast end} of a
 * speed, or {low: fast end, high: slow end} of a time. */
export interface Speed {
  bytes_per_step: number;
  compute_bound: boolean;
  /** "fp16", "int8", "fp8" or "fp4": what prefill's products run at */
  compute_path: string;
  cpu_seconds: Range;
  decode_step_seconds: Range;
  decode_tokens_per_second: Range;
  decode_tokens_per_second_per_sequence: Range;
  /** With a draft model: decode with speculative decoding. */
  draft?: {
    acceptance_given: boolean; acceptance_high: number; acceptance_low: number;
    decode_tokens_per_second: Range; decode_tokens_per_second_per_sequence: Range; draft_step_seconds: Range;
    draft_tokens: number; step_seconds: Range; tokens_per_step_high: number; tokens_per_step_low: number;
  };
  efficiency_source: string;
  /** How decode's figures were reached. */
  explanation: Message;
  flops_per_step: number;
  note: Message | null;
  prefill_chunk_tokens: number | null;
  /** How prefill's figures were reached (null without a prefill estimate), and its id and args. */
  prefill_explanation: Message | null;
  prefill_tokens_per_second: Range | null;
  prefill_unavailable: Message | null;
  prompt_tokens: number;
  tensor_parallel_efficiency: number;
  time_to_first_token_seconds: Range | null;
}

export interface ErrorAnswer {
  ok: false;
  /** `field`: the request key (or "request", "question", "file") that is wrong; `message`: what it allows. */
  error: { field: string; message: Message };
}

/** A model file's header runs past the bytes given: read this many from the start and ask again. */
export interface NeedPrefixAnswer {
  ok: true;
  need_prefix_bytes: number;
  /** answer_shards: the shard that needs them. */
  need_file?: number;
}

export interface Range {
  low: number;
  high: number;
}

export type Fit = 'fits' | 'tight' | 'does_not_fit';

export interface Explanation {
  key: string;
  formula: Message;
  values: Message;
  source: Message;
}

/** A card described by its figures, beside `gpu` ("custom", or the catalog card it is like). A figure not given is not
 * known (custom) or the catalog card's (like); what needs an unknown figure (the speed without a bandwidth) says so. */
export interface CustomGpu {
  /** Its memory in GB (a card's GB are GiB), 1 to 16384: a number, or text such as "48GB" or "24 GiB". */
  gpu_memory?: number | string;
  /** Memory bandwidth, GB/s. */
  gpu_bandwidth?: number | string;
  /** Dense BF16/FP16 tensor TFLOPS. */
  gpu_tflops?: number | string;
  gpu_tflops_fp8?: number | string;
  gpu_tflops_fp4?: number | string;
  /** gpu "custom" only; default: not known. */
  gpu_vendor?: 'nvidia' | 'amd' | 'intel' | 'apple';
  /** gpu "custom" only: the GPU shares the computer's memory (gpu_memory is the RAM); needs gpu_vendor apple, amd or
   * nvidia. Default: no (yes for apple). */
  gpu_unified?: boolean | 'yes' | 'no' | 'on' | 'off';
}

export interface GpuEntry {
  /** A card described by the request's figures: "custom", or the id of the catalog card it is like. */
  custom?: string;
  id: string;
  name: string;
  vendor: string;
  segment: string;
  memory_bytes: number;
  /** What the card offers a model, before the memory other programs already hold (memory_in_use): that is taken off
   * in a GpuFit's free_bytes, not here. Unified memory: the GPU's share, the operating system's default or the
   * request's wired_limit_mb. */
  usable_bytes: number;
  /** Apple GPUs only: whether usable_bytes is macOS's default or the request's wired_limit_mb. */
  wired_limit?: 'macos_default' | 'set';
  /** Other machines whose GPU shares the RAM: how the operating system shares it (Linux's GTT limit on an AMD APU,
   * what CUDA reports on a DGX Spark or Jetson). */
  shared_memory?: 'amd_apu' | 'nvidia_unified';
  /** With shared_memory: whether usable_bytes is the default share or the request's wired_limit_mb. */
  shared_limit?: 'default' | 'set';
}

export interface GpuFit extends GpuEntry {
  fit: Fit;
  /** What the card keeps free, after the memory other programs already hold (memory_in_use); negative: how far it
   * falls short. */
  free_bytes: number;
  /** Inference: how many of this GPU a split needs. */
  gpus_needed?: number;
}

/** Layers of one kind: their token mixer as users read it and their MLP. */
/** Layers of one token-mixer kind, counted over the whole model. */
export interface LayerMixerCount {
  count: number;
  mixer: 'full attention' | 'sliding-window attention' | 'chunked attention' | 'compressed attention'
    | 'latent attention' | 'linear attention' | 'Mamba2' | 'no attention';
}

/** Layers of one MLP kind, counted over the whole model. */
export interface LayerMlpCount {
  count: number;
  mlp: 'dense' | 'experts' | 'none';
}

export interface ModelFacts {
  id: string;
  name: string;
  architecture: string;
  layers: number;
  /** The layers by kind, in the order each kind first appears. */
  layer_mixers: LayerMixerCount[];
  layer_mlps: LayerMlpCount[];
  hidden_size: number;
  attention_heads: number;
  kv_heads: number;
  head_dim: number;
  default_context: number;
  max_context: number;
  sliding_window: number;
  params_total: number;
  params_active: number;
  /** Active as model cards count it: without the input embedding a token only looks up (kept when tied). */
  params_active_excl_embedding: number;
  published_params: number;
  quantization: string;
}

export interface EstimateAnswer {
  ok: true;
  breakdown: {
    /** The language model's weights; a vision model's encoder has its own line. */
    weights: number;
    /** A vision model's encoder on the GPU: its weights as the engine loads them and its compute peak; 0 without. */
    vision_encoder: number;
    /** Per-token caches (KV, MLA latent, indexer keys): grow with context × batch. */
    kv_cache: number;
    /** Per-sequence state of linear-attention and Mamba layers: fixed in context, grows with the batch; 0 without. */
    state_cache: number;
    activations: number; overhead: number; allocator_reserve: number;
    /** What the engine keeps in system RAM where it runs part of the model there (verdict runs_split: -ngl, Ollama's
     * layers, llama.cpp's --fit); then the other lines are the GPU's share, and `total` is both. 0 otherwise. */
    system_ram: number;
    /** Memory other programs hold on the GPU (memory_in_use), counted in the total; the other models have lines of
     * their own. */
    in_use: number;
    /** One line per other model loaded first (the `also` input), keyed "other_model:<preset id>@<context>": what it
     * holds on each GPU, counted in the total. */
    [other_model: `other_model:${string}`]: number;
    /** Speculative decoding's draft (weights, its KV cache, llama.cpp's compute buffers); only with a draft. */
    draft?: number;
    total: number;
  };
  range: Range & { drivers: string[] };
  gpus: GpuFit[];
  inputs: Record<string, string | number | boolean>;
  model: ModelFacts;
  activations: { attention_scores: number; logits: number };
  kv_cache: Record<string, string | number>;
  kv_allocation: Record<string, string | number | null>;
  /** total_bytes, per role (attention, embedding, mlp, norms, other, output), explanation, format, storage (bytes per
   * storage type) and groups: each kind of tensor in the format it is stored in, adding up to total_bytes;
   * mtp_layers: the checkpoint files' multi-token-prediction layers, apart from total_bytes (engines load them only
   * to draft tokens); file_bytes: total_bytes plus those, what the files hold. */
  weights: Record<string, unknown> & {
    /** What is stored how, and the source. */
    explanation: Message;
    groups: WeightGroup[];
    file_bytes: number;
    mtp_layers: { bytes: number; params: number; groups: WeightGroup[] };
  };
  /** llama.cpp's buffers (bytes and counts, flash_attn and output_on_gpu booleans); under engine "llamacpp" also
   * engine_version (string: the llama.cpp build assumed). */
  llamacpp: Record<string, number | string | boolean> | null;
  /** A vision model's encoder (null without one): the tower's params, weights_bytes on the GPU in `format` (empty
   * where the engine keeps it apart: `apart`, llama.cpp without --mmproj), compute_bytes, the image peak, and
   * `bytes`, the breakdown's vision_encoder line. */
  vision: VisionEncoder | null;
  /** llama.cpp's --fit on the request's GPU (engine llamacpp, a GPU named, no gpu_layers); otherwise null. */
  llamacpp_fit: LlamaCppFitPlan | null;
  /** vLLM's pool as it prints it (bytes and counts), with engine_version (string: the version assumed), cuda_graphs_in_budget and model_runner_v2 (booleans).
   * A vision model adds its profile run's images: encoder_items, encoder_tokens_per_item, encoder_budget_tokens,
   * encoder_peak_bytes, encoder_cache_bytes and encoder_profile_bytes (what they add to the profile's peak). */
  vllm: Record<string, number | string | boolean> | null;
  /** engine "sglang" only: SGLang's pool as it prints it (max_total_num_tokens, kv_capacity_bytes, cell_bytes,
   * free_at_start_bytes, weights_bytes, mem_fraction_static, max_running_requests, max_concurrency, context_len, ...),
   * with engine_version (string) and mem_fraction_default (boolean); vlm_factor for a multimodal model. */
  sglang?: Record<string, number | string | boolean>;
  /** With other models loaded first (the `also` input) only: each in the order they load: its name (as its breakdown
   * key "other_model:<name>@<context>" names it), the context it runs with and what it holds on each GPU. */
  other_models?: { name: string; context: number; bytes: number }[];
  /** With a draft only: its parts (weights, kv_cache, buffers, total in bytes; kind "draft model", "EAGLE", "EAGLE-3"
   * or "MTP"; draft_tokens, acceptance_low/high, ...). */
  draft_model?: DraftModel;
  /** engine "mlx" only: what MLX's peak counts besides weights and cache (cache_tokens, chunk_tokens,
   * fused_attention, layer_bytes, scores_bytes, growth_bytes, logits_tokens, logits_bytes, head_input_bytes, kv_bits,
   * max_kv_size), with engine_version (string). */
  mlx?: Record<string, number | string | boolean>;
  /** engine "ollama" only: engine_version, the version assumed; from 0.30 projector_bytes (a vision projector on the
   * GPU, 0 without one); up to 0.11.10 its estimate as its offload log line names it (kv_bytes, graph_full_bytes,
   * graph_partial_bytes, layers_model, layers_offload, required_full_bytes, required_partial_bytes, system_ram_bytes,
   * window_layers and window_tokens: the sliding-window layers Ollama sizes apart, Gemma 3 and gpt-oss; for a vision
   * model projector_weights_bytes, projector_graph_bytes and projector_on_gpu),
   * with graph_formula and kv_type (strings), planned, flash_attention and kv_type_ignored (booleans). */
  ollama?: Record<string, number | string | boolean>;
  /** Only over several GPUs (gpus, or tp × pp above 1): one GPU's share, the rank whose KV pool is smallest, and
   * its verdict on the request's GPU (null without one). `breakdown` stays the whole deployment's. */
  per_gpu?: PerGpu;
  /** The engine's command line for this scenario; `text` is empty when the engine has none (transformers), and
   * `note` says why, or what to replace in it (null without a note). */
  command: { text: string; note: Message | null };
  /** With a GPU; otherwise null. */
  speed: Speed | null;
  cost: Record<string, unknown> | null;
  decode_tokens_per_second: Range | null;
  prefill_tokens_per_second: Range | null;
  /** The whole prompt (speed.prompt_tokens) prefilled from an empty cache in the engine's chunks
   * (speed.prefill_chunk_tokens), in seconds; null where prefill has no estimate. */
  time_to_first_token_seconds: Range | null;
  speed_unavailable: Message | null;
  explanations: Explanation[];
  notes: Message[];
  /** The checkpoint's files that would change the figures, to ask for: [] or ["hf_quant_config.json"] (a config.json
   * alone whose name says FP8 or NVFP4 and which names no quantization: its weights are counted as bf16). */
  missing_files: string[];
  verdict: Verdict;
}

export interface VisionEncoder {
  apart: boolean;
  bytes: number;
  compute_bytes: number;
  format: string;
  /** The size the compute peak is sized for (after the engine's resizing); 0 where none is. */
  image_height: number;
  image_width: number;
  images: number;
  params: number;
  patches_per_image: number;
  /** No image_size given: the engine's own (its warm-up, profiling or fixed size). */
  size_from_engine: boolean;
  /** The language model's tokens for one image, inside the context. */
  tokens_per_image: number;
  weights_bytes: number;
}

/** The headline, decided by the core for the GPU the question speaks of: the request's `gpu` (with `gpus` N, the N of
 * them), its list of cards, or without one the smallest card people most likely have that holds the model (consumer
 * first), as a class of cards. */
export interface Verdict {
  /** runs_split: the engine runs it with part of the model in system RAM (Ollama's layers, llama.cpp's --fit);
   * refuses: vLLM's or SGLang's KV pool holds less than one sequence; none: no GPU in the list holds it. */
  kind: 'fits' | 'tight' | 'does_not_fit' | 'runs_split' | 'refuses' | 'none';
  /** Its colour: runs_split shows as tight, refuses as does_not_fit. */
  fit: 'fits' | 'tight' | 'does_not_fit' | 'none';
  /** The id of the `gpus` row it speaks of; null with kind none. */
  gpu: string | null;
  /** The sentence, without the lead before it and the clause on a machine whose GPU shares its RAM: the CLI prints
   * lead.text + message.text + wired.text. */
  message: Message;
  /** That clause (null for other GPUs). */
  wired: Message | null;
  /** What that row's verdict says in a GPU table where its `fit` says less ("runs with 43 of 81 layers on the GPU"). */
  label: Message | null;
  /** runs_split: where the engine puts it: bytes on its GPUs (`gpus` of them, with the CUDA context) and in system
   * RAM; null otherwise. */
  placement: { gpu_bytes: number; gpus: number; ram_bytes: number } | null;
  /** How sure it is where an input it depends on is not known (a checkpoint's hf_quant_config.json not read, a bare
   * parameter count): certain where every value the input may take gives this verdict; likely where each runs (or
   * none does) but the headroom differs; unknown where the verdict flips between them. */
  certainty: 'certain' | 'likely' | 'unknown';
  /** Why it is not certain; empty when certain. */
  certainty_reasons: Message[];
  /** "Likely: " or "Unknown: ", which the sentence starts with; null when certain. */
  lead: Message | null;
}

/** Speculative decoding's draft as the engine holds it. */
export interface DraftModel {
  kind: 'draft model' | 'EAGLE' | 'EAGLE-3' | 'MTP';
  name: string; params: number; weights: number; weights_format: string; layers: number;
  kv_bytes_per_token: number; kv_tokens: number; kv_cache: number;
  /** llama-server: one draft context per slot, each with its compute buffer (buffers). */
  contexts: number; buffers: number; total: number;
  draft_tokens: number; draft_tokens_default: boolean;
  acceptance_low: number; acceptance_high: number; acceptance_given: boolean;
}

/** Bytes on one GPU of a tensor- or pipeline-parallel deployment. */
export interface PerGpu {
  gpus: number;
  /** vLLM: tensor_parallel or pipeline_parallel; llama.cpp: layer_split; transformers: device_map. */
  how: 'tensor_parallel' | 'pipeline_parallel' | 'layer_split' | 'device_map';
  weights: number; kv_cache: number; state_cache: number; activations: number; overhead: number;
  allocator_reserve: number; total: number;
  /** With a draft only: its share on this GPU. */
  draft?: number;
  fit: 'fits' | 'tight' | 'does_not_fit' | null;
  /** What it leaves free on the verdict's GPU; null without one. */
  free_bytes: number | null;
  /** layer_split and device_map: each GPU in device order (CUDA0 first); the figures above are the busiest one's.
   * Empty under vLLM, whose ranks are alike. */
  devices: DeviceShare[];
}

/** One GPU of a layer split: its repeating layers [first_layer, first_layer + layers), whether it holds the token
 * embeddings (`input`, transformers) or the output layer, and its bytes (activations: llama.cpp's compute buffer). */
export interface DeviceShare {
  first_layer: number; layers: number; input: boolean; output: boolean;
  weights: number; kv_cache: number; state_cache: number; activations: number; overhead: number;
  allocator_reserve: number; total: number;
  /** What it leaves free on its card (in a list of cards), else on the verdict's GPU; null without one. */
  free_bytes: number | null;
}

/** llama.cpp --fit's plan: what it changed (`step`) and where the bytes went (llama.cpp's "self": model + context +
 * compute, the CUDA context already gone from free_bytes). */
export interface LlamaCppFitPlan {
  step: 'none' | 'context' | 'experts' | 'layers';
  fits: boolean;
  free_bytes: number; margin_bytes: number; projected_bytes: number;
  context_start: number; context: number; context_set: boolean; context_saving_bytes: number; min_context: number;
  total_layers: number; gpu_layers: number; output_on_gpu: boolean;
  expert_layers: number; cpu_expert_layers: number; first_cpu_expert_layer: number;
  /** --n-cpu-moe N that moves as many experts (it takes the first N layers where fit takes the last ones). */
  n_cpu_moe: number;
  gpu_bytes: number; gpu_model_bytes: number; gpu_context_bytes: number; gpu_compute_bytes: number;
  /** A vision projector llama-server loads onto the GPU after the plan (Ollama's --mmproj), inside gpu_bytes; 0 without. */
  projector_bytes: number;
  host_model_bytes: number; host_context_bytes: number; host_ram_bytes: number;
}

/** One line of a weight figure's explanation: a kind of tensor in one format. Empty list for a model file. */
export interface WeightGroup {
  /** embeddings, attention, routed experts, shared experts, dense MLP, router, norms, linear attention / Mamba,
   * lm_head, vision tower, other */
  what: string;
  /** The format's name ("mxfp4", "gptq-4bit-128g"), or the type a tensor the format leaves alone keeps ("bf16", "Q6_K"). */
  format: string;
  params: number;
  /** Scales, zero points and other metadata of the group's tensors included. */
  bytes: number;
}

export interface RankMemory {
  weights: number; gradients: number; optimizer: number; master_weights: number; activations: number;
  temporary: number; overhead: number; total: number;
  /** mode "grpo" only; sampling is what the sampler needs beyond the step (HF generate) or vLLM's whole share. */
  reference_model?: number; sampling?: number;
}

export interface TrainingAnswer {
  ok: true;
  mode: 'train' | 'lora' | 'qlora' | 'grpo';
  /** The busiest GPU's memory. */
  breakdown: RankMemory;
  breakdown_role: string;
  ranks: (RankMemory & { role: string; params: number; in_flight_micro_batches: number })[];
  gpus: GpuFit[];
  inputs: Record<string, string | number | boolean | null>;
  model: ModelFacts;
  host_ram_bytes: number;
  nvme_bytes: number;
  trainable_params: number;
  quantized_params: number;
  gradient_convention: Message;
  slowdown: { min: number; max: number; source: Message };
  activations: Record<string, number> | null;
  /** mode "grpo" only: gathered_weights, generation_batch, kv_cache, reference_model, sampler_logits, sampling, vllm_pool (bytes),
   * sampling_overlaps_training. */
  grpo?: Record<string, number | boolean>;
  /** With a GPU and `tokens`; otherwise null. */
  time: Record<string, string | number | null> | null;
  explanations: Explanation[];
  notes: Message[];
  verdict: Verdict;
}

export interface LimitsAnswer {
  ok: true;
  gpu: string;
  /** usable × (1 − headroom), where vLLM's headroom is at least 1 − gpu_util: the "fits" line the GPU table uses. */
  budget_bytes: number;
  /** 0: not even one token or sequence fits. */
  max_context: number;
  /** Under vLLM and SGLang at most the whole sequences their KV pool holds at the context, and at most
   * max_num_seqs (vLLM) or max_running_requests (SGLang). */
  max_batch: number;
  /** What bounds max_batch: the memory line, or the engine's pool or request limit. */
  batch_limit: 'memory' | 'kv_pool' | 'max_num_seqs' | 'max_running_requests';
  /** The engine limit that binds, when one does. */
  notes: Message[];
}

export interface CurveAnswer {
  ok: true;
  axis: 'context' | 'batch';
  xs: number[];
  /** Inference: weights, vision_encoder, kv_cache, state_cache, activations, overhead, allocator_reserve. Training (the busiest GPU): weights,
   * gradients, optimizer, master_weights (part of the optimizer), activations, temporary, overhead (GRPO adds
   * reference_model and sampling before overhead, and its context axis moves the completion). */
  lines: { key: string; values: number[] }[];
  totals: number[];
  /** The total's range; absent for training, which has none. */
  low?: number[];
  high?: number[];
}

/** One answer per entry of `questions`, in the order asked; each is what that question asked alone answers. */
export interface SeveralAnswer {
  ok: true;
  answers: Answer[];
}

export interface RankingPick {
  index: number;
  gpu: string;
  name: string;
  count: number;
}

export interface GpuRankingAnswer {
  ok: true;
  ranking: {
    gpu: string; name: string; count: number; fit: Fit; fits: boolean; free_bytes: number; note: Message | null;
    tokens_per_second: Range | null; usd_per_hour: number | null; usd_per_million_tokens: Range | null;
    within_budget: boolean;
    /** count × the card's street price in USD; null: the catalog has no street price (unknown, not free) */
    purchase_usd: number | null;
    /** the street price's date as the catalog gives it ("2020-09"); null without one */
    purchase_date: string | null;
  }[];
  cheapest_per_hour: RankingPick | null;
  cheapest_per_million_tokens: RankingPick | null;
  fastest: RankingPick | null;
  /** the fitting configuration with the lowest purchase_usd; the budget per hour does not apply */
  cheapest_to_buy: RankingPick | null;
  /** hours of renting cheapest_per_hour that cost as much as buying cheapest_to_buy; electricity not counted */
  break_even_hours: number | null;
  inputs: Record<string, unknown>;
  memory: { total_bytes: number; per_gpu_bytes: number; shardable_bytes: number };
  model: { id: string; name: string };
  notes: Message[];
}

export interface ModelCandidate {
  model: string;
  weights: string;
  params: number;
  bits_per_weight: number;
  total_bytes: number;
  free_bytes: number;
}

export interface BiggestModelAnswer {
  ok: true;
  gpu: { id: string; name: string; usable_bytes: number };
  biggest: ModelCandidate | null;
  by_format: ModelCandidate[];
  candidates_checked: number;
  formats: string[];
  context: number;
  batch: number;
  engine: Engine;
  headroom: number;
  notes: Message[];
}

export interface RemediesAnswer {
  ok: true;
  mode: 'inference' | 'train' | 'lora' | 'qlora';
  /** The busiest GPU's memory as asked. */
  bytes: number;
  gpu: string | null;
  /** The GPU's name as people read it (a card described by its figures is in no catalog); null without a GPU. */
  gpu_name: string | null;
  fit: Fit | null;
  free_bytes: number | null;
  /** Inference: what the scenario as asked keeps in system RAM (0 where all of it is on the GPU). */
  host_ram_bytes: number;
  /** Inference: the headline's verdict before any change (Verdict's kinds); null without a GPU. */
  verdict: Verdict['kind'] | null;
  /** With a GPU the scenario does not fit: what fits, or the closest and its gap; null otherwise. */
  summary: Message | null;
  notes: Message[];
  /** Largest saving first. */
  remedies: {
    id: string;
    /** The request keys to change, and their new values. */
    inputs: Record<string, string | number>;
    /** false: advice only (not a request input). */
    applicable: boolean;
    bytes: number;
    saved_bytes: number;
    fit: Fit | null;
    /** The headline the scenario with the change would have, and its verdict; null where there is none. */
    headline: Message | null;
    verdict: Verdict['kind'] | null;
    /** The ids of the single changes this one combines (one entry for a single change). */
    parts: string[];
    free_bytes: number | null;
    host_ram_bytes: number | null;
    /** A Mac's raised wired limit ("wired-limit"): what its GPU may use afterwards; saved_bytes is 0. */
    usable_bytes?: number;
    cost: Message;
    source: Message;
    explanation: Explanation;
  }[];
}

export interface Catalog {
  models: {
    /** The model's own figures (parameters, maximum context) come with an answer about it: `model` in a report. */
    id: string; name: string; hf_repo: string; default_context: number;
    /** Ollama library tags of the same weights ("qwen3:30b-a3b"); the model input finds the preset by them. */
    ollama: string[];
  }[];
  gpus: GpuEntry[];
  dtypes: { name: string; bits: number; summary: string }[];
  kv_dtypes: { name: string; bits: number; summary: string }[];
  /** Every weight format the pickers offer, with its storage scheme. */
  weight_formats: {
    name: string;
    scheme: 'plain' | 'mixed' | 'bnb_nf4' | 'bnb_int8' | 'gptq' | 'awq' | 'autoround' | 'gguf' | 'mxfp4' | 'mxfp8' |
      'nvfp4' | 'fp8_channel' | 'fp8_block' | 'fp8_block_e8m0' | 'compressed' | 'mlx' | 'exl2' | 'exl3';
  }[];
  /** The request's inputs: what each key takes, and the page's URL key for it. */
  inputs: CatalogInput[];
}

export interface CatalogInput {
  /** The request key. */
  key: string;
  /** The page's URL key and <vram-fit> attribute; '' where the page has no control for it. */
  url: string;
  /** config: a file's text; fraction: a number between min and max. */
  kind: 'text' | 'config' | 'choice' | 'count' | 'tokens' | 'quantity' | 'number' | 'fraction' | 'toggle' | 'list' | 'size';
  /** Which requests read it ("gpus" is a GPU list for inference, a GPU count for training; gpu_ranking: the ranking
   * question only). */
  use: 'inference' | 'training' | 'both' | 'gpu_ranking';
  /** The engines that read it, where only some do ("vllm"); given with another engine it is refused. */
  engines?: string[];
  /** count, tokens, quantity, number, fraction, size (in GB): the allowed range, inclusive (max null when unbounded), except min
   * where above_min is true: the value must be above it. */
  min?: number;
  above_min?: boolean;
  max?: number | null;
  /** choice: the values it allows. */
  values?: string[];
  /** engine_version: per engine, a version for each memory rule besides the engine's default ({"vllm": ["0.21"]}). */
  versions?: Record<string, string[]>;
}

export type Answer =
  | EstimateAnswer | TrainingAnswer | LimitsAnswer | CurveAnswer | GpuRankingAnswer | BiggestModelAnswer
  | RemediesAnswer | SeveralAnswer | NeedPrefixAnswer | ErrorAnswer;
