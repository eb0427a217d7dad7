#include "hardware/serving.hpp"

#include <algorithm>  // std::max_element
#include <cmath>      // std::isfinite
#include <string>     // std::string

#include "formats/ggml_types.hpp"
#include "memory/kv_cache.hpp"
#include "formats/weight_formats.hpp"

namespace vramfit {

namespace {

bool has_figure(const std::optional<double>& x) noexcept { return x && std::isfinite(*x) && *x > 0; }

// llama.cpp stores most bytes of a quantized GGUF in block types (Q4_K, Q6_K, IQ2_XXS, ...); its MMQ
// kernels multiply them with int8 dot products. A file read from disk has the same storage tallies.
bool mostly_ggml_quantized(const WeightBytes& weights) noexcept {
  const auto largest = std::max_element(weights.storage.begin(), weights.storage.end(),
                                        [](const StorageTally& a, const StorageTally& b) { return a.bytes < b.bytes; });
  if (largest == weights.storage.end()) return false;
  const GgmlTypeInfo* type = ggml_type_by_name(largest->type);
  return type && type->quantized;
}

bool fp8_weights(const InferenceEstimate& e) {
  const auto format = parse_weight_format(e.weights_format);
  if (!format) return false;
  const WeightScheme s = format.value().scheme;  // per tensor, channel, 128 × 128 or 32-wide MX block: E4M3 all
  return (s == WeightScheme::mixed && format.value().dtype == DType::fp8) || s == WeightScheme::fp8_channel ||
         s == WeightScheme::fp8_block || s == WeightScheme::fp8_block_e8m0 || s == WeightScheme::mxfp8;
}

// NVFP4 checkpoints quantize activations to FP4 too (ModelOpt's and compressed-tensors' W4A4 input_scale), so
// their products run FP4 × FP4; MXFP4 checkpoints (gpt-oss) keep 16-bit activations.
bool nvfp4_weights(const InferenceEstimate& e) {
  const auto format = parse_weight_format(e.weights_format);
  return format && format.value().scheme == WeightScheme::nvfp4;
}
bool mxfp4_weights(const InferenceEstimate& e) {
  const auto format = parse_weight_format(e.weights_format);
  return format && format.value().scheme == WeightScheme::mxfp4;
}

// The compute capability `e`'s weight format multiplies in natively (native_compute_capability), 0 for any GPU.
std::uint32_t native_capability(const InferenceEstimate& e) {
  const auto format = parse_weight_format(e.weights_format);
  return format ? native_compute_capability(format.value()) : 0;
}

// Whether an NVIDIA `gpu` lacks the tensor cores `e`'s format computes in (FP8 before Ada, FP4 and MX before
// Blackwell): then engines dequantize the weights to 16 bits for each product (vLLM's Marlin kernels).
bool weight_only_on(const InferenceEstimate& e, const Gpu& gpu) {
  const std::uint32_t cc = compute_capability(gpu);
  return cc != 0 && cc < native_capability(e);
}

// What the format computes in on `gpu`, for the prefill explanation; empty when nothing needs saying.
Message compute_note(const InferenceEstimate& e, const Gpu& gpu) {
  const std::uint32_t native = native_capability(e), cc = compute_capability(gpu);
  if (native == 0 || cc == 0) return Message();
  const MessageArg format = arg::text("format", e.weights_format), name = arg::text("gpu", gpu.name);
  if (cc < native)
    return message("speed.how.weight_only",
                   "{format} computes natively from sm_{native}; {gpu} (sm_{cc}) runs it weight-only, the weights "
                   "dequantized to 16 bits for each product, so prefill runs at the 16-bit rate while decode still "
                   "reads the {format} bytes.",
                   {format, arg::digits("native", native), name, arg::digits("cc", cc)});
  if (mxfp4_weights(e))
    return message("speed.how.mxfp4_16bit",
                   "MXFP4 checkpoints keep 16-bit activations, so their products do not run at the FP4 rate (vLLM's "
                   "MXFP4 MoE kernels take 16-bit or MXFP8 activations): prefill is counted at the 16-bit rate, a "
                   "lower bound.");
  if (nvfp4_weights(e) && !has_figure(gpu.tflops_fp4))
    return message("speed.how.fp4_no_figure",
                   "{format} multiplies natively on {gpu}'s FP4 tensor cores (sm_{native}+); the catalog has no FP4 "
                   "throughput for it, so prefill is counted at the 16-bit rate, a lower bound.",
                   {format, name, arg::digits("native", native)});
  return Message();
}

// $/1M tokens at both ends of a speed range: low at the fast end, high at the slow end.
std::optional<Range> per_million(double usd_per_hour, const Range& tokens_per_second) {
  auto at_fast = usd_per_million_tokens(usd_per_hour, tokens_per_second.high);
  auto at_slow = usd_per_million_tokens(usd_per_hour, tokens_per_second.low);
  if (!at_fast || !at_slow) return std::nullopt;
  return Range{at_fast.value(), at_slow.value()};
}

}  // namespace

Result<bool> validate_serving_inputs(const ServingInputs& in) {
  if (in.system_bandwidth_gb_s &&
      !(std::isfinite(*in.system_bandwidth_gb_s) && *in.system_bandwidth_gb_s > 0 && *in.system_bandwidth_gb_s <= 10'000))
    return make_error("system_bandwidth", message("serving.bandwidth", "must be a positive number of GB/s up to 10000"));
  if (in.prompt_tokens && (*in.prompt_tokens == 0 || *in.prompt_tokens > kMaxContextTokens))
    return make_error("prompt_tokens", message("serving.prompt_tokens", "must be between 1 and {max} tokens",
                                               {arg::digits("max", kMaxContextTokens)}));
  if (in.usd_per_kwh && !(std::isfinite(*in.usd_per_kwh) && *in.usd_per_kwh >= 0 && *in.usd_per_kwh <= 100))
    return make_error("usd_per_kwh", message("serving.usd_per_kwh", "must be a price per kWh between 0 and 100 dollars"));
  return true;
}

std::string_view compute_path_name(ComputePath path) noexcept {
  switch (path) {
    case ComputePath::fp16: return "fp16";
    case ComputePath::int8: return "int8";
    case ComputePath::fp8: return "fp8";
    case ComputePath::fp4: return "fp4";
  }
  return "fp16";
}

namespace {

// Which tensor units the matrix products of `e` run on, on `gpu`: llama.cpp's quantized GGUF matrices use
// the int8 MMQ kernels, fp8 checkpoints the fp8 units, the rest 16-bit. A GPU without a throughput figure
// for that path falls back to the 16-bit one (Ampere runs fp8 weights through 16-bit Marlin kernels); with
// gpu == nullptr the weight format alone decides.
ComputePath compute_path_for(const InferenceEstimate& e, const Gpu* gpu = nullptr) noexcept {
  ComputePath path = ComputePath::fp16;
  if (ggml_engine(e.engine) && mostly_ggml_quantized(e.weight_detail)) path = ComputePath::int8;
  else if (fp8_weights(e)) path = ComputePath::fp8;
  else if (nvfp4_weights(e)) path = ComputePath::fp4;
  if (gpu && path == ComputePath::int8 && !has_figure(gpu->tops_int8)) path = ComputePath::fp16;
  if (gpu && path == ComputePath::fp8 && (!has_figure(gpu->tflops_fp8) || weight_only_on(e, *gpu)))
    path = ComputePath::fp16;
  if (gpu && path == ComputePath::fp4 && (!has_figure(gpu->tflops_fp4) || weight_only_on(e, *gpu)))
    path = ComputePath::fp16;
  return path;
}

// The tokens one prefill forward pass takes: llama.cpp's n_ubatch (Ollama runs its runner with num_batch 512 as the
// ubatch), vLLM's max_num_batched_tokens (chunked prefill, on by default in V1), SGLang's chunked_prefill_size, MLX's
// prefill_step_size; transformers' generate runs the whole prompt in one pass (0).
std::uint64_t prefill_chunk_of(const InferenceEstimate& e) noexcept {
  if (e.llamacpp && e.llamacpp->n_ubatch) return e.llamacpp->n_ubatch;
  switch (e.engine) {
    case Engine::llamacpp: return kLlamaNUbatch;
    case Engine::ollama: return kOllamaNumBatch;
    case Engine::vllm: return e.vllm && e.vllm->max_num_batched_tokens ? e.vllm->max_num_batched_tokens : 0;
    case Engine::sglang: return e.sglang && e.sglang->chunked_prefill_size ? e.sglang->chunked_prefill_size : 0;
    case Engine::mlx: return e.mlx && e.mlx->chunk_tokens ? e.mlx->chunk_tokens : kMlxPrefillStep;
    case Engine::transformers: return 0;
  }
  return 0;
}

}  // namespace

Result<SpeedOptions> speed_options_for(const ModelSpec& spec, const InferenceEstimate& e, const ServingInputs& in) {
  if (auto ok = validate_serving_inputs(in); !ok) return ok.error();
  SpeedOptions o;
  o.engine = e.engine;
  o.compute = compute_path_for(e);
  o.batch = e.batch;
  // Decode reads each sequence's cache at its current length: the average length when given, else the
  // full context (the step at the end of a sequence, the slowest one).
  const std::uint64_t tokens = e.kv_allocation.avg_tokens ? e.kv_allocation.avg_tokens : e.context_tokens;
  o.context_tokens = tokens;
  KvLayout layout;
  layout.mla = e.kv.mla;
  auto kv = estimate_kv_cache(spec, e.kv_dtype, tokens, 1, layout);
  if (!kv) return kv.error();
  o.kv_bytes_per_sequence = kv.value().bytes;
  o.state_bytes_per_sequence = e.kv.state_bytes_per_sequence;  // in the engine's state widths
  // Tensor parallel splits each layer's reads across the GPUs (pipeline stages run one after another).
  o.tensor_parallel = e.vllm ? e.vllm->tensor_parallel : e.sglang ? e.sglang->tensor_parallel : 1;
  if (e.llamacpp && e.llamacpp->gpu_layers < e.llamacpp->total_layers) o.gpu_layers = e.llamacpp->gpu_layers;
  // Ollama's blocks on the GPU (its output layer counts as one more).
  if (e.ollama && e.ollama->planned && e.ollama->layers_offload < e.ollama->layers_model)
    o.gpu_layers = std::min(e.ollama->layers_offload, e.ollama->layers_model - 1);
  o.cpu_expert_layers = in.cpu_expert_layers;
  // llama.cpp offloads the output layer only with -ngl above the layer count.
  o.output_on_cpu = in.output_on_cpu || (e.llamacpp && !e.llamacpp->output_on_gpu);
  if (in.system_bandwidth_gb_s) o.system_bandwidth_gb_s = *in.system_bandwidth_gb_s, o.system_bandwidth_given = true;
  if (in.prompt_tokens) o.prompt_tokens = *in.prompt_tokens;
  o.prefill_chunk = prefill_chunk_of(e);
  o.flash_attention = e.attention == Attention::sdpa;  // llama.cpp -fa, Ollama's OLLAMA_FLASH_ATTENTION
  return o;
}

MemoryNeed memory_need(const InferenceEstimate& e) noexcept {
  // check_fit: gpus_needed(total − overhead, overhead, ...).
  return MemoryNeed{e.total - std::min(e.total, e.overhead), e.overhead, {}};
}

// Decoding with a draft: γ draft steps, then one target step over γ + 1 tokens, which reads the target's weights
// once as a plain step does (memory-bound), so it takes a plain step's time. A draft step is a forward pass of its
// own: it reads the draft's weights (an EAGLE-1 head and MTP layers also the target's output head) and each
// sequence's draft KV cache at the engine's share of the GPU's bandwidth, and pays the engine's fixed cost per step
// whole (kernel launches do not shrink with the draft). The draft is split across GPUs only under tensor parallel
// (vLLM, SGLang); a layer split keeps it on one. Expected tokens per step (1 − α^(γ+1)) / (1 − α) (Leviathan et al.
// 2023, eq. 1).
DraftSpeed draft_speed(const DraftMemory& d, const InferenceEstimate& e, const DecodeSpeed& decode, const Gpu& gpu) {
  DraftSpeed s;
  s.draft_tokens = d.tokens;
  s.acceptance_low = d.acceptance_low;
  s.acceptance_high = d.acceptance_high;
  s.acceptance_given = d.acceptance_given;
  s.tokens_per_step_low = expected_tokens_per_step(d.acceptance_low, d.tokens);
  s.tokens_per_step_high = expected_tokens_per_step(d.acceptance_high, d.tokens);
  const bool shares_head = d.kind == DraftKind::eagle || d.kind == DraftKind::mtp;
  const double head = shares_head ? static_cast<double>(e.weight_detail.output ? e.weight_detail.output
                                                                               : e.weight_detail.embedding)
                                  : 0.0;
  const double kv = static_cast<double>(d.kv_bytes_per_token) * static_cast<double>(e.context_tokens) *
                    static_cast<double>(e.batch);
  const bool tensor_parallel = e.engine == Engine::vllm || e.engine == Engine::sglang;
  const double gpus = tensor_parallel ? static_cast<double>(std::max<std::uint64_t>(e.per_gpu.gpus, 1)) : 1.0;
  // MTP layers are shaped like the model's: with routed experts a step reads their active share, as the model's does.
  const double active = d.kind == DraftKind::mtp && e.params.total
                            ? static_cast<double>(e.params.active) / static_cast<double>(e.params.total)
                            : 1.0;
  const double draft_bytes = (static_cast<double>(d.weights) * active + head + kv) / gpus;
  const Efficiency& eff = efficiency(e.engine, gpu);
  // A decode speed exists only for a GPU with a bandwidth figure (estimate_decode refuses one without).
  const double bandwidth = *gpu.bandwidth_gb_s * 1e9;
  const double gamma = static_cast<double>(d.tokens);
  // The step's launches, sampling and the engine's loop around it do not shrink with a draft of few layers: the
  // draft pays a measured step's overhead whole (no published draft-step timing splits it by layer).
  const Range overhead = step_overhead_s(eff, kOverheadMeasuredLayers);
  s.draft_step_seconds = {draft_bytes / (bandwidth * eff.bandwidth_share.high) + overhead.low,
                          draft_bytes / (bandwidth * eff.bandwidth_share.low) + overhead.high};
  s.step_seconds = {gamma * s.draft_step_seconds.low + decode.step_seconds.low,
                    gamma * s.draft_step_seconds.high + decode.step_seconds.high};
  s.tokens_per_second_per_sequence = {s.step_seconds.high > 0 ? s.tokens_per_step_low / s.step_seconds.high : 0,
                                      s.step_seconds.low > 0 ? s.tokens_per_step_high / s.step_seconds.low : 0};
  const double batch = static_cast<double>(std::max<std::uint64_t>(e.batch, 1));
  s.tokens_per_second = {s.tokens_per_second_per_sequence.low * batch, s.tokens_per_second_per_sequence.high * batch};
  return s;
}

ServingEstimate estimate_serving(const ModelSpec& spec, const InferenceEstimate& e, const Gpu& gpu,
                                 const ServingInputs& in, bool fits) {
  ServingEstimate out;
  const std::uint64_t gpus = e.per_gpu.gpus;
  out.cost.usd_per_hour = usd_per_hour(gpu, gpus);

  std::optional<Range> tokens_per_second;
  auto options = speed_options_for(spec, e, in);
  auto model = speed_model_from(spec, e.weight_detail);
  if (!spec.causal) {
    out.speed_unavailable = message("speed.encoder", "{model} is an encoder: it reads its input in one pass and "
                                                     "generates no tokens, so there is no decode speed.",
                                    {arg::text("model", spec.name)});
  } else if (!options) {
    out.speed_unavailable = options.error().message;
  } else if (!model) {
    out.speed_unavailable = model.error().message;
  } else {
    SpeedOptions o = options.value();
    o.compute = compute_path_for(e, &gpu);
    auto decode = estimate_decode(model.value(), gpu, o);
    if (!decode) {
      out.speed_unavailable = decode.error().message;
    } else {
      ServingSpeed s;
      s.compute = o.compute;
      s.prompt_tokens = o.prompt_tokens;
      s.prefill_chunk = o.prefill_chunk;
      s.decode = std::move(decode).value();
      if (e.draft_detail) s.draft = draft_speed(*e.draft_detail, e, s.decode, gpu);
      s.efficiency_source = efficiency(o.engine, gpu).source;
      if (auto prefill = estimate_prefill(model.value(), gpu, o)) s.prefill = std::move(prefill).value();
      else s.prefill_unavailable = prefill.error().message;
      if (const Message note = compute_note(e, gpu); s.prefill && !note.empty())
        s.prefill->explanation = message("speed.how.prefill_noted", "{how} {note}",
                                         {arg::message("how", s.prefill->explanation), arg::message("note", note)});
      // With layers or experts left in system RAM (-ngl, --n-cpu-moe, Ollama's split) the speed already reads them
      // there: no "if it did".
      if (!fits && !o.gpu_layers && o.cpu_expert_layers == 0)
        s.note = gpus > 1 ? message("speed.unfit_gpus",
                                    "The estimate does not fit on {n} × {gpu} within the headroom: this is the speed "
                                    "it would have if it did (the recommendation ranks multi-GPU configurations).",
                                    {arg::digits("n", gpus), arg::text("gpu", gpu.name)})
                          : message("speed.unfit_gpu",
                                    "The estimate does not fit on one {gpu} within the headroom: this is the speed "
                                    "it would have if it did (the recommendation ranks multi-GPU configurations).",
                                    {arg::text("gpu", gpu.name)});
      tokens_per_second = s.decode.tokens_per_second;
      out.speed = std::move(s);
    }
  }
  if (out.cost.usd_per_hour && tokens_per_second)
    out.cost.usd_per_million_tokens = per_million(*out.cost.usd_per_hour, *tokens_per_second);

  if (in.usd_per_kwh) {
    // One hour at full board power: the upper bound of what the card draws.
    auto energy = energy_cost(gpu, gpus, 1.0, 1.0, *in.usd_per_kwh);
    if (!energy) {
      out.cost.energy_unavailable = energy.error().message;
    } else {
      EnergyUse use;
      use.usd_per_kwh = *in.usd_per_kwh;
      use.tdp_w = gpu.tdp_w.value_or(0);
      use.kwh_per_hour = energy.value().kwh;
      use.usd_per_hour = energy.value().usd;
      if (tokens_per_second) {
        use.usd_per_million_tokens = use.usd_per_hour > 0 ? per_million(use.usd_per_hour, *tokens_per_second)
                                                          : std::optional<Range>(Range{0, 0});
      }
      out.cost.energy = use;
    }
  }
  return out;
}

}  // namespace vramfit
