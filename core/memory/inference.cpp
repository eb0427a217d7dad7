#include "memory/inference.hpp"

#include <algorithm>  // std::max, std::min
#include <string>     // std::string
#include <vector>     // std::vector

#include "memory/engines/ollama_server.hpp"
#include "memory/inference_steps.hpp"
#include "util/byte_math.hpp"
#include "util/text.hpp"
#include "util/units.hpp"

namespace vramfit {
namespace {

using detail::CheckedSum;
using detail::product;
using detail::Text;
using detail::Workings;

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

namespace detail {

// Transient memory of one prefill forward pass in PyTorch: tensors are freed layer by layer, so the peak is
// the largest single layer's live set, per token: its mixer (LayerRun::live_width) or its MLP:
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
    const std::uint64_t attention_width = run.live_width(s.hidden_size);
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

// KV bytes per token on one rank: attention KV heads divided down to one head (replicated beyond), the MLA latent
// whole on every rank (one latent "head"), layers divided among the stages.
std::uint64_t kv_bytes_per_token_rank(const ModelSpec& spec, std::uint64_t per_token, const InferenceOptions& o) {
  std::uint64_t kv = 0;
  for (const LayerRun& run : spec.layers)
    kv = std::max(kv, run.kv_heads());
  const std::uint64_t tp = o.tensor_parallel;
  const std::uint64_t kept = kv ? std::max<std::uint64_t>(1, kv / tp) : 1;
  const std::uint64_t heads = kv && !spec.has_latent() ? kv : 1;
  const auto share = detail::mul_div_ceil(per_token, kept, heads * o.pipeline_parallel);
  return share ? *share : per_token;
}

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

KvAllocation kv_allocation_of(const InferenceOptions& o) {
  if (o.kv_allocation != KvAllocation::engine_default) return o.kv_allocation;
  return o.engine == Engine::vllm ? KvAllocation::paged : KvAllocation::static_max;
}

}  // namespace detail

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
    if (!run.keeps_tokens()) continue;
    const std::uint64_t heads = run.attention_heads();
    if (heads % tp)
      return make_error("tp", message("parallel.tp_heads", "must divide the attention heads ({heads}); {tp} does not",
                                      {arg::digits("heads", heads), arg::digits("tp", tp)}));
    const std::uint64_t kv = run.kv_heads();
    if (kv && kv % tp && tp % kv)
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

using detail::kv_allocation_of;
using detail::weight_format_of;

std::optional<Error> add_weights(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o,
                                 const WeightFormat& format) {
  if (o.exact_weights) {
    e.weight_detail = *o.exact_weights;
  } else {
    ModelSpec text_only;
    if (detail::llamacpp_vision_tower_apart(spec, o)) {
      text_only = spec;
      text_only.vision_params = 0;
    }
    auto weights = weights_bytes(detail::llamacpp_vision_tower_apart(spec, o) ? text_only : spec, format);
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

std::optional<Error> check_kv_choices(const InferenceEstimate& e, const InferenceOptions& o) {
  if (o.engine == Engine::mlx) return detail::check_mlx_kv_choices(e, o);
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
  if (o.engine == Engine::mlx) layout.window_extra = detail::mlx_chunk_tokens(o) - 1;  // RotatingKVCache: max_size + S − 1
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
  auto kv_static = estimate_kv_cache(cached, e.kv_dtype, o.engine == Engine::mlx ? detail::mlx_cache_tokens(o) : o.context_tokens,
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

// Each engine's own part of the estimate, in its file under memory/engines/.
struct EngineSteps {
  std::optional<Error> (*add_memory)(InferenceEstimate&, Workings&, const ModelSpec&, const InferenceOptions&,
                                     const KvLayout&);
  Explanation (*activations_explanation)(const ModelSpec&, const InferenceOptions&, const InferenceEstimate&,
                                         const Workings&);
  void (*add_notes)(std::vector<Message>&, const ModelSpec&, const InferenceOptions&, const InferenceEstimate&);
};

EngineSteps engine_steps(Engine engine) {
  using namespace detail;
  switch (engine) {
    case Engine::transformers:
      return {add_transformers_memory, transformers_activations_explanation, add_transformers_notes};
    case Engine::vllm: return {add_vllm_memory, vllm_activations_explanation, add_vllm_notes};
    case Engine::llamacpp: return {add_llamacpp_memory, llamacpp_activations_explanation, add_llamacpp_notes};
    case Engine::sglang: return {add_sglang_memory, sglang_activations_explanation, add_sglang_notes};
    case Engine::ollama: return {add_ollama_memory, ollama_activations_explanation, add_ollama_notes};
    case Engine::mlx: return {add_mlx_memory, mlx_activations_explanation, add_mlx_notes};
  }
  return {add_transformers_memory, transformers_activations_explanation, add_transformers_notes};
}

// Activations and the engine's own buffers; nothing to size for a bare parameter count.
std::optional<Error> add_engine_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                       const InferenceOptions& o, const KvLayout& layout) {
  if (spec.is_bare()) return std::nullopt;
  return engine_steps(o.engine).add_memory(e, w, spec, o, layout);
}

// CUDA context, plus vLLM's non-torch memory and CUDA graphs or the cuBLAS workspace.
std::uint64_t overhead_bytes(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  if (o.engine == Engine::mlx) return 0;  // Metal has no CUDA context; mx.get_peak_memory counts MLX's buffers only
  if (e.sglang) return kCudaContextBytes + kCublasWorkspaceBytes + e.sglang->distributed_bytes;
  if (e.ollama) return e.ollama->overhead_bytes;
  if (o.engine != Engine::vllm) return kCudaContextBytes + kCublasWorkspaceBytes;
  const std::uint64_t non_torch = o.tensor_parallel > 1 ? kVllmNonTorchTpBytes : kVllmNonTorchBytes;
  return kCudaContextBytes + (spec.is_bare() ? 0 : non_torch + detail::vllm_graph_bytes(o));
}

MemoryRange memory_range(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  if (o.engine == Engine::mlx) return detail::mlx_memory_range(e);
  MemoryRange r;
  std::uint64_t low_delta = 0, high_delta = 0;  // low = total − low_delta, high = total + high_delta
  if (e.ollama) {  // Ollama's own estimate is what it reserves by; llama.cpp's buffers then differ from it
    r.low = r.high = e.total;
    r.drivers.push_back("Ollama's estimate decides the layers; the runner then allocates llama.cpp's own buffers, "
                        "which can be smaller (its KV cache and compute buffer) or larger");
    return r;
  }
  if (o.engine == Engine::vllm && !spec.is_bare()) {
    low_delta += detail::vllm_graph_bytes(o) + (kVllmNonTorchBytes - kVllmNonTorchLowBytes);
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
  if (const auto frag = detail::torch_fragmentation_bytes(spec, o, e)) {
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

// The source of a line a bare parameter count cannot size, and of a line the architecture leaves empty.
Message bare_source() { return message("explain.inference.source_bare", "give layers and hidden size, a preset or a config.json"); }
Message architecture_source() { return message("explain.inference.source_architecture", "architecture"); }

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
  if (e.ollama) return detail::ollama_kv_explanation(*e.ollama, e);
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

Explanation activations_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                    const Workings& w) {
  if (spec.is_bare())  // no layer shapes: the article's weights-only rule, with nothing else to size
    return {"activations",
            message("explain.activations.formula_bare", "needs the model's layer shapes (hidden size, heads, vocabulary)"),
            message("explain.activations.values_bare", "0 B: a bare parameter count has none"),
            message("explain.activations.source_bare",
                    "\"GPU-Speicher\": a bare count sizes the weights (7B: FP16 14 GB, INT8 7 GB, INT4 3.5 GB)")};
  return engine_steps(o.engine).activations_explanation(spec, o, e, w);
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
  const auto frag = detail::torch_fragmentation_bytes(spec, o, e);
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

// The total: the sum of the lines this estimate has, in the breakdown's order.
Explanation total_explanation(const InferenceEstimate& e) {
  std::vector<SumTerm> terms{{message("explain.term.weights", "weights"), e.weights}};
  if (e.vision) terms.push_back({message("explain.term.vision_encoder", "vision encoder"), e.vision_encoder});
  terms.push_back({message("explain.term.kv_cache", "KV cache"), e.kv_cache});
  terms.push_back({message("explain.term.state_cache", "state per sequence"), e.state_cache});
  terms.push_back({message("explain.term.activations", "activations"), e.activations});
  terms.push_back({message("explain.term.overhead", "overhead"), e.overhead});
  terms.push_back({message("explain.term.allocator_reserve", "allocator reserve"), e.allocator_reserve});
  if (e.draft_detail) terms.push_back({message("explain.term.draft", "draft model"), e.draft});
  return {"total", sum_formula(terms), sum_values(terms, e.total, true),
          message("explain.total.source_inference", "sum of the lines above")};
}

// The formula, figures and source of every line of the breakdown, in its order.
std::vector<Explanation> inference_explanations(const ModelSpec& spec, const InferenceOptions& o,
                                                const InferenceEstimate& e, const Workings& w, const KvLayout& layout) {
  std::vector<Explanation> out = {
      {"weights", message("explain.weights.formula_inference", "Σ tensors × their format's bytes"),
       message("explain.weights.values_inference", "{weights} B ({format})",
               {arg::count("weights", e.weights), arg::text("format", e.weights_format)}),
       e.weight_detail.explanation},
      kv_cache_explanation(spec, o, e),
      state_cache_explanation(spec, o, e, layout),
      activations_explanation(spec, o, e, w),
      overhead_explanation(o, e),
      allocator_explanation(spec, o, e, w),
  };
  if (e.vision) out.insert(out.begin() + 1, vision_encoder_explanation(e, o));
  if (e.draft_detail) out.push_back(draft_explanation(*e.draft_detail, o.engine));
  out.push_back(total_explanation(e));
  return out;
}

// What the draft's figures assume: its tokens a step and acceptance rate when not given, and what each engine's
// line leaves to a setting of its own.
void add_draft_notes(std::vector<Message>& notes, const DraftMemory& d, const ModelSpec& spec,
                     std::uint64_t active, const InferenceOptions& o) {
  // Drafting pays only when a draft step costs far less than the model's own: one no smaller gains nothing.
  if (d.kind == DraftKind::model && d.params >= active)
    notes.push_back(message("draft.not_smaller",
                            "The draft ({draft_params} parameters) is not smaller than the model's {active} active "
                            "parameters: each draft token costs about a step of the model, so decoding gets slower.",
                            {arg::count("draft_params", d.params), arg::count("active", active)}));
  // Draft tokens are the model's tokens: a draft with another vocabulary proposes ids the model reads otherwise.
  // Sizes a little apart are one tokenizer with padded embeddings (Qwen2.5 0.5B 151,936, 7B 152,064): llama.cpp
  // allows 128 tokens apart, and so does this note.
  const std::uint64_t draft_vocab = o.draft ? o.draft->spec.vocab_size : 0;
  if (d.kind == DraftKind::model && draft_vocab && spec.vocab_size && o.engine != Engine::llamacpp &&
      (draft_vocab > spec.vocab_size + 128 || spec.vocab_size > draft_vocab + 128))
    notes.push_back(message("draft.vocab_differs",
                            "The draft's vocabulary ({draft_vocab} tokens) is not the model's ({vocab}): speculative "
                            "decoding needs a draft that shares the model's tokenizer.",
                            {arg::count("draft_vocab", draft_vocab), arg::count("vocab", spec.vocab_size)}));
  if (d.tokens_default)
    notes.push_back(d.tokens == 1
                        ? message("draft.token_default", "One draft token a step, the default of {engine}.",
                                  {arg::text("engine", engine_title(o.engine))})
                        : message("draft.tokens_default", "{tokens} draft tokens a step, the default of {engine}.",
                                  {arg::count("tokens", d.tokens), arg::text("engine", engine_title(o.engine))}));
  if (!d.acceptance_given)
    notes.push_back(message("draft.acceptance_range",
                            "The speed with the draft assumes each draft token is accepted with a chance from 0.6 to "
                            "0.8 (Leviathan et al. 2023 measured about 0.5 to 0.9 for drafts far smaller than their "
                            "models); give the acceptance rate your runs print for a figure of your own."));
  switch (o.engine) {
    case Engine::llamacpp:
      notes.push_back(d.contexts == 1
                          ? message("draft.llamacpp_context_one",
                                    "llama-server gives its one slot a draft context of the slot's length, with the "
                                    "draft on the GPU (-ngld); -cd sets a shorter one.")
                          : message("draft.llamacpp_context",
                                    "llama-server gives each of the {slots} slots a draft context of the slot's "
                                    "length, with the draft on the GPU (-ngld); -cd sets a shorter one.",
                                    {arg::count("slots", d.contexts)}));
      break;
    case Engine::sglang:
      if (o.sglang_rule != SglangRule::with_prefill_graphs)
        notes.push_back(message("draft.sglang_before",
                                "Before sglang PR #23862 the draft's weights, pool and CUDA graphs come out of the "
                                "memory mem_fraction_static leaves, and its default keeps room for them: the draft's "
                                "line is counted, the model's pool is not lowered for it."));
      break;
    case Engine::transformers:
      notes.push_back(message("draft.transformers_activations",
                              "The assistant's activations are not added: it runs between the model's forward "
                              "passes, with a smaller peak."));
      break;
    default: break;
  }
}

// What the figures leave out or assume for this engine, format and model.
std::vector<Message> inference_notes(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e) {
  std::vector<Message> notes;
  engine_steps(o.engine).add_notes(notes, spec, o, e);
  add_vision_notes(notes, spec, e, o);
  if (const auto& d = e.draft_detail) add_draft_notes(notes, *d, spec, e.params.active, o);
  if (spec.is_bare())
    notes.push_back(message("model.bare",
                            "Only a parameter count is known: the KV cache and activations are not estimated."));
  // With MTP speculative decoding the engine loads the checkpoint's MTP layers, and the draft's line counts them.
  const bool mtp_draft = e.draft_detail && e.draft_detail->kind == DraftKind::mtp;
  for (const auto& note : spec.notes)
    if (!mtp_draft || (note.id != "import.mtp_in_files" && note.id != "import.mtp_layers")) notes.push_back(note);
  if (mtp_draft && spec.mtp.layers)
    notes.push_back(message("import.mtp_loaded",
                            "The checkpoint's {n} multi-token-prediction layer(s) are loaded for MTP speculative "
                            "decoding: counted in the draft's line.",
                            {arg::digits("n", spec.mtp.layers)}));
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
  // The vision encoder counts on each GPU with the weights (vLLM and SGLang shard it as the rank's weights did) and
  // its compute peak with the activations.
  const std::uint64_t vision_weights = e.vision ? e.vision->weights_bytes : 0;
  g.weights = split ? rank_weights : e.weights + vision_weights;
  g.kv_cache = split && e.kv.bytes_per_token
                   ? detail::mul_div_ceil(e.kv_cache, rank_per_token, e.kv.bytes_per_token).value_or(e.kv_cache)
                   : e.kv_cache;
  g.state_cache = split ? ceil_div(e.state_cache, g.gpus) : e.state_cache;
  g.activations = e.activations + (e.vision ? e.vision->compute_bytes : 0);
  g.overhead = e.overhead;
  g.allocator_reserve = split ? ceil_div(e.allocator_reserve, g.gpus) : e.allocator_reserve;
  // vLLM and SGLang run the draft with the target's tensor parallel size: each rank holds its share.
  g.draft = split ? ceil_div(e.draft, o.tensor_parallel) : e.draft;
  g.total = CheckedSum()
                .add(g.weights).add(g.kv_cache).add(g.state_cache).add(g.activations).add(g.overhead)
                .add(g.allocator_reserve).add(g.draft)
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
  // The draft's devices are not split with the model's layers: counted whole on the busiest one.
  e.per_gpu = {n, busiest.weights, busiest.kv_cache, busiest.state_cache, busiest.activations, busiest.overhead,
               busiest.allocator_reserve, e.draft, busiest.total + e.draft};
}

}  // namespace

Result<InferenceEstimate> estimate_inference(const ModelSpec& spec, const InferenceOptions& o) {
  if (auto error = check_inference_options(o)) return *error;
  if (auto error = check_parallel(spec, o)) return *error;
  if (ollama_runs_llama_server(o)) {
    auto served = estimate_ollama_server(spec, o);
    if (served) detail::add_in_use(served.value(), spec, o);
    return served;
  }
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
  // The draft before the engine's lines: vLLM's and SGLang's pools share their memory with it.
  if (o.draft) {
    auto draft = estimate_draft(spec, e, o);
    if (!draft) return draft.error();
    e.draft_detail = std::move(draft).value();
    e.draft = e.draft_detail->total;
  }
  if (auto error = add_engine_memory(e, w, spec, o, layout.value())) return *error;
  e.overhead = overhead_bytes(spec, o, e);
  detail::add_torch_allocator_reserve(e, w, spec, o);
  add_vision_encoder(e, spec, o);

  CheckedSum total;
  total.add(e.weights).add(e.vision_encoder).add(e.kv_cache).add(e.state_cache).add(e.activations).add(e.overhead).add(e.allocator_reserve);
  total.add(e.draft);
  if (!total.result()) return make_error("context", message("error.inference.overflow_total",
                                                                   "the total overflows 64 bits; use smaller values"));
  e.total = total.value();
  e.per_gpu = per_gpu_memory(e, o);
  if (!o.device_split.empty() && !spec.is_bare()) add_device_split(e, spec, o);
  e.range = memory_range(spec, o, e);

  if (o.explain) e.explanations = inference_explanations(spec, o, e, w, layout.value());
  e.notes = inference_notes(spec, o, e);
  detail::add_in_use(e, spec, o);
  return e;
}

}  // namespace vramfit
