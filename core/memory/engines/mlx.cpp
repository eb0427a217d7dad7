#include "memory/engines/mlx.hpp"

#include <algorithm>  // std::min, std::max

#include "memory/inference_steps.hpp"
#include "util/byte_math.hpp"
#include "util/units.hpp"

namespace vramfit {

std::string_view mlx_rule_version(MlxRule rule) noexcept {
  return rule == MlxRule::chunk_logits ? kMlxVersionChunkLogits : kMlxVersionModelled;
}

std::optional<MlxRule> parse_mlx_version(std::string_view v) noexcept {
  const auto version = detail::parse_engine_version(v);
  if (!version || !version->at_least(0, 22, 2)) return std::nullopt;
  return version->at_least(0, 27, 0) ? MlxRule::last_token_logits : MlxRule::chunk_logits;
}

}  // namespace vramfit

namespace vramfit::detail {

// MLX prefills the prompt in chunks of prefill_step_size: from 0.27.0 all but its last token (which _step then runs
// alone), up to 0.26.4 the whole prompt, its last chunk through _step.
std::uint64_t mlx_chunk_tokens(const InferenceOptions& o) {
  const std::uint64_t prefilled = o.mlx_rule == MlxRule::chunk_logits ? o.context_tokens : o.context_tokens - 1;
  return std::max<std::uint64_t>(1, std::min(kMlxPrefillStep, prefilled));
}

// Tokens a full-attention layer's buffer holds: KVCache rounds up to its 256-token step; with --max-kv-size every
// layer is a RotatingKVCache, which holds up to max_size + S − 1 while a chunk of S tokens is concatenated.
std::uint64_t mlx_cache_tokens(const InferenceOptions& o) {
  const std::uint64_t stepped = ceil_div(o.context_tokens, kMlxCacheStep) * kMlxCacheStep;
  if (!o.max_kv_size) return stepped;
  if (o.context_tokens <= *o.max_kv_size) return std::min(stepped, *o.max_kv_size);
  return std::min(o.context_tokens, *o.max_kv_size + mlx_chunk_tokens(o) - 1);
}

// MLX's cache: the model dtype, or QuantizedKVCache (--kv-bits 8 or 4, groups of 64 with a 16-bit scale and bias:
// 8.5 and 4.5 bits, the bytes of q8_0 and q4_0); no fp8. RotatingKVCache.to_quantized raises
// NotImplementedError, so a rotating cache (--max-kv-size, sliding-window layers) cannot be quantized.
std::optional<Error> check_mlx_kv_choices(const InferenceEstimate& e, const InferenceOptions& o) {
  if (e.kv_dtype == KvDType::fp8)
    return make_error("kv_dtype", message("mlx.no_fp8_cache", "MLX has no fp8 cache; use fp16, bf16, q8_0 (--kv-bits 8) "
                                                              "or q4_0 (--kv-bits 4)"));
  if (kv_allocation_of(o) == KvAllocation::paged)
    return make_error("kv_allocation", message("mlx.no_paged", "MLX grows its cache in 256-token steps; paged "
                                                               "allocation is vLLM's (allowed here: static)"));
  return std::nullopt;
}

namespace {

// Metal's fused full-attention kernel (mlx/backend/metal/scaled_dot_product_attention.cpp, has_fused_kernel and
// use_fallback): query and value head dims equal and one of 64, 72, 80, 96, 128; 192 and 256 take the unfused path
// as faster, MLA's 192/128 split has no full kernel, and --kv-bits attends through quantized_matmul (mlx_lm
// models/base.py quantized_scaled_dot_product_attention). Unfused, the scores are materialized.
bool mlx_fused(const LayerRun& run, bool quantized_cache) {
  if (quantized_cache || run.mixer != MixerKind::attention) return false;
  const auto& a = run.attention;
  const std::uint64_t v = a.v_head_dim ? a.v_head_dim : a.head_dim;
  const std::uint64_t d = a.head_dim;
  return v == d && (d == 64 || d == 72 || d == 80 || d == 96 || d == 128);
}

// One attention layer's live set over a prefill chunk; unfused, plus its scores (heads × chunk × keys, the model
// dtype: the where and softmax reuse the buffer) and the boolean causal mask (chunk × keys), at most for the last
// chunk attending to the whole cache.
std::optional<std::uint64_t> mlx_attention_bytes(const ModelSpec& spec, const LayerRun& run, const InferenceOptions& o,
                                                 std::uint64_t c, MlxMemory& m) {
  const std::uint64_t chunk = m.chunk_tokens, keys = m.cache_tokens;
  CheckedSum sum;
  sum.add({o.batch, chunk, run.live_width(spec.hidden_size), c});
  if (!mlx_fused(run, m.kv_bits != 0)) {
    const std::uint64_t window = run.mixer == MixerKind::attention && run.attention.window ? run.attention.window : 0;
    const std::uint64_t seen = window ? std::min(keys, window + chunk - 1) : keys;
    CheckedSum scores;
    scores.add({o.batch, run.attention_heads(), chunk, seen, c}).add({chunk, seen});
    if (!scores.result()) return std::nullopt;
    m.scores_bytes = std::max(m.scores_bytes, scores.value());
    m.fused_attention = false;
    sum.add(scores.value());
    // MLA (mlx_lm models/deepseek_v3.py): a prompt chunk decompresses the cached latent into every head's K
    // (embed_q) and V (unembed_out) over the whole cache, and its rope scores are the mask it attends with.
    if (run.mixer == MixerKind::latent_attention)
      sum.add({o.batch, run.latent.heads, seen, run.latent.qk_nope_head_dim + run.latent.v_head_dim, c});
  }
  return sum.result();
}

// Up to mlx-lm 0.26.4: the prompt's last chunk computes logits for each of its tokens, a moment of its own.
Explanation mlx_chunk_logits_explanation(const MlxMemory& m, const InferenceEstimate& e) {
  const std::vector<MessageArg> args = {
      arg::count("layer", m.layer_bytes),       arg::count("chunk", m.chunk_tokens),
      arg::count("growth", m.growth_bytes),     arg::count("head", m.head_input_bytes),
      arg::count("logits", m.logits_bytes),     arg::count("logits_tokens", m.logits_tokens),
      arg::count("activations", e.activations)};
  return {"activations",
          message("explain.activations.formula_mlx_chunk_logits",
                  "max(max over layers of chunk × live width × bytes (unfused attention: + heads × chunk × keys × "
                  "bytes + chunk × keys) + one layer's K and V before the last chunk, last chunk × (hidden + vocab) × "
                  "bytes + vocab × bytes)"),
          message("explain.activations.values_mlx_chunk_logits",
                  "max({layer} B ({chunk}-token chunk) + {growth} B growth, {head} B lm_head input + {logits} B "
                  "logits over {logits_tokens} tokens) = {activations} B",
                  args),
          message("explain.activations.source_mlx_chunk_logits",
                  "mlx-lm 0.26.4 generate.py generate_step (prefill_step_size 2048; the prompt's last chunk through "
                  "_step, lm_head over each of its tokens before logits[:, -1, :]), models/cache.py KVCache "
                  "(256-token steps, mx.concatenate), mlx scaled_dot_product_attention.cpp (fused head dims)")};
}

}  // namespace

// MLX (mlx_lm.generate): the widest layer over one prefill chunk, its scores where attention is unfused, one
// layer's old K and V while the cache grows (mx.concatenate copies them into the larger buffer), and the logits of
// the prompt's last call (the prefill chunks' logits are never evaluated: only the cache is). From 0.27.0 that call
// is the last token alone, its logits and log-probabilities added to the layer's moment as a bound. Up to 0.26.4 it
// is the prompt's last chunk: lm_head writes logits for each of its tokens while its input is held, and
// logits[:, -1, :] is a view that keeps that buffer until the log-probabilities are computed; that moment follows
// the layers', so the larger of the two counts. The largest last chunk a prompt within the context leaves is
// min(context, prefill_step_size) tokens.
std::optional<Error> add_mlx_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o,
                                    const KvLayout&) {
  MlxMemory m;
  m.rule = o.mlx_rule;
  m.engine_version = version_named(o.mlx_version, mlx_rule_version(o.mlx_rule));
  m.chunk_tokens = mlx_chunk_tokens(o);
  m.logits_tokens = m.rule == MlxRule::chunk_logits ? m.chunk_tokens : 1;
  m.cache_tokens = mlx_cache_tokens(o);
  m.kv_bits = e.kv_dtype == KvDType::q8_0 ? 8 : e.kv_dtype == KvDType::q4_0 ? 4 : 0;
  m.max_kv_size = o.max_kv_size.value_or(0);
  const std::uint64_t c = w.compute_bytes;
  auto peak = activation_peak(spec, m.chunk_tokens, o.batch, c, false);
  if (!peak) return make_error("context", message("mlx.overflow_chunk", "the prefill chunk's activations overflow 64 bits"));
  m.layer_bytes = peak->layer_bytes;
  w.peak_width = peak->width;
  for (const LayerRun& run : spec.layers) {
    if (!run.keeps_tokens()) continue;
    const auto attention = mlx_attention_bytes(spec, run, o, c, m);
    if (!attention)
      return make_error("context", message("mlx.overflow_scores", "the prefill chunk's attention scores overflow 64 bits"));
    m.layer_bytes = std::max(m.layer_bytes, *attention);
  }
  const std::uint64_t layers = std::max<std::uint64_t>(1, spec.num_layers());
  const std::uint64_t per_layer = e.kv.bytes_per_token_layer ? e.kv.bytes_per_token_layer : e.kv.bytes_per_token / layers;
  const auto growth = product({o.batch, m.cache_tokens - std::min(m.cache_tokens, m.chunk_tokens), per_layer});
  const std::optional<std::uint64_t> none = 0;
  const auto logits = spec.has_lm_head ? product({o.batch, m.logits_tokens + 1, spec.vocab_size, c}) : none;
  const bool head_input = spec.has_lm_head && m.rule == MlxRule::chunk_logits;
  const auto input = head_input ? product({o.batch, m.logits_tokens, spec.hidden_size, c}) : none;
  if (!growth || !logits || !input)
    return make_error("context", message("mlx.overflow_growth", "the cache growth overflows 64 bits"));
  m.growth_bytes = *growth;
  m.logits_bytes = *logits;
  m.head_input_bytes = *input;
  const auto layer_moment = CheckedSum().add(m.layer_bytes).add(m.growth_bytes).result();
  const auto logits_moment = CheckedSum().add(m.head_input_bytes).add(m.logits_bytes).result();
  const auto total = m.rule == MlxRule::chunk_logits
                         ? (layer_moment && logits_moment ? std::optional(std::max(*layer_moment, *logits_moment))
                                                          : std::nullopt)
                         : CheckedSum().add(m.layer_bytes).add(m.growth_bytes).add(m.logits_bytes).result();
  if (!total) return make_error("context", message("mlx.overflow_total", "the activations overflow 64 bits"));
  e.logits = m.logits_bytes;
  e.attention_scores = m.scores_bytes;
  e.activations = *total;
  e.mlx = m;
  return std::nullopt;
}

// How far the total may move, and what moves it.
// MLX holds an op's inputs until the command buffer that ran it completes (metal/eval.cpp), so the intermediates of
// up to 20–50 consecutive ops (max_ops_per_buffer by chip) overlap: at most the next layer's live set and old K and V
// beside this one's. No CUDA context or cuBLAS workspace.
MemoryRange mlx_memory_range(const InferenceEstimate& e) {
  MemoryRange r;
  r.low = e.total;
  r.high = CheckedSum().add(e.total).add(e.mlx->layer_bytes).add(e.mlx->growth_bytes).result().value_or(~0ULL);
  r.drivers.push_back("MLX frees an op's inputs only when its command buffer completes: up to 20–50 ops' "
                      "intermediates overlap, at most a second layer's");
  return r;
}

Explanation mlx_activations_explanation(const ModelSpec&, const InferenceOptions&, const InferenceEstimate& e,
                                        const Workings&) {
  const MlxMemory& m = *e.mlx;
  if (m.rule == MlxRule::chunk_logits) return mlx_chunk_logits_explanation(m, e);
  const std::vector<MessageArg> args = {
      arg::count("layer", m.layer_bytes), arg::count("chunk", m.chunk_tokens), arg::count("scores", m.scores_bytes),
      arg::count("growth", m.growth_bytes), arg::count("logits", m.logits_bytes),
      arg::count("activations", e.activations)};
  return {"activations",
          message("explain.activations.formula_mlx",
                  "max over layers of chunk × live width × bytes (unfused attention: + heads × chunk × keys × bytes + "
                  "chunk × keys) + one layer's K and V before the last chunk + 2 × vocab × bytes"),
          m.scores_bytes ? message("explain.activations.values_mlx_scores",
                                   "{layer} B ({chunk}-token chunk, {scores} B of it unfused scores and mask) + {growth} "
                                   "B growth + {logits} B logits = {activations} B", args)
                         : message("explain.activations.values_mlx",
                                   "{layer} B ({chunk}-token chunk) + {growth} B growth + {logits} B logits = "
                                   "{activations} B", args),
          message("explain.activations.source_mlx",
                  "mlx-lm 0.31.3 generate.py generate_step (prefill_step_size 2048; from 0.27.0 lm_head over the "
                  "last token only, PR #406), models/cache.py KVCache (256-token steps, mx.concatenate), mlx "
                  "scaled_dot_product_attention.cpp (fused head dims)")};
}

// What MLX's figures leave out.
void add_mlx_notes(std::vector<Message>& notes, const ModelSpec&, const InferenceOptions& o,
                   const InferenceEstimate& e) {
  if (!e.mlx) return;
  const MlxMemory& m = *e.mlx;
  notes.push_back(message("mlx.peak_memory",
                          "MLX's figure is what mlx_lm.generate prints as Peak memory (MLX's active buffers). Not "
                          "counted: MLX's buffer cache of freed buffers (Cache memory), LM Studio's or the server's own "
                          "process memory, and what macOS itself needs of the RAM. Its speed is estimated with "
                          "llama.cpp's shares of a Mac's bandwidth and of its GPU's 16-bit rate (measured for "
                          "llama.cpp, assumed for MLX): MLX has no figures of its own here."));
  notes.push_back(message("mlx.context_both",
                          "MLX reserves nothing up front: its cache grows with the prompt and the answer, so the "
                          "context here, {tokens} tokens, stands for both (the prompt's tokens + --max-tokens).",
                          {arg::count("tokens", o.context_tokens)}));
  if (m.kv_bits)
    notes.push_back(message("mlx.kv_bits",
                            "--kv-bits quantizes the cache once it holds --quantized-kv-start tokens (5000 by "
                            "default): until then it is 16-bit, and while it converts both copies of the cache exist "
                            "for a moment; that moment is not modelled. Attention then runs unfused, with its scores "
                            "materialized."));
  else if (!m.fused_attention)
    notes.push_back(message("mlx.unfused",
                            "This model's attention runs through MLX's unfused path (its head size has no fused "
                            "kernel): each prefill chunk materializes its attention scores, counted here for the last "
                            "chunk."));
  if (o.batch > 1)
    notes.push_back(message("mlx.batch", "Several sequences at once (mlx_lm.server's BatchKVCache) pad each to the "
                                         "longest; counted here as batch × the context."));
}

}  // namespace vramfit::detail
