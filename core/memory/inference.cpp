#include "memory/inference.hpp"

#include <algorithm>  // std::find, std::max, std::min
#include <cmath>      // std::floor
#include <cstddef>    // std::ptrdiff_t
#include <iterator>   // std::begin, std::end
#include <string>     // std::string
#include <vector>     // std::vector

#include "memory/engines/ollama.hpp"
#include "memory/engines/ollama_server.hpp"
#include "memory/engines/vllm_weights.hpp"
#include "util/byte_math.hpp"
#include "util/text.hpp"
#include "util/units.hpp"

namespace vramfit {
namespace {

using detail::CheckedSum;
using detail::product;

using detail::Text;

struct ActivationPeak {
  std::uint64_t layer_bytes = 0;   // largest layer's live set (+ eager scores)
  std::uint64_t scores_bytes = 0;  // eager attention: scores, fp32 softmax, cast back, mask
  std::uint64_t width = 0;         // live width of the phase that sets the peak (attention or MLP)
  bool scores_in_peak = false;     // the eager scores belong to that phase
};

// Live width per token of a layer's token mixer while it runs (residual and normed input included):
//   attention: residual + normed input + q + k + v + attention output  = 2h + 2·a·d + 2·kv·d
//   MLA: decompressed per-head q, k, v and output                       = 2h + a·(2·qk + 2·v)
//   Gated DeltaNet: in_proj (q, k, v, z), the conv output and the output = 2h + 2·keys + 3·values
//   Kimi Delta Attention: q, k, v, decay gate, output gate and output    = 2h + 6·heads·dim
//   Mamba2: in_proj (z, x, B, C, dt), the conv output and the output     = 2h + in_proj + conv channels + inner
std::uint64_t mixer_width(const ModelSpec& s, const LayerRun& run) {
  const std::uint64_t h = s.hidden_size;
  switch (run.mixer) {
    case MixerKind::attention: {
      const auto& a = run.attention;
      return 2 * h + 2 * a.heads * a.head_dim + 2 * a.kv_heads * a.head_dim;
    }
    case MixerKind::latent_attention: {
      const auto& m = run.latent;
      return 2 * h + m.heads * (2 * (m.qk_nope_head_dim + m.qk_rope_head_dim) + 2 * m.v_head_dim);
    }
    case MixerKind::linear_attention: {
      const auto& m = run.linear;
      if (m.kind == LinearKind::kimi_delta) return 2 * h + 6 * m.key_heads * m.key_head_dim;
      return 2 * h + 2 * m.key_heads * m.key_head_dim + 3 * m.value_heads * m.value_head_dim;
    }
    case MixerKind::mamba2: {
      const auto& m = run.mamba;
      return 2 * h + (2 * m.inner() + 2 * m.groups * m.state_size + m.heads) + m.conv_channels() + m.inner();
    }
    case MixerKind::none: return 0;
  }
  return 0;
}

// Transient memory of one prefill forward pass in PyTorch: tensors are freed layer by layer, so the peak is
// the largest single layer's live set, per token: its mixer (mixer_width) or its MLP:
//   MLP:       residual + normed input + gate·act + up + product       = 2h + 3·i  (gated)
//                                                                        2h + 2·i  (plain)
// Eager attention (transformers eager_attention_forward) adds the s² matrices while softmax runs:
//   scores b·a·s²·c, softmax(dtype=float32) b·a·s²·4, .to(query.dtype) b·a·s²·c, causal mask b·s²·c.
// MoE layers route each token to k experts: i counts k·i_expert + shared experts' widths.
std::optional<ActivationPeak> activation_peak(const ModelSpec& s, std::uint64_t tokens, std::uint64_t batch,
                                              std::uint64_t c, bool eager) {
  ActivationPeak out;
  bool first = true;
  for (const LayerRun& run : s.layers) {
    const std::uint64_t attention_width = mixer_width(s, run);
    const std::uint64_t mlp_width = 2 * s.hidden_size + (s.gated_mlp ? 3 : 2) * run.mlp.active_width();
    const auto attention = product({batch, tokens, attention_width, c});
    const auto mlp = product({batch, tokens, mlp_width, c});
    if (!attention || !mlp) return std::nullopt;
    std::uint64_t attention_bytes = *attention, scores_bytes = 0;
    if (eager && run.keeps_tokens()) {
      CheckedSum scores;
      scores.add({batch, run.attention_heads(), tokens, tokens, 2 * c + 4}).add({batch, tokens, tokens, c});
      if (!scores.result()) return std::nullopt;
      scores_bytes = scores.value();
      const auto with_scores = checked_add(attention_bytes, scores_bytes);
      if (!with_scores) return std::nullopt;
      attention_bytes = *with_scores;
    }
    const std::uint64_t layer_bytes = std::max(attention_bytes, *mlp);
    if (!first && layer_bytes <= out.layer_bytes) continue;
    first = false;
    out.layer_bytes = layer_bytes;
    out.scores_bytes = scores_bytes;
    // Explain the phase that set the peak, so the printed terms add up to the number.
    const bool attention_peak = attention_bytes >= *mlp;
    out.width = attention_peak ? attention_width : mlp_width;
    out.scores_in_peak = attention_peak && scores_bytes != 0;
  }
  return out;
}

std::uint64_t compute_bytes_of(const WeightFormat& f) {
  if (f.scheme == WeightScheme::plain) return dtype_info(f.dtype).bits / 8;
  if (f.scheme == WeightScheme::gptq || f.scheme == WeightScheme::awq) return 2;  // fp16 kernels
  return 2;
}

DType compute_dtype_of(const WeightFormat& f) {
  if (f.scheme == WeightScheme::plain) return f.dtype;
  if (f.scheme == WeightScheme::gptq || f.scheme == WeightScheme::awq) return DType::fp16;
  return DType::bf16;
}

// The range and its drivers; every engine varies with the CUDA context's size.
void add_context_driver(MemoryRange& r) {
  r.drivers.push_back("CUDA context 512 MiB (lazy loading, CUDA ≥ 12.2) to 1343 MiB (eager loading, HF model-memory "
                      "anatomy on a V100)");
}

// The weight format a plain dtype stands for (fp32/fp16/bf16 every tensor; fp8/int8/int4 linear layers).
WeightFormat weight_format_for(DType dtype) {
  WeightFormat f;
  f.dtype = dtype;
  f.scheme = (dtype == DType::fp32 || dtype == DType::fp16 || dtype == DType::bf16) ? WeightScheme::plain
                                                                                  : WeightScheme::mixed;
  return f;
}

}  // namespace

VllmCapacity detail::vllm_kv_capacity(std::uint64_t memory, double util, std::uint64_t weights, std::uint64_t activation,
                                      std::uint64_t non_torch, const VllmKvGroups& groups, std::uint64_t sequence_tokens,
                                      VllmRule rule, std::uint64_t graphs_in_budget) {
  VllmCapacity c;
  c.gpu_util = util;
  c.driver_total_bytes = memory;
  c.budget_bytes = static_cast<std::uint64_t>(std::floor(static_cast<double>(memory) * util));
  c.profile_activation_bytes = activation;
  c.non_torch_bytes = non_torch;
  const auto used = CheckedSum().add(weights).add(activation).add(non_torch).add(graphs_in_budget).value();
  c.kv_capacity_bytes = c.budget_bytes > used ? c.budget_bytes - used : 0;
  c.sequence_tokens = std::max<std::uint64_t>(sequence_tokens, 1);
  c.block_bytes = groups.row_bytes;
  c.block_tokens = groups.attention_block_tokens;
  c.kv_cache_groups = groups.groups;
  c.blocks_per_request = groups.blocks_per_request;
  const std::uint64_t charged = groups.request_block_bytes ? groups.request_block_bytes : groups.row_bytes;
  c.request_bytes = CheckedSum().add({charged, groups.blocks_per_request}).value();
  if (!groups.row_bytes || !groups.blocks_per_request) return c;
  c.num_blocks = c.kv_capacity_bytes / groups.row_bytes;
  c.max_concurrency = c.num_blocks / groups.blocks_per_request;
  // Checked against the pool less the block BlockPool keeps back (get_kv_cache_configs' check_memory).
  if (groups.request_block_bytes && c.request_bytes + groups.row_bytes > c.kv_capacity_bytes) c.max_concurrency = 0;
  c.concurrency_ratio = static_cast<double>(c.num_blocks) / static_cast<double>(groups.blocks_per_request);
  c.kv_capacity_tokens = rule != VllmRule::graphs_outside
                             ? static_cast<std::uint64_t>(c.concurrency_ratio * static_cast<double>(c.sequence_tokens))
                             : c.num_blocks / groups.groups * groups.min_block_tokens;
  return c;
}

VllmCapacity detail::vllm_kv_capacity(std::uint64_t memory, double util, std::uint64_t weights, std::uint64_t activation,
                                      std::uint64_t non_torch, std::uint64_t per_token, std::uint64_t sequence_tokens) {
  const VllmLayerKind full{VllmSpecKind::full, 1, per_token, 0, 0};
  const auto groups = vllm_kv_groups({&full, 1}, sequence_tokens, 0, kVllmBlockSize);
  return vllm_kv_capacity(memory, util, weights, activation, non_torch, groups, sequence_tokens,
                          VllmRule::graphs_outside);
}

std::uint64_t detail::llamacpp_compute_buffer(std::uint64_t ub, std::uint64_t n_kv, std::uint64_t n_head, std::uint64_t n_embd,
                                      std::uint64_t n_vocab, std::uint64_t n_ff, bool flash_attn) {
  const std::uint64_t attention_per_token =
      flash_attn ? n_kv * 2 + 4 * n_embd * 4 : n_kv * n_head * 4 + n_kv * 4 + 4 * n_embd * 4;
  const std::uint64_t output_per_token = (n_vocab + n_embd) * 4;
  const std::uint64_t ffn_per_token = (2 * n_embd + 3 * n_ff) * 4;  // residual, normed input, gate, up, product
  const auto peak = std::max({attention_per_token, output_per_token, ffn_per_token});
  const auto bytes = checked_mul(ub, peak);
  return bytes ? *bytes : ~0ULL;
}

namespace {

std::optional<Error> check_inference_options(const InferenceOptions& o) {
  if (o.context_tokens < 1 || o.context_tokens > kMaxContextTokens)
    return make_error("context", message("error.tokens_range", "must be between 1 and {max} tokens, got {value}",
                                         {arg::digits("max", kMaxContextTokens), arg::digits("value", o.context_tokens)}));
  if (o.batch < 1 || o.batch > kMaxBatch)
    return make_error("batch", message("error.range", "must be between 1 and {max}, got {value}",
                                       {arg::digits("max", kMaxBatch), arg::digits("value", o.batch)}));
  if (!(o.gpu_util > 0 && o.gpu_util <= 1))
    return make_error("gpu_util", message("error.inference.fraction", "must be a fraction above 0 and at most 1, got {value}",
                                          {arg::fixed("value", o.gpu_util, 6)}));
  if (o.avg_tokens && (*o.avg_tokens < 1 || *o.avg_tokens > o.context_tokens))
    return make_error("avg_tokens", message("error.inference.avg_tokens", "must be between 1 and the context ({context}), "
                                                                         "got {value}",
                                            {arg::digits("context", o.context_tokens), arg::digits("value", *o.avg_tokens)}));
  if (o.n_ubatch < 1 || o.n_ubatch > 65'536)
    return make_error("n_ubatch", message("error.range", "must be between 1 and {max}, got {value}",
                                          {arg::digits("max", 65536), arg::digits("value", o.n_ubatch)}));
  if (o.tensor_parallel < 1 || o.pipeline_parallel < 1)
    return make_error(o.tensor_parallel < 1 ? "tp" : "pp", message("error.at_least_1", "must be at least 1"));
  if (o.tensor_parallel * o.pipeline_parallel > 1 && o.engine == Engine::ollama)
    return make_error(o.tensor_parallel > 1 ? "tp" : "pp",
                      message("error.multi_gpu_ollama", "Ollama across several GPUs is not modelled; use 1, or "
                                                        "llama.cpp's layer split (engine llamacpp with gpus)"));
  if (o.tensor_parallel * o.pipeline_parallel > 1 && o.engine == Engine::mlx)
    return make_error(o.tensor_parallel > 1 ? "tp" : "pp",
                      message("error.multi_gpu_mlx", "MLX is modelled on one Mac's GPU; use 1"));
  if (o.tensor_parallel * o.pipeline_parallel > 1 && !kv_pool_engine(o.engine))
    return make_error(o.tensor_parallel > 1 ? "tp" : "pp",
                      message("error.multi_gpu_vllm", "tensor and pipeline parallel are vLLM's and SGLang's (engine "
                                                      "vllm or sglang); llama.cpp and transformers put whole layers on "
                                                      "each GPU: give gpus instead"));
  if (o.max_kv_size && (*o.max_kv_size < 1 || *o.max_kv_size > kMaxContextTokens))
    return make_error("max_kv_size", message("error.tokens_range", "must be between 1 and {max} tokens, got {value}",
                                             {arg::digits("max", kMaxContextTokens), arg::digits("value", *o.max_kv_size)}));
  if (o.mem_fraction_static && !(*o.mem_fraction_static > 0 && *o.mem_fraction_static <= 1))
    return make_error("mem_fraction_static",
                      message("error.inference.fraction", "must be a fraction above 0 and at most 1, got {value}",
                              {arg::fixed("value", *o.mem_fraction_static, 6)}));
  if (!o.device_split.empty()) {
    if (kv_pool_engine(o.engine))
      return make_error("gpus", message("error.inference.split_vllm", "vLLM and SGLang split every layer across their "
                                                                      "GPUs: give them as tp or pp"));
    if (o.device_split.size() < 2 || o.device_split.size() > 1024 ||
        !std::all_of(o.device_split.begin(), o.device_split.end(), [](double x) { return x > 0 && x < 1e15; }))
      return make_error("gpus", message("error.inference.split_shares",
                                        "a layer split needs 2 to 1024 devices, each with a positive share"));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> check_parallel(const ModelSpec& spec, const InferenceOptions& o) {
  if (spec.is_bare() && !o.device_split.empty())
    return make_error("gpus", message("error.inference.split_bare", "splitting layers across GPUs needs the model's "
                                                                    "layers; give a model, not a parameter count"));
  const std::uint64_t tp = o.tensor_parallel;
  for (const LayerRun& run : spec.layers) {
    if (run.mixer != MixerKind::attention && run.mixer != MixerKind::latent_attention) continue;
    const std::uint64_t heads = run.attention_heads();
    if (heads % tp)
      return make_error("tp", message("parallel.tp_heads", "must divide the attention heads ({heads}); {tp} does not",
                                      {arg::digits("heads", heads), arg::digits("tp", tp)}));
    const std::uint64_t kv = run.mixer == MixerKind::attention ? run.attention.kv_heads : 1;
    if (run.mixer == MixerKind::attention && kv && kv % tp && tp % kv)
      return make_error("tp", message("parallel.tp_kv_heads",
                                      "must divide the KV heads ({kv_heads}) or be a multiple of them; {tp} is neither",
                                      {arg::digits("kv_heads", kv), arg::digits("tp", tp)}));
  }
  if (!spec.is_bare() && o.pipeline_parallel > spec.num_layers())
    return make_error("pp", message("error.inference.pp_layers", "must be at most the layer count ({layers}), got {value}",
                                    {arg::digits("layers", spec.num_layers()), arg::digits("value", o.pipeline_parallel)}));
  return std::nullopt;
}

namespace {

// KV bytes per token on one rank: attention KV heads divided down to one head (replicated beyond), the MLA latent
// whole on every rank (one latent "head"), layers divided among the stages.
std::uint64_t kv_bytes_per_token_rank(const ModelSpec& spec, std::uint64_t per_token, const InferenceOptions& o) {
  std::uint64_t kv = 0;
  for (const LayerRun& run : spec.layers)
    if (run.mixer == MixerKind::attention) kv = std::max(kv, run.attention.kv_heads);
  const std::uint64_t tp = o.tensor_parallel;
  const std::uint64_t kept = kv ? std::max<std::uint64_t>(1, kv / tp) : 1;
  const std::uint64_t heads = kv && !spec.has_latent() ? kv : 1;
  const auto share = detail::mul_div_ceil(per_token, kept, heads * o.pipeline_parallel);
  return share ? *share : per_token;
}

// Figures the explanations quote that the estimate itself does not keep.
struct Workings {
  std::uint64_t compute_bytes = 0;  // c: bytes of one activation element
  std::uint64_t peak_width = 0;     // transformers, vLLM: live width of the phase that sets the activation peak
  bool scores_in_peak = false;      // transformers: the eager scores belong to that phase
  bool mxfp4 = false;               // the weight format is MXFP4 (its experts in E2M1 with E8M0 scales)
  std::uint64_t llama_n_kv = 0;     // llama.cpp: KV cells one ubatch attends to
  std::uint64_t reserve_requested = 0, reserve_reserved = 0;  // PyTorch's caching allocator
};

// The format the weights are stored in, as this engine and spec can run it.
Result<WeightFormat> weight_format_of(const ModelSpec& spec, const InferenceOptions& o) {
  WeightFormat format = o.weight_format.value_or(weight_format_for(o.weights));
  if (spec.is_bare() && format.scheme == WeightScheme::mixed) {
    // A bare count has no tensor roles to keep in 16 bits: every parameter at the dtype's width, the seed
    // article's rule (7B: FP16 14 GB, INT8 7 GB, INT4 3.5 GB). With an architecture, embeddings stay 16-bit.
    format.scheme = WeightScheme::plain;
  }
  if (ggml_engine(o.engine) && format.scheme != WeightScheme::plain && format.scheme != WeightScheme::gguf)
    return make_error("weights", message("error.inference.gguf_only", "{engine} loads GGUF files: use f16, bf16, fp32 or a "
                                                                      "GGUF type such as q4_k_m or q8_0, not {format}",
                                         {arg::text("engine", engine_title(o.engine)),
                                          arg::text("format", weight_format_name(format))}));
  const bool wide = format.dtype == DType::fp32 || format.dtype == DType::fp16 || format.dtype == DType::bf16;
  if (o.engine == Engine::mlx && format.scheme != WeightScheme::mlx &&
      !(format.scheme == WeightScheme::plain && (wide || spec.is_bare())))
    return make_error("weights", message("mlx.weights_format", "MLX runs 16- or 32-bit weights or its own quantization "
                                                               "(mlx-4bit, mlx-6bit, mlx-8bit: mlx_lm.convert -q), not {format}",
                                         {arg::text("format", weight_format_name(format))}));
  if (format.scheme == WeightScheme::plain && !wide && !spec.is_bare()) format.scheme = WeightScheme::mixed;
  return format;
}

// A vision model's GGUF file holds the language model alone: llama.cpp's converter writes the vision tower to a
// separate mmproj file (convert_hf_to_gguf.py --mmproj), which llama-server loads only when given --mmproj.
bool vision_tower_apart(const ModelSpec& spec, const InferenceOptions& o) {
  return o.engine == Engine::llamacpp && spec.vision_params > 0 && !o.mmproj_offload;
}

Message vision_tower_apart_note(const ModelSpec& spec) {
  return message("llamacpp.mmproj_apart",
                 "The vision tower ({params} parameters) is not counted: llama.cpp keeps it in a separate mmproj file "
                 "(about {mmproj_bytes} in F16), which llama-server loads only with --mmproj.",
                 {arg::count("params", spec.vision_params), arg::bytes("mmproj_bytes", 2 * spec.vision_params)});
}

std::optional<Error> add_weights(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o,
                                 const WeightFormat& format) {
  if (o.exact_weights) {
    e.weight_detail = *o.exact_weights;
  } else {
    ModelSpec text_only;
    if (vision_tower_apart(spec, o)) {
      text_only = spec;
      text_only.vision_params = 0;
    }
    auto weights = weights_bytes(vision_tower_apart(spec, o) ? text_only : spec, format);
    if (!weights) return weights.error();
    e.weight_detail = std::move(weights).value();
  }
  e.weights_format = o.exact_weights && !o.weight_format ? "file" : weight_format_name(format);
  e.weights_dtype = compute_dtype_of(format);
  w.compute_bytes = ggml_engine(o.engine) ? 4 : compute_bytes_of(format);  // ggml computes in f32
  w.mxfp4 = format.scheme == WeightScheme::mxfp4;
  e.weights = e.weight_detail.total;
  return std::nullopt;
}

KvAllocation kv_allocation_of(const InferenceOptions& o) {
  if (o.kv_allocation != KvAllocation::engine_default) return o.kv_allocation;
  return o.engine == Engine::vllm ? KvAllocation::paged : KvAllocation::static_max;
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

std::optional<Error> check_kv_choices(const InferenceEstimate& e, const InferenceOptions& o) {
  if (o.engine == Engine::mlx) return check_mlx_kv_choices(e, o);
  if (o.engine == Engine::ollama && e.kv_dtype != KvDType::fp16 && e.kv_dtype != KvDType::q8_0 &&
      e.kv_dtype != KvDType::q4_0)
    return make_error("kv_dtype", message("error.inference.ollama_kv_type", "Ollama's OLLAMA_KV_CACHE_TYPE is f16, q8_0 or q4_0"));
  if ((e.kv_dtype == KvDType::q8_0 || e.kv_dtype == KvDType::q4_0) && !ggml_engine(o.engine))
    return make_error("kv_dtype", message("error.inference.ggml_kv_type", "{dtype} is a llama.cpp cache type; with this "
                                                                          "engine use fp32, fp16, bf16 or fp8",
                                          {arg::text("dtype", kv_dtype_info(e.kv_dtype).name)}));
  if (e.kv_dtype == KvDType::fp8 && o.engine == Engine::llamacpp)
    return make_error("kv_dtype", message("error.inference.llamacpp_fp8", "llama.cpp has no fp8 cache; use f16, bf16, q8_0 or q4_0"));
  const KvAllocation strategy = kv_allocation_of(o);
  if (strategy == KvAllocation::paged && ggml_engine(o.engine))
    return make_error("kv_allocation", message("error.inference.llamacpp_paged", "llama.cpp reserves n_ctx cells up "
                                                                                 "front; paged allocation is vLLM's "
                                                                                 "(allowed here: static)"));
  if (strategy == KvAllocation::static_max && o.engine == Engine::vllm)
    return make_error("kv_allocation", message("error.inference.vllm_static", "vLLM always pages its KV cache (allowed here: paged)"));
  return std::nullopt;
}

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

// The KV cache as the engine allocates it, reserved up front or paged; returns the engine's cache layout.
Result<KvLayout> add_kv_cache(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  const KvDType kv_default = ggml_engine(o.engine) ? KvDType::fp16 : kv_dtype_for(e.weights_dtype);
  e.kv_dtype = o.kv_dtype.value_or(kv_default);
  if (auto error = check_kv_choices(e, o)) return *error;
  KvLayout layout;
  layout.mla = o.engine == Engine::transformers ? MlaCache::per_head : MlaCache::latent;
  if (o.engine == Engine::llamacpp) {
    layout.window_extra = std::min(o.n_ubatch, kLlamaNBatch);
    layout.window_pad = kLlamaSwaPad;
  }
  if (o.engine == Engine::mlx) layout.window_extra = mlx_chunk_tokens(o) - 1;  // RotatingKVCache: max_size + S − 1
  if (o.engine == Engine::vllm) {  // DeepSeek-V4's compressed entries: 256-token blocks, pages aligned to 576 B
    layout.compressed_block_tokens = kVllmCompressedBlockTokens;
    layout.compressed_page_align = kVllmCompressedPageAlign;
  }
  // State widths: llama.cpp f32 for both parts (llama_memory_recurrent's type_r/type_s); vLLM the conv state in the
  // model dtype and the recurrent state in mamba_ssm_dtype when the config names it (MambaStateDtypeCalculator);
  // transformers both in the model dtype.
  const std::uint64_t model_bytes = dtype_info(e.weights_dtype).bits / 8;
  layout.conv_state_element_bytes = ggml_engine(o.engine) ? 4 : model_bytes;
  layout.recurrent_state_element_bytes = ggml_engine(o.engine) ? 4
                                         : o.engine == Engine::vllm && spec.recurrent_state_element_bytes
                                             ? spec.recurrent_state_element_bytes
                                             : model_bytes;
  if (o.engine == Engine::sglang) {  // SGLang: bf16 conv, fp32 SSM state (mamba_utils.py, --mamba-ssm-dtype)
    layout.conv_state_element_bytes = kSglangConvStateElementBytes;
    layout.recurrent_state_element_bytes = kSglangSsmStateElementBytes;
  }
  const KvAllocation strategy = kv_allocation_of(o);
  // mlx-lm runs "mistral" through models/llama.py, whose layers all attend in full unless the config lists
  // layer_types: Mistral 7B v0.1's sliding_window is not applied there.
  ModelSpec unwindowed;
  const bool mlx_full = o.engine == Engine::mlx && spec.architecture == "mistral";
  if (mlx_full) {
    unwindowed = spec;
    for (LayerRun& run : unwindowed.layers) run.attention.window = 0;
  }
  const ModelSpec& cached = mlx_full ? unwindowed : spec;
  auto kv_static = estimate_kv_cache(cached, e.kv_dtype, o.engine == Engine::mlx ? mlx_cache_tokens(o) : o.context_tokens,
                                     o.batch, layout);
  if (!kv_static) return kv_static.error();
  const std::uint64_t avg = o.avg_tokens.value_or(o.context_tokens);
  auto kv_paged = estimate_kv_cache(cached, e.kv_dtype, ceil_div(avg, kVllmBlockSize) * kVllmBlockSize, o.batch, layout);
  if (!kv_paged) return kv_paged.error();
  const bool grouped = e.kv_dtype == KvDType::q8_0 || e.kv_dtype == KvDType::q4_0;
  if (o.engine == Engine::mlx && grouped && (o.max_kv_size || kv_static.value().windowed_layers))
    return make_error("kv_dtype", o.max_kv_size ? message("mlx.rotating_quantized", "MLX cannot quantize the rotating "
                                                          "cache that --max-kv-size makes (RotatingKVCache Quantization "
                                                          "NYI): drop one of the two")
                                                : message("mlx.window_quantized", "MLX cannot quantize this model's "
                                                          "sliding-window layers' rotating cache (RotatingKVCache "
                                                          "Quantization NYI): use fp16 or bf16"));
  e.kv_allocation = {strategy, avg, kv_static.value().bytes, kv_paged.value().bytes};
  e.kv = strategy == KvAllocation::paged ? kv_paged.value() : kv_static.value();
  e.kv_cache = e.kv.bytes;
  e.state_cache = e.kv.state_bytes;
  return layout;
}

// transformers: one prefill pass's largest layer plus the last token's fp32 logits.
std::optional<Error> add_transformers_activations(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                                  const InferenceOptions& o) {
  auto peak = activation_peak(spec, o.context_tokens, o.batch, w.compute_bytes, o.attention == Attention::eager);
  const auto logits = spec.has_lm_head ? checked_mul(o.batch, spec.vocab_size * 4) : std::optional<std::uint64_t>(0);
  if (!peak || !logits || !checked_add(peak->layer_bytes, *logits))
    return make_error("context", message("error.inference.overflow_activations",
                                         "context × batch makes the activations overflow 64 bits"));
  e.logits = *logits;
  e.attention_scores = peak->scores_bytes;
  e.activations = peak->layer_bytes + e.logits;
  w.peak_width = peak->width;
  w.scores_in_peak = peak->scores_in_peak;
  return std::nullopt;
}

// vLLM's profile run: its torch peak is the larger of the forward pass over max_num_batched_tokens and the
// sampler's dummy run on R = min(max_num_seqs, max_num_batched_tokens) rows of full-vocabulary logits, while the
// forward's [tokens, hidden] output is still held. Tensor parallel gathers the whole vocabulary on every rank.
std::uint64_t vllm_sampler_bytes(const ModelSpec& spec, std::uint64_t tokens, std::uint64_t seqs, std::uint64_t c) {
  if (!spec.has_lm_head) return 0;
  const auto sampler = CheckedSum()
                           .add({std::min(tokens, seqs), spec.vocab_size, c + kVllmSamplerBytesPerLogit})
                           .add({tokens, spec.hidden_size, c})
                           .result();
  return sampler ? *sampler : ~0ULL;
}

// One layer kind as vLLM's get_kv_cache_spec gives it on one GPU: KV heads divided among tensor-parallel ranks
// (replicated beyond their count), the MLA latent whole on every rank, linear-attention and Mamba state split with
// their heads.
VllmLayerKind vllm_layer_kind(const LayerRun& run, const InferenceEstimate& e, const InferenceOptions& o,
                              const KvLayout& layout) {
  const std::uint64_t tp = o.tensor_parallel;
  if (run.keeps_state()) return {VllmSpecKind::state, run.count, 0, ceil_div(layer_state_bytes(run, layout), tp), 0};
  const std::uint64_t row = layer_token_bytes(run, e.kv_dtype, layout.mla).value_or(0);
  if (run.mixer == MixerKind::latent_attention) return {VllmSpecKind::full, run.count, row, 0, 0};
  const AttentionMixer& a = run.attention;
  const std::uint64_t kept = std::max<std::uint64_t>(1, a.kv_heads / tp);
  const std::uint64_t bytes = detail::mul_div_ceil(row, kept, std::max<std::uint64_t>(a.kv_heads, 1)).value_or(row);
  if (a.chunk) return {VllmSpecKind::chunked, run.count, bytes, 0, a.chunk};
  if (a.window) return {VllmSpecKind::sliding, run.count, bytes, 0, a.window};
  return {VllmSpecKind::full, run.count, bytes, 0, 0};
}

// The kinds of the layers on the busiest GPU, alike runs merged; the stages split each kind's layers.
std::vector<VllmLayerKind> vllm_layer_kinds(const ModelSpec& spec, const InferenceEstimate& e,
                                            const InferenceOptions& o, const KvLayout& layout) {
  std::vector<VllmLayerKind> kinds;
  for (const LayerRun& run : spec.layers) {
    if (!run.keeps_tokens() && !run.keeps_state()) continue;
    const VllmLayerKind k = vllm_layer_kind(run, e, o, layout);
    const auto same = std::find_if(kinds.begin(), kinds.end(), [&](const VllmLayerKind& x) {
      return x.kind == k.kind && x.window == k.window && x.token_bytes == k.token_bytes && x.state_bytes == k.state_bytes;
    });
    if (same == kinds.end()) kinds.push_back(k);
    else same->layers += k.layers;
  }
  for (VllmLayerKind& k : kinds) k.layers = ceil_div(k.layers, o.pipeline_parallel);
  return kinds;
}

// DeepSeek-V4's attention layers as vLLM caches them: fp8 KV in its fp8_ds_mla layout (584-B entries, pages
// aligned to 576 B), other KV dtypes as plain rows (pages aligned to 512 B); the indexer's keys fp8 either way.
VllmDsv4Layers vllm_dsv4_layers(const ModelSpec& spec, KvDType kv_dtype) {
  VllmDsv4Layers l;
  for (const LayerRun& run : spec.layers) {
    if (run.mixer != MixerKind::attention || !run.attention.one_kv_entry) continue;
    const AttentionMixer& a = run.attention;
    (a.compress_ratio == 4 ? l.ratio4 : a.compress_ratio > 1 ? l.ratio128 : l.window_only) += run.count;
    l.window = a.window;
    l.head_dim = a.head_dim;
    l.index_head_dim = std::max(l.index_head_dim, a.index_head_dim);
  }
  const bool ds_mla = kv_dtype == KvDType::fp8;
  l.entry_bytes = ds_mla ? kVllmDsMlaEntryBytes : kv_bytes(l.head_dim, kv_dtype).value_or(0);
  l.index_key_bytes = l.index_head_dim + ceil_div(l.index_head_dim, kVllmIndexerScaleBlock) * 4;
  l.page_align = ds_mla ? kVllmCompressedPageAlign : kVllmPlainPageAlign;
  return l;
}

bool has_one_entry_layers(const ModelSpec& spec) {
  return std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerRun& run) {
    return run.mixer == MixerKind::attention && run.attention.one_kv_entry;
  });
}

// What a sliding cache holds beyond its window (VllmConfig.max_in_flight_tokens): max_num_batched_tokens for each
// batch in flight, two with async scheduling (on by default) on one stage, one per stage with pipeline parallel.
std::uint64_t vllm_in_flight_tokens(const InferenceOptions& o, std::uint64_t batched_tokens) {
  return (o.pipeline_parallel > 1 ? o.pipeline_parallel : kVllmAsyncBatchesInFlight) * batched_tokens;
}

// vLLM's groups for the model on one GPU.
VllmKvGroups vllm_groups_of(const ModelSpec& spec, const InferenceEstimate& e, const InferenceOptions& o,
                            const KvLayout& layout, std::uint64_t tokens) {
  // From 0.27 prefix caching is on for hybrid models too (PR #50991), in mamba_cache_mode align: two state pages.
  const std::uint64_t state_pages = o.vllm_rule == VllmRule::hybrid_prefix_caching ? 2 : 1;
  if (has_one_entry_layers(spec))
    return vllm_dsv4_groups(vllm_dsv4_layers(spec, e.kv_dtype), o.context_tokens, vllm_in_flight_tokens(o, tokens),
                            kVllmCompressedBlockTokens, o.pipeline_parallel);
  return vllm_kv_groups(vllm_layer_kinds(spec, e, o, layout), o.context_tokens, tokens, kVllmBlockSize,
                        state_pages);
}

std::uint64_t vllm_graph_bytes(const InferenceOptions& o) { return o.enforce_eager ? 0 : kVllmCudaGraphBytes; }

// Whether vLLM from 0.25 runs the model on Model Runner V2 (VllmConfig.use_v2_model_runner,
// _is_default_v2_model_runner_model in vllm/config/vllm.py): a generating model that is neither hybrid (Mamba or
// linear-attention layers) nor attention-free, and not a mixture of experts unless its architecture is listed.
bool vllm_model_runner_v2(const ModelSpec& spec) {
  if (!spec.causal || spec.is_bare()) return false;
  const bool listed = std::find(std::begin(kVllmRunnerV2MoeTypes), std::end(kVllmRunnerV2MoeTypes),
                                spec.architecture) != std::end(kVllmRunnerV2MoeTypes);
  bool attention = false, state = false;
  for (const LayerRun& run : spec.layers) {
    state = state || run.keeps_state();
    attention = attention || run.keeps_tokens();
  }
  if (!attention || (state && !listed)) return false;
  return listed || !spec.has_moe();
}

// vLLM: the profile run's torch peak, and with a GPU the KV pool that leaves.
std::optional<Error> add_vllm_activations(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                          const InferenceOptions& o, const KvLayout& layout) {
  const VllmMxfp4Kernel kernel = w.mxfp4 ? vllm_mxfp4_kernel(o.gpu_compute_capability) : VllmMxfp4Kernel{};
  const std::uint64_t padding = kernel.name.empty() ? 0 : vllm_mxfp4_padding_bytes(spec, o.tensor_parallel, kernel);
  e.weights += padding;
  const bool large = o.gpu_memory_bytes >= kVllmLargeGpuBytes && !o.gpu_is_a100;
  const std::uint64_t tokens = o.max_num_batched_tokens.value_or(large ? kVllmMaxBatchedTokensLarge : kVllmMaxBatchedTokens);
  const std::uint64_t seqs = o.max_num_seqs.value_or(large ? kVllmMaxNumSeqsLarge : kVllmMaxNumSeqs);
  auto peak = activation_peak(spec, tokens, 1, w.compute_bytes, false);
  const std::uint64_t sampler = vllm_sampler_bytes(spec, tokens, seqs, w.compute_bytes);
  if (!peak || sampler == ~0ULL) return make_error("max_num_batched_tokens", message("error.inference.too_large", "too large"));
  e.logits = sampler;
  // Tensor parallel splits the forward's widest tensors; every rank still gathers and samples the whole vocabulary.
  const std::uint64_t forward = ceil_div(peak->layer_bytes, o.tensor_parallel);
  e.activations = std::max(forward, sampler);
  w.peak_width = peak->width;
  const std::uint64_t ranks = o.tensor_parallel * o.pipeline_parallel;
  const std::uint64_t non_torch = o.tensor_parallel > 1 ? kVllmNonTorchTpBytes : kVllmNonTorchBytes;
  // DeepSeek-V4 holds some tensors whole on every tensor-parallel rank.
  std::uint64_t replicated = 0;
  if (o.tensor_parallel > 1 && has_one_entry_layers(spec)) {
    auto format = weight_format_of(spec, o);
    if (!format) return format.error();
    auto bytes = weights_bytes_of(spec, format.value(), vllm_dsv4_replicated);
    if (!bytes) return bytes.error();
    replicated = bytes.value();
  }
  const std::uint64_t weights = vllm_rank_weights(e.weights, replicated, o.tensor_parallel, o.pipeline_parallel);
  const std::uint64_t per_token = kv_bytes_per_token_rank(spec, e.kv.bytes_per_token, o);
  const std::uint64_t state = ceil_div(e.kv.state_bytes_per_sequence, ranks);
  const std::uint64_t graphs = vllm_graph_bytes(o);
  const bool runner_v2 = (o.vllm_rule == VllmRule::runner_v2 || o.vllm_rule == VllmRule::hybrid_prefix_caching) &&
                         vllm_model_runner_v2(spec);
  const bool graphs_in_budget = o.vllm_rule != VllmRule::graphs_outside && !runner_v2;
  VllmCapacity caps;
  // An encoder's layers ask for no KV cache (EncoderOnlyAttention.get_kv_cache_spec returns None), and with none
  // vLLM neither profiles for nor allocates a pool (v1/engine/core.py, _initialize_kv_caches: "Attention free
  // models don't need memory for kv cache"): no capacity, and no refusal for want of one.
  if (o.gpu_memory_bytes && spec.causal) {
    caps = detail::vllm_kv_capacity(o.gpu_memory_bytes, o.gpu_util, weights, e.activations, non_torch,
                                    vllm_groups_of(spec, e, o, layout, tokens), o.context_tokens, o.vllm_rule,
                                    graphs_in_budget ? graphs : 0);
  } else {
    caps.gpu_util = o.gpu_util;
    caps.profile_activation_bytes = e.activations;
    caps.non_torch_bytes = non_torch;
    caps.sequence_tokens = o.context_tokens;
  }
  caps.max_num_batched_tokens = tokens;
  caps.max_num_seqs = seqs;
  caps.sampler_bytes = sampler;
  caps.forward_bytes = forward;
  caps.tensor_parallel = o.tensor_parallel;
  caps.pipeline_parallel = o.pipeline_parallel;
  caps.weights_bytes = weights;
  caps.replicated_weights_bytes = replicated;
  caps.mxfp4_padding_bytes = padding;
  caps.mxfp4_kernel = padding ? kernel.name : std::string_view{};
  caps.kv_bytes_per_token = per_token;
  caps.cuda_graph_bytes = graphs;
  caps.cuda_graphs_in_budget = graphs_in_budget;
  caps.rule = o.vllm_rule;
  caps.model_runner_v2 = runner_v2;
  caps.engine_version = o.vllm_version.empty() ? std::string(vllm_rule_version(o.vllm_rule)) : o.vllm_version;
  caps.state_bytes_per_sequence = state;
  e.vllm = caps;
  return std::nullopt;
}

// SGLang: the forward over one chunked-prefill chunk as the activation peak, and with a GPU the pool that
// mem_fraction_static leaves after the weights (ModelRunner.profile_max_num_token).
std::optional<Error> add_sglang_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                       const InferenceOptions& o) {
  const std::uint64_t gpu_mib = o.gpu_memory_bytes / kMiB;
  const SglangDefaults d = sglang_defaults(o.sglang_rule, gpu_mib, o.tensor_parallel, o.pipeline_parallel,
                                           spec.vision_params > 0, spec.has_latent());
  auto peak = activation_peak(spec, d.chunked_prefill_size, 1, w.compute_bytes, false);
  if (!peak) return make_error("context", message("error.inference.overflow_chunked",
                                                   "the chunked prefill's activations overflow 64 bits"));
  e.activations = ceil_div(peak->layer_bytes, o.tensor_parallel);
  w.peak_width = peak->width;
  const std::uint64_t ranks = o.tensor_parallel * o.pipeline_parallel;
  const std::uint64_t distributed = o.tensor_parallel * o.pipeline_parallel == 1 ? 0
                                    : o.gpu_has_nvlink                         ? kSglangDistributedNvlinkBytes
                                                                               : kSglangDistributedPcieBytes;
  const std::uint64_t weights = ceil_div(e.weights, ranks);
  const std::uint64_t cell = kv_bytes_per_token_rank(spec, e.kv.bytes_per_token, o);
  const std::uint64_t context_len = o.context_tokens;
  const std::uint64_t used = kCudaContextBytes + distributed;
  const std::uint64_t free_at_start = o.gpu_memory_bytes > used ? o.gpu_memory_bytes - used : 0;
  const double fraction = o.mem_fraction_static.value_or(d.mem_fraction_static);
  const std::uint64_t slot = ceil_div(e.kv.state_bytes_per_sequence, ranks);  // mamba_cache_per_req on one rank
  SglangCapacity c = detail::sglang_kv_capacity(o.gpu_memory_bytes ? free_at_start : 0, fraction, weights, cell,
                                                context_len, o.max_total_tokens.value_or(0), slot);
  c.rule = o.sglang_rule;
  c.mem_fraction_default = !o.mem_fraction_static;
  c.reserved_mib = o.mem_fraction_static ? 0 : d.reserved_mib;
  c.chunked_prefill_size = d.chunked_prefill_size;
  c.driver_total_bytes = o.gpu_memory_bytes;
  c.distributed_bytes = distributed;
  c.tensor_parallel = o.tensor_parallel;
  c.pipeline_parallel = o.pipeline_parallel;
  e.sglang = c;
  return std::nullopt;
}

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
  sum.add({o.batch, chunk, mixer_width(spec, run), c});
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

// MLX (mlx_lm.generate): the widest layer over one prefill chunk, its scores where attention is unfused, one
// layer's old K and V while the cache grows (mx.concatenate copies them into the larger buffer), and the logits of
// the prompt's last call (the prefill chunks' logits are never evaluated: only the cache is). From 0.27.0 that call
// is the last token alone, its logits and log-probabilities added to the layer's moment as a bound. Up to 0.26.4 it
// is the prompt's last chunk: lm_head writes logits for each of its tokens while its input is held, and
// logits[:, -1, :] is a view that keeps that buffer until the log-probabilities are computed; that moment follows
// the layers', so the larger of the two counts. The largest last chunk a prompt within the context leaves is
// min(context, prefill_step_size) tokens.
std::optional<Error> add_mlx_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o) {
  MlxMemory m;
  m.rule = o.mlx_rule;
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

// The KV cells and state slots of the layers -ngl puts on the GPU: llama.cpp offloads the last n_gpu_layers
// repeating layers (llama_model::load_tensors, i_gpu_start = n_layer − n_gpu_layers), each with its own cache.
Result<KvCacheEstimate> llamacpp_gpu_cache(const ModelSpec& spec, const InferenceEstimate& e, const LlamaCppBuffers& b,
                                           const InferenceOptions& o, const KvLayout& layout) {
  if (b.gpu_layers == b.total_layers) return e.kv;
  if (!b.gpu_layers) return KvCacheEstimate{};
  const auto every_layer = expand_runs(spec.layers);
  ModelSpec on_gpu = spec;
  on_gpu.layers =
      compress_runs(std::vector<LayerRun>(every_layer.end() - static_cast<std::ptrdiff_t>(b.gpu_layers), every_layer.end()));
  auto kv = estimate_kv_cache(on_gpu, e.kv_dtype, b.n_ctx, 1, layout);
  if (kv) kv.value().state_bytes = kv.value().state_bytes_per_sequence * o.batch;
  return kv;
}

// llama.cpp: n_ctx cells for all sequences, the layers -ngl puts on the GPU, and the GPU compute buffer.
std::optional<Error> add_llamacpp_buffers(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                          const InferenceOptions& o, const KvLayout& layout) {
  LlamaCppBuffers b;
  b.n_ctx = o.context_tokens * o.batch;
  b.n_ubatch = std::min({o.n_ubatch, kLlamaNBatch, b.n_ctx});
  b.flash_attn = o.attention == Attention::sdpa;
  const std::uint64_t layers = spec.num_layers();
  b.total_layers = layers;
  b.gpu_layers = std::min(o.gpu_layers.value_or(layers + 1), layers);
  b.output_on_gpu = o.gpu_layers.value_or(layers + 1) > layers;
  // The graph is reserved for the widest layer: most heads, widest q, widest FFN; the full-attention layers see
  // every cell, windowed ones at most the window.
  bool any_full = false;
  std::uint64_t heads = 0, q_width = 0, n_ff = 0;
  for (const LayerRun& run : spec.layers) {
    if (run.keeps_tokens())
      any_full = any_full || !(run.mixer == MixerKind::attention && (run.attention.window || run.attention.chunk));
    heads = std::max(heads, run.attention_heads());
    if (run.mixer == MixerKind::attention) q_width = std::max(q_width, run.attention.heads * run.attention.head_dim);
    if (run.mixer == MixerKind::latent_attention)
      q_width = std::max(q_width, run.latent.heads * (run.latent.qk_nope_head_dim + run.latent.qk_rope_head_dim));
    n_ff = std::max(n_ff, run.mlp.kind == MlpKind::moe ? run.mlp.experts_per_token * run.mlp.expert_intermediate
                                                        : run.mlp.intermediate);
  }
  w.llama_n_kv = any_full ? b.n_ctx : std::min(b.n_ctx, e.kv.window_cells);
  const std::uint64_t n_embd = std::max(spec.hidden_size, q_width);
  b.compute_buffer_bytes = detail::llamacpp_compute_buffer(b.n_ubatch, w.llama_n_kv, heads, n_embd,
                                                   spec.vocab_size, n_ff, b.flash_attn);
  b.compute_buffer_other_bytes = detail::llamacpp_compute_buffer(b.n_ubatch, w.llama_n_kv, heads, n_embd,
                                                         spec.vocab_size, n_ff, !b.flash_attn);
  b.compute_buffer_layers_bytes = detail::llamacpp_compute_buffer(b.n_ubatch, w.llama_n_kv, heads, n_embd, 0, n_ff,
                                                                  b.flash_attn);
  b.output_buffer_bytes = spec.vocab_size * o.batch * 4;
  // KV of this many cells for all sequences: recompute per sequence-less n_ctx. The recurrent state has one slot
  // per sequence (n_seq_max = batch), whatever the cell count.
  auto kv_cells = estimate_kv_cache(spec, e.kv_dtype, b.n_ctx, 1, layout);
  if (!kv_cells) return kv_cells.error();
  e.kv = kv_cells.value();
  e.kv.state_bytes = e.kv.state_bytes_per_sequence * o.batch;
  auto gpu_cache = llamacpp_gpu_cache(spec, e, b, o, layout);
  if (!gpu_cache) return gpu_cache.error();
  const auto& wd = e.weight_detail;
  const std::uint64_t layer_weights = wd.attention + wd.mlp + wd.norms + wd.other;
  const std::uint64_t on_gpu_layers = layers ? layer_weights / layers * b.gpu_layers : 0;
  const std::uint64_t gpu_weights = on_gpu_layers + (b.output_on_gpu ? wd.output : 0);
  b.host_weights_bytes = wd.total - gpu_weights;  // token embeddings stay in RAM (get_rows runs on the CPU)
  b.host_kv_bytes = e.kv.bytes - gpu_cache.value().bytes;
  b.host_state_bytes = e.kv.state_bytes - gpu_cache.value().state_bytes;
  b.host_ram_bytes = b.host_weights_bytes + b.host_kv_bytes + b.host_state_bytes + b.output_buffer_bytes;
  e.weights = gpu_weights;
  if (o.mmproj_offload)  // the mmproj file's tensors, as weights_bytes counts the vision tower (F16)
    for (const WeightGroup& g : wd.groups) b.mmproj_bytes += g.what == "vision tower" ? g.bytes : 0;
  e.kv_cache = gpu_cache.value().bytes;
  e.state_cache = gpu_cache.value().state_bytes;
  e.kv_allocation.static_bytes = e.kv.bytes;
  e.activations = b.gpu_layers ? b.compute_buffer_bytes : 0;
  e.llamacpp = b;
  return std::nullopt;
}

// CUDA context, plus vLLM's non-torch memory and CUDA graphs or the cuBLAS workspace.
// The tokens GraphSize counts in each block's KV cache.
std::vector<std::uint64_t> ollama_block_tokens(const ModelSpec& spec, const InferenceOptions& o) {
  std::uint64_t window = 0;  // attention.sliding_window
  for (const LayerRun& run : spec.layers)
    if (run.mixer == MixerKind::attention) window = std::max(window, run.attention.window);
  return ollama_kv_tokens({ollama_kv_rule(spec.architecture), spec.num_layers(), o.context_tokens * o.batch, o.batch,
                           std::min(o.context_tokens, kOllamaNumBatch), window});
}

// Ollama's KV per block as GraphSize sizes it: the block's tokens × (key + value length) × the largest KV head
// count × the cache type's bytes (f16 2, q8_0 1, q4_0 0.5).
std::vector<std::uint64_t> ollama_kv_layers(const ModelSpec& spec, const std::vector<std::uint64_t>& tokens,
                                            KvDType type) {
  std::uint64_t width = 0;  // (key + value length) × KV heads, the largest of the layers
  for (const LayerRun& run : spec.layers) {
    if (run.mixer == MixerKind::attention)
      width = std::max(width, (run.attention.head_dim + run.attention.value_dim()) * run.attention.kv_heads);
    if (run.mixer == MixerKind::latent_attention)
      width = std::max(width, (run.latent.qk_nope_head_dim + run.latent.qk_rope_head_dim + run.latent.v_head_dim) *
                                  run.latent.heads);
  }
  const std::uint64_t half_bytes = type == KvDType::q4_0 ? 1 : type == KvDType::q8_0 ? 2 : 4;
  std::vector<std::uint64_t> bytes;
  for (std::uint64_t t : tokens) bytes.push_back(t * width * half_bytes / 2);
  return bytes;
}

OllamaGraphInputs ollama_graph_inputs(const ModelSpec& spec, const InferenceOptions& o, std::uint64_t kv_total,
                                      std::uint64_t kv_full_total) {
  OllamaGraphInputs g;
  g.formula = ollama_graph_formula(spec.architecture, spec.has_moe());
  g.context = o.context_tokens * o.batch;
  g.batch = std::min(o.context_tokens, kOllamaNumBatch);
  g.embedding = spec.hidden_size;
  for (const LayerRun& run : spec.layers) {
    g.heads = std::max(g.heads, run.attention_heads());
    if (run.mixer != MixerKind::attention) continue;
    g.heads_kv = std::max(g.heads_kv, run.attention.kv_heads);
    g.heads_kv_min = g.heads_kv_min ? std::min(g.heads_kv_min, run.attention.kv_heads) : run.attention.kv_heads;
    g.head_dim = std::max(g.head_dim, run.attention.head_dim);
  }
  g.vocab = spec.vocab_size;
  g.kv_total = kv_total;
  g.kv_full_total = kv_full_total;
  g.parallel = o.batch;
  g.flash_attention = o.attention == Attention::sdpa;
  g.metal = o.gpu_is_apple;
  return g;
}

// Each block's weights (the routed experts of the MoE layers shared among them) and KV, and the output layer Ollama
// places last: output_norm + output, or token_embd when the output is tied to it.
OllamaLayerInputs ollama_layer_inputs(const ModelSpec& spec, const WeightBytes& wd, std::vector<std::uint64_t> kv) {
  OllamaLayerInputs in;
  in.kv_bytes = std::move(kv);
  const std::uint64_t n = spec.num_layers();
  std::uint64_t moe_layers = 0;
  for (const LayerRun& run : spec.layers) moe_layers += run.mlp.kind == MlpKind::moe ? run.count : 0;
  const std::uint64_t routed = moe_layers ? wd.routed_expert_bytes : 0;
  const std::uint64_t dense_part = n ? (wd.attention + wd.mlp + wd.norms + wd.other - routed) / n : 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const bool moe = spec.layer(i).mlp.kind == MlpKind::moe && routed;
    in.layer_bytes.push_back(dense_part + (moe ? routed / moe_layers : 0));
  }
  in.output_bytes = wd.output + (spec.tied_embeddings ? wd.embedding : 0);
  return in;
}

// Ollama: its own KV and graph figures, and with a GPU the layers it offloads; the estimate's lines are then the
// GPU's share (memory.required.partial), the rest is system RAM.
std::optional<Error> add_ollama_memory(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  OllamaEstimate c;
  c.num_ctx = o.context_tokens;
  c.num_parallel = o.batch;
  c.flash_attention = o.attention == Attention::sdpa;
  c.kv_type_ignored = !c.flash_attention && e.kv_dtype != KvDType::fp16;
  c.kv_type = c.kv_type_ignored ? KvDType::fp16 : e.kv_dtype;
  e.kv_dtype = c.kv_type;
  const std::uint64_t n = spec.num_layers();
  const std::vector<std::uint64_t> tokens = ollama_block_tokens(spec, o);
  for (std::uint64_t t : tokens)
    if (t != o.context_tokens * o.batch) {
      ++c.window_layers;
      c.window_tokens = t;
    }
  std::vector<std::uint64_t> kv = ollama_kv_layers(spec, tokens, c.kv_type);
  for (std::uint64_t bytes : kv) c.kv_bytes += bytes;
  std::uint64_t kv_full = 0;  // every block at the full context, as GraphSize first sums it
  const std::vector<std::uint64_t> full_tokens(n, o.context_tokens * o.batch);
  for (std::uint64_t bytes : ollama_kv_layers(spec, full_tokens, c.kv_type)) kv_full += bytes;
  const OllamaGraph graph = ollama_graph(ollama_graph_inputs(spec, o, c.kv_bytes, kv_full));
  c.graph_formula = std::string(ollama_graph_formula_name(ollama_graph_formula(spec.architecture, spec.has_moe())));
  c.graph_full_bytes = graph.full;
  c.graph_partial_bytes = graph.partial;
  c.minimum_bytes = o.gpu_is_apple ? kOllamaMinimumMemoryMetal : kOllamaMinimumMemoryCuda;
  c.gpu_overhead_bytes = o.ollama_gpu_overhead;
  OllamaLayerInputs in = ollama_layer_inputs(spec, e.weight_detail, std::move(kv));
  in.free_bytes = o.gpu_memory_bytes ? o.gpu_memory_bytes : ~0ULL / 4;  // no GPU: every layer on one
  in.minimum_bytes = c.minimum_bytes;
  in.overhead_bytes = o.gpu_memory_bytes ? c.gpu_overhead_bytes : 0;
  in.graph = graph;
  in.num_gpu = o.gpu_layers;
  for (std::uint64_t bytes : in.layer_bytes) c.weights_repeating_bytes += bytes;
  c.output_bytes = in.output_bytes;
  const WeightBytes& wd = e.weight_detail;
  const OllamaPlacement p = place_ollama_layers(in);
  c.planned = o.gpu_memory_bytes != 0;
  c.available_bytes = o.gpu_memory_bytes;
  c.layers_model = p.layers_model;
  c.layers_offload = p.layers_offload;
  c.gpu_usable = p.gpu_usable;
  c.required_full_bytes = p.total_bytes;
  c.required_partial_bytes = p.vram_bytes;
  c.system_ram_bytes = p.overflow_bytes + (spec.tied_embeddings ? 0 : wd.embedding);
  // The GPU's share, line by line: the blocks offloaded (the last ones), the output layer if it went too.
  const std::uint64_t blocks = std::min(p.layers_offload, n);
  const bool output_on_gpu = p.layers_offload > n;
  std::uint64_t gpu_weights = output_on_gpu ? in.output_bytes : 0;
  std::uint64_t gpu_kv = 0;
  for (std::uint64_t i = n - blocks; i < n; ++i) {
    gpu_weights += in.layer_bytes[i];
    gpu_kv += in.kv_bytes[i];
  }
  const std::uint64_t spare = n && p.gpu_usable ? in.layer_bytes[0] + in.kv_bytes[0] : 0;
  e.weights = gpu_weights;
  e.kv_cache = gpu_kv;
  e.state_cache = 0;
  e.activations = p.layers_offload ? p.graph_bytes : 0;
  c.overhead_bytes = p.gpu_usable ? c.minimum_bytes + spare : 0;
  e.kv.bytes = c.kv_bytes;
  e.ollama = c;
  return std::nullopt;
}

std::uint64_t overhead_bytes(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  if (o.engine == Engine::mlx) return 0;  // Metal has no CUDA context; mx.get_peak_memory counts MLX's buffers only
  if (e.sglang) return kCudaContextBytes + kCublasWorkspaceBytes + e.sglang->distributed_bytes;
  if (e.ollama) return e.ollama->overhead_bytes;
  if (o.engine != Engine::vllm) return kCudaContextBytes + kCublasWorkspaceBytes;
  const std::uint64_t non_torch = o.tensor_parallel > 1 ? kVllmNonTorchTpBytes : kVllmNonTorchBytes;
  return kCudaContextBytes + (spec.is_bare() ? 0 : non_torch + vllm_graph_bytes(o));
}

// PyTorch's caching allocator: segment rounding of long-lived tensors (weights; the static KV cache).
void add_allocator_reserve(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o) {
  // Only PyTorch rounds so: ggml sizes its buffers exactly; MLX's buffer cache holds freed buffers outside its active
  // (peak) memory.
  if (!engine_traits(o.engine).torch || spec.is_bare()) return;
  detail::TorchReserve reserve;
  if (o.weight_tensor_bytes) {
    e.weight_tensor_bytes = *o.weight_tensor_bytes;
  } else if (auto tensors = enumerate_tensors(spec); tensors && e.weight_detail.params) {
    for (const auto& t : tensors.value()) {
      const auto bytes = detail::mul_div_ceil(t.elements(), e.weight_detail.total, e.weight_detail.params);
      e.weight_tensor_bytes.push_back(bytes.value_or(0));
    }
  }
  for (const auto bytes : e.weight_tensor_bytes) reserve.add(bytes);
  if (const auto layers = spec.num_layers(); o.engine == Engine::transformers && spec.causal && layers)
    reserve.add(e.kv_cache / layers / 2, 2 * layers);  // one K and one V tensor per layer
  e.allocator_reserve = reserve.reserved() - std::min(reserve.reserved(), reserve.requested());
  w.reserve_requested = reserve.requested();
  w.reserve_reserved = reserve.reserved();
}

// Without expandable segments, freed activation blocks and a growing cache can stay reserved (transformers).
std::optional<std::uint64_t> fragmentation_bytes(const ModelSpec& spec, const InferenceOptions& o,
                                                 const InferenceEstimate& e) {
  if (spec.is_bare() || o.expandable_segments || o.engine != Engine::transformers) return std::nullopt;
  const bool dynamic = o.kv_allocation == KvAllocation::engine_default;
  return e.activations + (dynamic ? e.kv_cache : 0);
}

// How far the total may move, and what moves it.
// MLX holds an op's inputs until the command buffer that ran it completes (metal/eval.cpp), so the intermediates of
// up to 20–50 consecutive ops (max_ops_per_buffer by chip) overlap: at most the next layer's live set and old K and V
// beside this one's. No CUDA context or cuBLAS workspace.
MemoryRange mlx_range(const InferenceEstimate& e) {
  MemoryRange r;
  r.low = e.total;
  r.high = CheckedSum().add(e.total).add(e.mlx->layer_bytes).add(e.mlx->growth_bytes).result().value_or(~0ULL);
  r.drivers.push_back("MLX frees an op's inputs only when its command buffer completes: up to 20–50 ops' "
                      "intermediates overlap, at most a second layer's");
  return r;
}

MemoryRange memory_range(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  if (o.engine == Engine::mlx) return mlx_range(e);
  MemoryRange r;
  std::uint64_t low_delta = 0, high_delta = 0;  // low = total − low_delta, high = total + high_delta
  if (e.ollama) {  // Ollama's own estimate is what it reserves by; llama.cpp's buffers then differ from it
    r.low = r.high = e.total;
    r.drivers.push_back("Ollama's estimate decides the layers; the runner then allocates llama.cpp's own buffers, "
                        "which can be smaller (its KV cache and compute buffer) or larger");
    return r;
  }
  if (o.engine == Engine::vllm && !spec.is_bare()) {
    low_delta += vllm_graph_bytes(o) + (kVllmNonTorchBytes - kVllmNonTorchLowBytes);
    if (!o.enforce_eager)
      r.drivers.push_back((Text() << "CUDA graphs " << kVllmCudaGraphBytes / kMiB << " MiB (0 with --enforce-eager)").str());
    r.drivers.push_back("non-torch memory 40–256 MiB on one GPU in vLLM's logs (NCCL adds more with tensor parallel)");
  }
  if (e.llamacpp) {
    const auto this_way = e.llamacpp->compute_buffer_bytes, other_way = e.llamacpp->compute_buffer_other_bytes;
    if (e.llamacpp->flash_attn) high_delta += other_way > this_way ? other_way - this_way : 0;
    else low_delta += this_way > other_way ? this_way - other_way : 0;
    r.drivers.push_back("flash attention: -fa on skips the n_kv × n_ubatch × n_head f32 KQ matrix");
  }
  if (o.engine != Engine::vllm) {
    low_delta += kCublasWorkspaceBytes - kCublasWorkspaceLowBytes;
    r.drivers.push_back("cuBLAS workspace 4 MiB (before Hopper) to 32 MiB (Hopper and newer)");
  }
  if (const auto frag = fragmentation_bytes(spec, o, e)) {
    const bool dynamic = o.kv_allocation == KvAllocation::engine_default;
    high_delta += *frag;
    r.drivers.push_back((Text() << "allocator fragmentation: freed activation blocks"
                                << (dynamic ? " and DynamicCache's torch.cat growth" : "")
                                << " can stay reserved; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True removes it")
                            .str());
  }
  add_context_driver(r);
  r.low = e.total - std::min(e.total, low_delta);
  const auto high = CheckedSum().add(e.total).add(high_delta).add(kCudaContextHighBytes - kCudaContextBytes).result();
  r.high = high ? *high : ~0ULL;
  return r;
}

// ---- explanations and notes ----

// GraphSize's formula by the name ollama_graph_formula_name gives it.
Message ollama_graph_formula_message(std::string_view formula) {
  if (formula == "llama")
    return message("explain.activations.formula_ollama_llama",
                   "Ollama's graph (GraphSize, llama): full max(4·b·(1 + 4·emb + ctx·(1 + heads)), 4·b·(emb + vocab)); "
                   "partial 4·b·emb + max(4·b·(1 + emb + max(ctx, emb)) + emb²·9/16 + 4·ctx·(b·heads + head_dim·kv_heads), "
                   "4·b·(emb + vocab) + emb·vocab·105/128)");
  if (formula == "qwen2")
    return message("explain.activations.formula_ollama_qwen2",
                   "Ollama's graph (GraphSize, qwen2): full max(4·b·(emb + vocab), 4·b·(1 + 2·emb + ctx + ctx·heads)); "
                   "partial max(4·b·(emb + vocab) + emb·vocab·105/128, 4·(b·(1 + 2·emb + ctx·(1 + heads)) + emb·(1 + ctx)))");
  if (formula == "gemma" || formula == "gemma3n")
    return message("explain.activations.formula_ollama_gemma",
                   "Ollama's graph (GraphSize, gemma; × 4 for Gemma 3n): full max(4·b·(emb + vocab), 4·b·(2 + ctx + "
                   "ctx·heads + 2·emb + 2·head_dim·heads)); partial max(4·emb·b + emb·vocab·105/128 + 4·vocab·b, "
                   "4·b·(2·emb + 1 + 2·head_dim·heads + ctx + ctx·heads) + 4·head_dim·ctx·8 + emb·head_dim·heads·9/16)");
  if (formula == "gpt-oss")
    return message("explain.activations.formula_ollama_gpt_oss",
                   "Ollama's graph (GraphSize, gpt-oss): 2 × heads / kv_heads × KV at the full context / 6; with flash "
                   "attention (4·num_parallel + ctx / 1024 + 110) MiB; full = partial");
  return message("explain.activations.formula_ollama_other",
                 "Ollama's graph where GraphSize has no formula: heads / kv_heads × KV / 6");
}

// The source of a line a bare parameter count cannot size, and of a line the architecture leaves empty.
Message bare_source() { return message("explain.inference.source_bare", "give layers and hidden size, a preset or a config.json"); }
Message architecture_source() { return message("explain.inference.source_architecture", "architecture"); }

Explanation ollama_kv_explanation(const OllamaEstimate& m, const InferenceEstimate& e) {
  const std::vector<MessageArg> args = {
      arg::count("ctx", m.num_ctx), arg::count("parallel", m.num_parallel), arg::count("window", m.window_tokens),
      arg::count("window_layers", m.window_layers), arg::count("kv", m.kv_bytes),
      arg::text("dtype", kv_dtype_info(m.kv_type).name), arg::count("gpu", e.kv_cache)};
  return {"kv_cache",
          message("explain.kv_cache.formula_ollama", "layers × num_ctx × num_parallel × (key + value length) × "
                                                     "kv_heads × bytes (f16 2, q8_0 1, q4_0 0.5)"),
          m.window_layers ? message("explain.kv_cache.values_ollama_window",
                                    "{ctx} × {parallel} tokens ({window} in {window_layers} sliding-window layers): "
                                    "{kv} B ({dtype}), {gpu} B of it on the GPU", args)
                          : message("explain.kv_cache.values_ollama",
                                    "{ctx} × {parallel} tokens: {kv} B ({dtype}), {gpu} B of it on the GPU", args),
          message("explain.kv_cache.source_ollama", "Ollama fs/ggml/ggml.go GraphSize (the log's memory.required.kv)")};
}

// The KV cache's figures: batch × cached token·layers × bytes per token and layer, with how the tokens were rounded.
Message kv_values(const InferenceOptions& o, const InferenceEstimate& e) {
  const std::vector<MessageArg> args = {
      arg::count("batch", o.batch), arg::count("slots", e.kv.cached_token_slots),
      arg::count("context", o.context_tokens), arg::count("per_token", e.kv.bytes_per_token_layer),
      arg::count("kv", e.kv.bytes), arg::text("dtype", kv_dtype_info(e.kv_dtype).name),
      arg::count("tokens", e.kv_allocation.strategy == KvAllocation::paged
                               ? ceil_div(e.kv_allocation.avg_tokens, kVllmBlockSize) * kVllmBlockSize
                           : e.mlx ? e.mlx->cache_tokens
                                   : o.context_tokens)};
  if (e.kv_allocation.strategy == KvAllocation::paged)
    return message("explain.kv_cache.values_paged", "{batch} × {slots} token·layers (tokens ceil(avg / 16) × 16 = "
                                                    "{tokens}) × {per_token} B = {kv} B ({dtype})", args);
  if (e.mlx)
    return message("explain.kv_cache.values_mlx", "{batch} × {slots} token·layers (tokens ceil({context} / 256) × 256 = "
                                                  "{tokens}) × {per_token} B = {kv} B ({dtype})", args);
  return message("explain.kv_cache.values", "{batch} × {slots} token·layers (tokens {tokens}) × {per_token} B = "
                                            "{kv} B ({dtype})", args);
}

Explanation kv_cache_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  const Message zero = message("explain.kv_cache.values_none", "0 B");
  if (spec.is_bare())
    return {"kv_cache", message("explain.kv_cache.formula_bare", "unknown without the architecture"), zero, bare_source()};
  if (!spec.causal)
    return {"kv_cache", message("explain.kv_cache.formula_encoder", "none: an encoder keeps no KV cache"), zero,
            architecture_source()};
  if (e.ollama) return ollama_kv_explanation(*e.ollama, e);
  const bool latent = spec.has_latent() && e.kv.mla == MlaCache::latent;
  const Message formula =
      latent ? message("explain.kv_cache.formula_mla_latent",
                       "batch × Σ_layers min(tokens, window_layer) × (kv_lora_rank + qk_rope_head_dim) × bytes")
      : spec.has_latent() ? message("explain.kv_cache.formula_mla_heads", "batch × Σ_layers min(tokens, window_layer) × "
                                                                          "heads × (qk_nope + qk_rope + v_head_dim) × bytes")
                          : message("explain.kv_cache.formula",
                                    "batch × Σ_layers min(tokens, window_layer) × 2 × kv_heads × head_dim × bytes");
  return {"kv_cache", formula, kv_values(o, e),
          latent ? message("explain.kv_cache.source_mla", "DeepSeek-V2 §2.1.2 (latent cache)")
                 : message("explain.kv_cache.source", "vLLM paper §3 (Kwon et al. 2023)")};
}

// Where each engine keeps the per-sequence state and in what width.
Message state_cache_source(Engine engine) {
  switch (engine) {
    case Engine::llamacpp:
      return message("explain.state_cache.source_llamacpp",
                     "llama.cpp llama_memory_recurrent: f32 conv (r) and recurrent (s) state for n_seq_max sequence "
                     "slots (-np), allocated up front");
    case Engine::vllm:
      return message("explain.state_cache.source_vllm",
                     "vLLM MambaStateShapeCalculator and MambaStateDtypeCalculator: conv state in the model dtype, "
                     "recurrent state in mamba_ssm_dtype; one state per running sequence");
    case Engine::ollama:
      return message("explain.state_cache.source_ollama",
                     "Ollama's estimator (llm/memory.go) counts no per-sequence state");
    case Engine::sglang:
      return message("explain.state_cache.source_sglang",
                     "SGLang MambaPool: conv and temporal (ssm) state per request slot, sized apart from the KV pool");
    case Engine::mlx:
      return message("explain.state_cache.source_mlx",
                     "mlx-lm ArraysCache: conv and recurrent state per sequence, in the model dtype");
    case Engine::transformers: break;
  }
  return message("explain.state_cache.source_transformers",
                 "transformers Qwen3NextDynamicCache, HybridMambaAttentionDynamicCache: conv_states and "
                 "recurrent_states per layer for the batch, in the model dtype");
}

Explanation state_cache_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                    const KvLayout& layout) {
  if (!e.kv.state_layers)
    return {"state_cache",
            message("explain.state_cache.formula_none",
                    "none: no linear-attention or Mamba layers keep a state per sequence"),
            message("explain.state_cache.values_none", "0 B"), spec.is_bare() ? bare_source() : architecture_source()};
  const auto conv = e.kv.conv_state_bytes_per_sequence;
  const std::vector<MessageArg> args = {
      arg::count("batch", o.batch), arg::count("conv", conv),
      arg::count("recurrent", e.kv.state_bytes_per_sequence - conv), arg::count("layers", e.kv.state_layers),
      arg::count("state", e.kv.state_bytes), arg::digits("conv_element", layout.conv_state_element_bytes),
      arg::digits("recurrent_element", layout.recurrent_state_element_bytes), arg::count("gpu", e.state_cache)};
  return {"state_cache",
          message("explain.state_cache.formula",
                  "sequences × Σ_state layers ((conv_kernel − 1) × conv channels × conv bytes + recurrent elements × "
                  "state bytes); linear attention: recurrent = value_heads × key_dim × value_dim, Mamba2: heads × "
                  "head_dim × state"),
          e.state_cache != e.kv.state_bytes
              ? message("explain.state_cache.values_offload",
                        "{batch} sequences × ({conv} B conv + {recurrent} B recurrent, {layers} layers) = {state} B "
                        "(conv {conv_element} B, recurrent {recurrent_element} B per element); {gpu} B of it on the GPU",
                        args)
              : message("explain.state_cache.values",
                        "{batch} sequences × ({conv} B conv + {recurrent} B recurrent, {layers} layers) = {state} B "
                        "(conv {conv_element} B, recurrent {recurrent_element} B per element)",
                        args),
          state_cache_source(o.engine)};
}

Explanation transformers_activations_explanation(const InferenceOptions& o, const InferenceEstimate& e,
                                                 const Workings& w) {
  const bool eager = o.attention == Attention::eager;
  const std::vector<MessageArg> args = {
      arg::count("batch", o.batch), arg::count("context", o.context_tokens), arg::count("width", w.peak_width),
      arg::count("element", w.compute_bytes), arg::count("scores", e.attention_scores), arg::count("logits", e.logits),
      arg::count("activations", e.activations)};
  return {"activations",
          eager ? message("explain.activations.formula_transformers_eager",
                          "b × s × max(attention, MLP live width) × bytes + b × heads × s² × (2·bytes + 4) + b × s² × "
                          "bytes (eager scores, fp32 softmax, cast back, mask) + b × vocab × 4 (last-token fp32 logits)")
                : message("explain.activations.formula_transformers",
                          "b × s × max(attention, MLP live width) × bytes + b × vocab × 4 (last-token fp32 logits)"),
          w.scores_in_peak ? message("explain.activations.values_transformers_scores",
                                     "{batch} × {context} × {width} × {element} B + {scores} B of scores + {logits} B "
                                     "= {activations} B", args)
                           : message("explain.activations.values_transformers",
                                     "{batch} × {context} × {width} × {element} B + {logits} B = {activations} B", args),
          eager ? message("explain.activations.source_transformers_eager",
                          "transformers eager_attention_forward: softmax(dtype=float32).to(dtype)")
                : message("explain.activations.source_transformers",
                          "largest layer of one prefill pass; SDPA/flash keeps no s² score matrix")};
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

Explanation mlx_activations_explanation(const MlxMemory& m, const InferenceEstimate& e) {
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

Explanation vllm_activations_explanation(const ModelSpec& spec, const VllmCapacity& v, const InferenceEstimate& e,
                                         const Workings& w) {
  return {"activations",
          message("explain.activations.formula_vllm",
                  "max(forward: max_num_batched_tokens × max live width × bytes, sampler: min(max_num_seqs, "
                  "max_num_batched_tokens) × vocab × (bytes + 36) + max_num_batched_tokens × hidden × bytes)"),
          message("explain.activations.values_vllm",
                  "max({tokens} × {width} × {element} B = {forward} B, {rows} × {vocab} × {logit} B + {tokens} × "
                  "{hidden} × {element} B = {sampler} B) = {activations} B",
                  {arg::count("tokens", v.max_num_batched_tokens), arg::count("width", w.peak_width),
                   arg::count("element", w.compute_bytes), arg::count("forward", v.forward_bytes),
                   arg::count("rows", std::min(v.max_num_batched_tokens, v.max_num_seqs)),
                   arg::count("vocab", spec.vocab_size),
                   arg::count("logit", w.compute_bytes + kVllmSamplerBytesPerLogit),
                   arg::count("hidden", spec.hidden_size), arg::count("sampler", v.sampler_bytes),
                   arg::count("activations", e.activations)}),
          message("explain.activations.source_vllm",
                  "vLLM 0.11 profile run (gpu_worker.determine_available_memory): _dummy_run, then _dummy_sampler_run "
                  "(logits, their fp32 copy, top-k/top-p sort values, indices and radix-sort buffers); defaults from "
                  "EngineArgs for vllm serve")};
}

Explanation sglang_activations_explanation(const SglangCapacity& s, const InferenceEstimate& e, const Workings& w) {
  return {"activations",
          message("explain.activations.formula_sglang", "chunked_prefill_size × max live width × bytes / tensor parallel"),
          message("explain.activations.values_sglang", "{chunk} × {width} × {element} B / {tp} = {activations} B",
                  {arg::count("chunk", s.chunked_prefill_size), arg::count("width", w.peak_width),
                   arg::count("element", w.compute_bytes), arg::count("tp", s.tensor_parallel),
                   arg::count("activations", e.activations)}),
          message("explain.activations.source_sglang",
                  "SGLang prefills in chunks of chunked_prefill_size tokens (ServerArgs default by GPU memory); these "
                  "and the CUDA graphs live in the 1 − mem_fraction_static that SGLang keeps out of its pool")};
}

Explanation ollama_activations_explanation(const OllamaEstimate& m, const InferenceEstimate& e) {
  return {"activations", ollama_graph_formula_message(m.graph_formula),
          message("explain.activations.values_ollama",
                  "b = min(num_ctx, 512) = {b}, ctx = {ctx}: full {full} B, partial {partial} B; counted {counted} B",
                  {arg::count("b", std::min(m.num_ctx, kOllamaNumBatch)), arg::count("ctx", m.num_ctx * m.num_parallel),
                   arg::count("full", m.graph_full_bytes), arg::count("partial", m.graph_partial_bytes),
                   arg::count("counted", e.activations)}),
          message("explain.activations.source_ollama",
                  "Ollama fs/ggml/ggml.go GraphSize and llm/memory.go estimateGPULayers (v0.11.10); the log's "
                  "memory.graph.full and memory.graph.partial")};
}

Explanation llamacpp_activations_explanation(const LlamaCppBuffers& b, const Workings& w) {
  return {"activations",
          b.flash_attn ? message("explain.activations.formula_llamacpp_flash",
                                 "n_ubatch × max(n_kv × 2 + 16 × n_embd, (n_vocab + n_embd) × 4, (2·n_embd + 3·n_ff) × 4)")
                       : message("explain.activations.formula_llamacpp",
                                 "n_ubatch × max(n_kv × n_head × 4 + n_kv × 4 + 16 × n_embd, (n_vocab + n_embd) × 4, "
                                 "(2·n_embd + 3·n_ff) × 4)"),
          message("explain.activations.values_llamacpp", "{ubatch} ubatch tokens, n_kv {n_kv} → {buffer} B",
                  {arg::count("ubatch", b.n_ubatch), arg::count("n_kv", w.llama_n_kv),
                   arg::count("buffer", b.compute_buffer_bytes)}),
          message("explain.activations.source_llamacpp",
                  "llama.cpp compute buffer (ggml graph reserve, f32); pinned to Llama-3-8B logs: 258.50 MiB at n_ctx "
                  "512, 560.00 MiB at 8192 with -fa off")};
}

Explanation activations_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                    const Workings& w) {
  if (spec.is_bare())  // no layer shapes: the article's weights-only rule, with nothing else to size
    return {"activations",
            message("explain.activations.formula_bare", "needs the model's layer shapes (hidden size, heads, vocabulary)"),
            message("explain.activations.values_bare", "0 B: a bare parameter count has none"),
            message("explain.activations.source_bare",
                    "\"GPU-Speicher\": a bare count sizes the weights (7B: FP16 14 GB, INT8 7 GB, INT4 3.5 GB)")};
  if (o.engine == Engine::transformers) return transformers_activations_explanation(o, e, w);
  if (o.engine == Engine::vllm) return vllm_activations_explanation(spec, *e.vllm, e, w);
  if (e.mlx) return mlx_activations_explanation(*e.mlx, e);
  if (e.sglang) return sglang_activations_explanation(*e.sglang, e, w);
  if (e.ollama) return ollama_activations_explanation(*e.ollama, e);
  return llamacpp_activations_explanation(*e.llamacpp, w);
}

Explanation allocator_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                  const Workings& w) {
  // llama.cpp sizes its ggml buffers exactly and allocates them once: no caching allocator rounds them. A bare
  // count has no tensors whose rounding could be counted.
  const Message pytorch = message("explain.allocator_reserve.source_pytorch",
                                  "PyTorch CUDACachingAllocator.cpp (kRoundLarge, kLargeBuffer, kSmallBuffer)");
  if (ggml_engine(o.engine))
    return {"allocator_reserve",
            message("explain.allocator_reserve.formula_ggml", "0: ggml allocates each backend buffer once, at its exact size"),
            message("explain.allocator_reserve.values_none", "0 B"),
            message("explain.allocator_reserve.source_ggml",
                    "ggml-backend ggml_backend_alloc_ctx_tensors (one buffer per backend)")};
  if (o.engine == Engine::mlx)
    return {"allocator_reserve",
            message("explain.allocator_reserve.formula_mlx",
                    "0: MLX keeps freed buffers in its buffer cache, outside its active memory"),
            message("explain.allocator_reserve.values_none", "0 B"),
            message("explain.allocator_reserve.source_mlx",
                    "mlx metal allocator (get_peak_memory counts active memory; get_cache_memory the rest)")};
  if (spec.is_bare())
    return {"allocator_reserve",
            message("explain.allocator_reserve.formula_bare", "Σ segment rounding of the weight and cache tensors"),
            message("explain.allocator_reserve.values_bare", "0 B: a bare parameter count has no tensors to round"),
            pytorch};
  const auto frag = fragmentation_bytes(spec, o, e);
  const std::vector<MessageArg> args = {arg::count("requested", w.reserve_requested),
                                        arg::count("reserved", w.reserve_reserved), arg::count("frag", frag.value_or(0))};
  return {"allocator_reserve",
          message("explain.allocator_reserve.formula",
                  "Σ segment rounding: ≥ 10 MiB → 2 MiB multiples; 1–10 MiB → 20 MiB segments; ≤ 1 MiB → 2 MiB segments"),
          frag ? message("explain.allocator_reserve.values",
                         "{requested} B requested → {reserved} B reserved; fragmentation up to {frag} B", args)
               : message("explain.allocator_reserve.values_expandable",
                         "{requested} B requested → {reserved} B reserved; fragmentation up to 0 B (expandable "
                         "segments grow in place)", args),
          message("explain.allocator_reserve.source",
                  "PyTorch CUDACachingAllocator.cpp (kRoundLarge, kLargeBuffer, kSmallBuffer); CUDA semantics docs")};
}

Explanation overhead_explanation(const InferenceOptions& o, const InferenceEstimate& e) {
  if (o.engine == Engine::mlx)
    return {"overhead",
            message("explain.overhead.formula_mlx",
                    "0: Metal has no CUDA context, and mx.get_peak_memory counts only MLX's own buffers"),
            message("explain.overhead.values_mlx", "0 B"),
            message("explain.overhead.source_mlx", "mlx-lm generate.py (Peak memory = mx.get_peak_memory() / 1e9)")};
  if (e.ollama)
    return {"overhead",
            message("explain.overhead.formula_ollama", "the GPU's minimum memory + one spare layer (blk.0 weights and KV)"),
            message("explain.overhead.values_ollama", "{minimum} B + {layer} B = {overhead} B",
                    {arg::count("minimum", e.ollama->minimum_bytes),
                     arg::count("layer", e.overhead - std::min(e.overhead, e.ollama->minimum_bytes)),
                     arg::count("overhead", e.overhead)}),
            message("explain.overhead.source_ollama",
                    "Ollama discover/gpu.go (457 MiB CUDA and ROCm, 512 MiB Metal), llm/memory.go")};
  const bool vllm = o.engine == Engine::vllm;
  return {"overhead",
          vllm ? message("explain.overhead.formula_vllm", "CUDA context + non-torch memory + CUDA graphs")
               : message("explain.overhead.formula_cuda", "CUDA context + cuBLAS workspace"),
          message("explain.overhead.values_inference", "{overhead} B", {arg::count("overhead", e.overhead)}),
          vllm ? message("explain.overhead.source_vllm", "CUDA ≥ 12.2 lazy loading ≈ 0.5 GiB; vLLM memory-profiling logs")
               : message("explain.overhead.source_cuda",
                         "CUDA ≥ 12.2 lazy loading ≈ 0.5 GiB; cublasSetWorkspace docs (32 MiB on Hopper)")};
}

// The formula, figures and source of every line of the breakdown, in its order.
std::vector<Explanation> inference_explanations(const ModelSpec& spec, const InferenceOptions& o,
                                                const InferenceEstimate& e, const Workings& w, const KvLayout& layout) {
  return {
      {"weights", message("explain.weights.formula_inference", "Σ tensors × their format's bytes"),
       message("explain.weights.values_inference", "{weights} B ({format})",
               {arg::count("weights", e.weights), arg::text("format", e.weights_format)}),
       e.weight_detail.explanation},
      kv_cache_explanation(spec, o, e),
      state_cache_explanation(spec, o, e, layout),
      activations_explanation(spec, o, e, w),
      overhead_explanation(o, e),
      allocator_explanation(spec, o, e, w),
      {"total",
       message("explain.total.formula_inference",
               "weights + KV cache + state per sequence + activations + overhead + allocator reserve"),
       message("explain.total.values_inference",
               "{weights} + {kv} + {state} + {activations} + {overhead} + {reserve} = {total} B",
               {arg::count("weights", e.weights), arg::count("kv", e.kv_cache), arg::count("state", e.state_cache),
                arg::count("activations", e.activations), arg::count("overhead", e.overhead),
                arg::count("reserve", e.allocator_reserve), arg::count("total", e.total)}),
       message("explain.total.source_inference", "sum of the lines above")},
  };
}

// What SGLang's pool figures assume, and what would stop SGLang from starting.
void add_sglang_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                      const InferenceEstimate& e) {
  const SglangCapacity& c = *e.sglang;
  if (!o.gpu_memory_bytes) {
    notes.push_back(message("sglang.choose_gpu",
                            "Choose a GPU to see SGLang's KV pool (max_total_num_tokens) and concurrency."));
    return;
  }
  if (o.gpu_total_nominal)
    notes.push_back(message("sglang.nominal_total",
                            "The catalog has no driver-reported total for this GPU: SGLang's free memory is taken "
                            "from its nominal memory, while the driver shows 1–3 % less, so the pool here is "
                            "somewhat high."));
  if (c.rule != SglangRule::by_tp && c.mem_fraction_default && spec.vision_params)
    notes.push_back(message("sglang.vision_fraction",
                            "SGLang lowers mem_fraction_static further for a multimodal model by its vision tower's "
                            "size (adjust_mem_fraction_for_vlm), which is not modelled: the pool here is high."));
  if (e.kv.windowed_layers && c.max_total_num_tokens)
    notes.push_back(message("sglang.hybrid_swa",
                            "SGLang's hybrid sliding-window pool (swa_full_tokens_ratio 0.8) is not modelled: every "
                            "layer is counted at full length per token, as with --disable-hybrid-swa-memory."));
  if (c.state_pool.slot_bytes && c.state_pool.max_mamba_cache_size)
    notes.push_back(message("sglang.state_pool",
                            "SGLang sets aside {slots} request slots of linear-attention state ({state_bytes}, "
                            "mamba_full_memory_ratio 0.9) before its KV pool, and runs at most {requests} requests "
                            "at once (3 slots each).",
                            {arg::count("slots", c.state_pool.max_mamba_cache_size),
                             arg::bytes("state_bytes", c.state_pool.allocated_bytes),
                             arg::count("requests", c.state_pool.max_running_requests)}));
  if (!c.max_total_num_tokens)
    notes.push_back(message("sglang.no_pool",
                            "SGLang would refuse to start (\"Not enough memory. Please try to increase "
                            "--mem-fraction-static.\"): the weights fill mem_fraction_static of the GPU."));
  else if (c.max_total_num_tokens < c.context_len)
    notes.push_back(message("sglang.pool_short",
                            "SGLang's pool holds {tokens} tokens, less than one {context}-token sequence: a prompt "
                            "that long is refused.",
                            {arg::count("tokens", c.max_total_num_tokens), arg::count("context", c.context_len)}));
}

// What MLX's figures leave out.
void add_mlx_notes(std::vector<Message>& notes, const InferenceOptions& o, const InferenceEstimate& e) {
  const MlxMemory& m = *e.mlx;
  notes.push_back(message("mlx.peak_memory",
                          "MLX's figure is what mlx_lm.generate prints as Peak memory (MLX's active buffers). Not "
                          "counted: MLX's buffer cache of freed buffers (Cache memory), LM Studio's or the server's own "
                          "process memory, and what macOS itself needs of the RAM. Its speed is estimated with "
                          "llama.cpp's measured share of a Mac's bandwidth: MLX has no figures of its own here."));
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

// What Ollama's estimate assumes, and where it puts the layers.
void add_ollama_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceEstimate& e) {
  const OllamaEstimate& c = *e.ollama;
  if (c.kv_type_ignored)
    notes.push_back(message("ollama.kv_type_ignored",
                            "Ollama quantizes the KV cache only with flash attention (OLLAMA_FLASH_ATTENTION=1): "
                            "without it OLLAMA_KV_CACHE_TYPE is ignored and the cache stays f16, as counted here."));
  if (c.graph_formula == ollama_graph_formula_name(OllamaGraphFormula::unmodelled))
    notes.push_back(message("ollama.graph_unmodelled",
                            "Ollama has its own graph estimate for {architecture}, not modelled here: the graph "
                            "uses its generic rule, heads / kv_heads × KV / 6.",
                            {arg::text("architecture", spec.architecture)}));
  if (c.window_layers)
    notes.push_back(message("ollama.kv_window",
                            "Ollama's estimator counts {window_tokens} tokens (num_parallel × a window of {window} + "
                            "the batch) in the KV cache of {window_layers} of the {layers} layers and num_ctx × "
                            "num_parallel in the others, as counted here.",
                            {arg::count("window_tokens", c.window_tokens),
                             arg::count("window", (c.window_tokens - std::min(c.num_ctx, kOllamaNumBatch)) /
                                                      std::max<std::uint64_t>(c.num_parallel, 1)),
                             arg::count("window_layers", c.window_layers), arg::count("layers", spec.num_layers())}));
  else if (e.kv.state_layers || e.kv.windowed_layers)
    notes.push_back(message("ollama.kv_full_ctx",
                            "Ollama's estimator sizes the KV cache of every layer for the full num_ctx, as counted "
                            "here, although llama.cpp then keeps less for sliding-window, linear-attention or Mamba "
                            "layers."));
  if (!c.planned) {
    notes.push_back(message("ollama.choose_gpu",
                            "Choose a GPU to see how many layers Ollama offloads and what stays in system RAM."));
    return;
  }
  notes.push_back(message("ollama.free_memory",
                          "Ollama sizes against the memory it finds free; here the GPU's whole memory as the driver "
                          "reports it, so what other programs use comes off the layers it can offload."));
  if (!c.gpu_usable)
    notes.push_back(message("ollama.cpu_only",
                            "Ollama would run this model on the CPU only: the GPU cannot hold its minimum, the graph "
                            "and two layers."));
  else if (c.layers_offload < c.layers_model)
    notes.push_back(message("ollama.partial_offload",
                            "Ollama offloads {gpu_layers}/{layers} layers to the GPU; {ram_bytes} (weights and KV of "
                            "the other layers, and the token embeddings) stay in system RAM.",
                            {arg::count("gpu_layers", c.layers_offload), arg::count("layers", c.layers_model),
                             arg::bytes("ram_bytes", c.system_ram_bytes)}));
}

// What the figures leave out or assume for this engine, format and model.
std::vector<Message> inference_notes(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  std::vector<Message> notes;
  if (vision_tower_apart(spec, o) && !o.exact_weights) notes.push_back(vision_tower_apart_note(spec));
  if (spec.has_latent() && o.engine == Engine::transformers)
    notes.push_back(message("inference.transformers_mla",
                            "transformers' DeepSeek attention caches decompressed per-head K and V, not the MLA "
                            "latent that vLLM, SGLang and llama.cpp cache."));
  if (e.vllm && !spec.causal)
    notes.push_back(message("vllm.no_kv_cache",
                            "vLLM keeps no KV cache for an encoder: it sets no memory aside for one and takes what the "
                            "weights, one batch's activations and its own overhead need; gpu_memory_utilization only "
                            "says how much must be free when it starts."));
  else if (e.vllm && !o.gpu_memory_bytes)
    notes.push_back(message("vllm.choose_gpu", "Choose a GPU to see vLLM's KV capacity and concurrency."));
  if (e.vllm && o.gpu_memory_bytes && o.gpu_total_nominal)
    notes.push_back(message("vllm.nominal_total",
                            "The catalog has no driver-reported total for this GPU: vLLM's gpu_memory_utilization "
                            "is taken of its nominal memory, while the driver shows 1–3 % less (an H100 80GB 79.18 "
                            "GiB), so the KV capacity here is slightly high."));
  if (e.vllm && has_one_entry_layers(spec) && e.vllm->kv_cache_groups)
    notes.push_back(message("vllm.dsv4_groups",
                            "vLLM keeps DeepSeek-V4's cache in {groups} groups (the sliding window, the compressed "
                            "entries with the indexer's keys, the compressors' state) drawing on one pool of blocks "
                            "of {block_bytes}. A request of max_model_len holds {blocks} blocks across them, most of "
                            "them for the window and the compressors' state whatever its length, so vLLM's \"GPU KV "
                            "cache size\" is the concurrency times max_model_len, not the pool over the bytes per "
                            "token.",
                            {arg::count("groups", e.vllm->kv_cache_groups),
                             arg::bytes("block_bytes", e.vllm->block_bytes),
                             arg::count("blocks", e.vllm->blocks_per_request)}));
  if (e.vllm && e.vllm->replicated_weights_bytes)
    notes.push_back(message("vllm.replicated_weights",
                            "vLLM holds {replicated_bytes} of DeepSeek-V4's weights whole on each of the {tp} "
                            "tensor-parallel GPUs (the attention's input projections, the indexer, the compressors, "
                            "the router, the norms), so each GPU carries more than 1/{tp} of the weights.",
                            {arg::gib("replicated_bytes", e.vllm->replicated_weights_bytes, 2),
                             arg::count("tp", e.vllm->tensor_parallel)}));
  if (e.vllm && e.vllm->model_runner_v2 && e.vllm->cuda_graph_bytes && o.gpu_memory_bytes && spec.causal)
    notes.push_back(message("vllm.graphs_outside_v2",
                            "vLLM {version} runs this model on its Model Runner V2, which sets nothing aside for the "
                            "CUDA graphs: they take about {graph_bytes} on top of gpu_memory_utilization, captured "
                            "after the KV cache, and can run out of memory on a nearly full GPU (vLLM issue 49224).",
                            {arg::text("version", e.vllm->engine_version),
                             arg::gib("graph_bytes", e.vllm->cuda_graph_bytes, 2)}));
  if (e.vllm && e.kv.state_layers && !has_one_entry_layers(spec) && e.vllm->rule == VllmRule::hybrid_prefix_caching)
    notes.push_back(message("vllm.state_pages_cached",
                            "vLLM {version} caches prefixes for hybrid models too (mamba_cache_mode align): each "
                            "running sequence holds two state pages per linear-attention or Mamba layer group, from "
                            "the same pool as the KV blocks, its attention block raised so that one page holds a "
                            "state.",
                            {arg::text("version", e.vllm->engine_version)}));
  else if (e.vllm && e.kv.state_layers && !has_one_entry_layers(spec))
    notes.push_back(message("vllm.state_pages",
                            "vLLM's hybrid KV cache manager gives each running sequence one state page per "
                            "linear-attention or Mamba layer group from the same pool as the KV blocks, its attention "
                            "block raised so that one page holds a state. With prefix caching (mamba_cache_mode align) "
                            "a sequence holds two state pages: fewer sequences than shown here."));
  if (e.vllm && e.vllm->mxfp4_padding_bytes)
    notes.push_back(message("vllm.mxfp4_padding",
                            "vLLM's {kernel} kernel for the MXFP4 experts pads their widths to its alignment: the "
                            "weights take {padding_bytes} more on the GPU than in the files.",
                            {arg::text("kernel", e.vllm->mxfp4_kernel),
                             arg::gib("padding_bytes", e.vllm->mxfp4_padding_bytes, 2)}));
  if (e.vllm && e.vllm->driver_total_bytes && e.vllm->max_concurrency == 0)
    notes.push_back(message("vllm.kv_short",
                            "vLLM would refuse to start: one request of max_model_len {context} needs {need_bytes} of "
                            "KV cache and it has {pool_bytes}; lower the context or raise gpu_memory_utilization.",
                            {arg::count("context", o.context_tokens), arg::gib("need_bytes", e.vllm->request_bytes, 2),
                             arg::gib("pool_bytes", e.vllm->kv_capacity_bytes, 2)}));
  if (e.sglang) add_sglang_notes(notes, spec, o, e);
  if (e.mlx) add_mlx_notes(notes, o, e);
  if (e.ollama) add_ollama_notes(notes, spec, e);
  if (e.llamacpp && e.llamacpp->gpu_layers < spec.num_layers())
    notes.push_back(message("llamacpp.partial_offload",
                            "Partial offload: {gpu_layers} of {layers} layers on the GPU; {ram_bytes} stay in system "
                            "RAM.",
                            {arg::count("gpu_layers", e.llamacpp->gpu_layers), arg::count("layers", spec.num_layers()),
                             arg::bytes("ram_bytes", e.llamacpp->host_ram_bytes)}));
  if (spec.is_bare())
    notes.push_back(message("model.bare",
                            "Only a parameter count is known: the KV cache and activations are not estimated."));
  for (const auto& note : spec.notes) notes.push_back(note);
  if (spec.max_context && o.context_tokens > spec.max_context)
    notes.push_back(message("model.context_over_max",
                            "Context {context} exceeds the model's max_position_embeddings ({max}).",
                            {arg::count("context", o.context_tokens), arg::count("max", spec.max_context)}));
  return notes;
}

// One GPU's share: weights, cache and the allocator's rounding divided among the ranks (KV heads as vLLM keeps
// them), the activation peak and the runtime overhead paid on each.
PerGpuMemory per_gpu_memory(const InferenceEstimate& e, const InferenceOptions& o) {
  PerGpuMemory g;
  g.gpus = o.tensor_parallel * o.pipeline_parallel;
  const bool split = g.gpus > 1 && (e.vllm || e.sglang);
  const std::uint64_t rank_weights = e.vllm ? e.vllm->weights_bytes : e.sglang ? e.sglang->weights_bytes : e.weights;
  const std::uint64_t rank_per_token = e.vllm ? e.vllm->kv_bytes_per_token : e.sglang ? e.sglang->cell_bytes : 0;
  g.weights = split ? rank_weights : e.weights;
  g.kv_cache = split && e.kv.bytes_per_token
                   ? detail::mul_div_ceil(e.kv_cache, rank_per_token, e.kv.bytes_per_token).value_or(e.kv_cache)
                   : e.kv_cache;
  g.state_cache = split ? ceil_div(e.state_cache, g.gpus) : e.state_cache;
  g.activations = e.activations;
  g.overhead = e.overhead;
  g.allocator_reserve = split ? ceil_div(e.allocator_reserve, g.gpus) : e.allocator_reserve;
  g.total = CheckedSum()
                .add(g.weights).add(g.kv_cache).add(g.state_cache).add(g.activations).add(g.overhead)
                .add(g.allocator_reserve)
                .value();
  return g;
}

// Each device's share of a layer split, and the busiest device as the per-GPU figure that decides the fit.
void add_device_split(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  const WeightBytes& wd = e.weight_detail;
  LayerBytes b;
  b.layers = spec.num_layers();
  const std::uint64_t layer_total = wd.attention + wd.mlp + wd.norms + wd.other;
  b.layer_weights = b.layers ? layer_total / b.layers : 0;
  // Per layer of all of them: with -ngl the cache on the GPUs is only the offloaded layers'.
  b.layer_kv = b.layers ? (e.llamacpp ? e.kv.bytes : e.kv_cache) / b.layers : 0;
  b.layer_state = b.layers ? (e.llamacpp ? e.kv.state_bytes : e.state_cache) / b.layers : 0;
  b.input = wd.total - layer_total - wd.output;
  b.output = wd.output;
  const auto n = static_cast<std::uint64_t>(o.device_split.size());
  if (o.engine == Engine::llamacpp) {
    e.devices = llamacpp_device_shares(b, o.device_split, e.llamacpp->compute_buffer_layers_bytes,
                                       e.llamacpp->compute_buffer_bytes, e.overhead,
                                       e.llamacpp->output_on_gpu ? kEveryLayer : e.llamacpp->gpu_layers);
  } else {
    e.devices = accelerate_device_shares(b, n, e.activations, e.logits, e.overhead);
    for (DeviceShare& d : e.devices) {
      d.allocator_reserve = ceil_div(e.allocator_reserve, n);
      total_share(d);
    }
  }
  const DeviceShare& busiest = e.devices[busiest_device(e.devices)];
  e.per_gpu = {n, busiest.weights, busiest.kv_cache, busiest.state_cache, busiest.activations, busiest.overhead,
               busiest.allocator_reserve, busiest.total};
}

// Activations and the engine's own buffers; nothing to size for a bare parameter count.
std::optional<Error> add_engine_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                       const InferenceOptions& o, const KvLayout& layout) {
  if (spec.is_bare()) return std::nullopt;
  switch (o.engine) {
    case Engine::transformers: return add_transformers_activations(e, w, spec, o);
    case Engine::vllm: return add_vllm_activations(e, w, spec, o, layout);
    case Engine::llamacpp: return add_llamacpp_buffers(e, w, spec, o, layout);
    case Engine::sglang: return add_sglang_memory(e, w, spec, o);
    case Engine::mlx: return add_mlx_memory(e, w, spec, o);
    case Engine::ollama: return add_ollama_memory(e, spec, o);
  }
  return std::nullopt;
}

}  // namespace

Result<InferenceEstimate> estimate_inference(const ModelSpec& spec, const InferenceOptions& o) {
  if (auto error = check_inference_options(o)) return *error;
  if (auto error = check_parallel(spec, o)) return *error;
  if (ollama_runs_llama_server(o)) return estimate_ollama_server(spec, o);
  auto params = count_params(spec);
  if (!params) return params.error();

  InferenceEstimate e;
  e.params = params.value();
  e.context_tokens = o.context_tokens;
  e.batch = o.batch;
  e.engine = o.engine;
  e.attention = o.attention;
  e.expandable_segments = o.expandable_segments;
  Workings w;
  const auto format = weight_format_of(spec, o);
  if (!format) return format.error();
  if (auto error = add_weights(e, w, spec, o, format.value())) return *error;
  const auto layout = add_kv_cache(e, spec, o);
  if (!layout) return layout.error();
  if (auto error = add_engine_memory(e, w, spec, o, layout.value())) return *error;
  e.overhead = overhead_bytes(spec, o, e);
  add_allocator_reserve(e, w, spec, o);

  CheckedSum total;
  total.add(e.weights).add(e.kv_cache).add(e.state_cache).add(e.activations).add(e.overhead).add(e.allocator_reserve);
  if (!total.result()) return make_error("context", message("error.inference.overflow_total",
                                                                   "the total overflows 64 bits; use smaller values"));
  e.total = total.value();
  e.per_gpu = per_gpu_memory(e, o);
  if (!o.device_split.empty() && !spec.is_bare()) add_device_split(e, spec, o);
  e.range = memory_range(spec, o, e);

  if (o.explain) e.explanations = inference_explanations(spec, o, e, w, layout.value());
  e.notes = inference_notes(spec, o, e);
  return e;
}

}  // namespace vramfit
