#include "memory/engines/llamacpp_fit.hpp"

#include <algorithm>  // std::min, std::max
#include <numeric>    // std::accumulate

namespace vramfit {

std::string_view llama_fit_step_name(LlamaFitStep step) noexcept {
  switch (step) {
    case LlamaFitStep::none: return "none";
    case LlamaFitStep::context: return "context";
    case LlamaFitStep::experts: return "experts";
    case LlamaFitStep::layers: return "layers";
  }
  return "none";
}

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v, std::size_t from = 0) {
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(std::min(from, v.size())), v.end(), std::uint64_t{0});
}

// Per-layer cache at `context` cells, linear between the floor and the start as fit's interpolation assumes.
std::vector<std::uint64_t> cache_at(const LlamaCppFitInputs& in, std::uint64_t context) {
  std::vector<std::uint64_t> out(in.cache_bytes_start.size());
  const std::uint64_t span = in.context_start > in.context_floor ? in.context_start - in.context_floor : 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t lo = in.cache_bytes_floor[i], hi = in.cache_bytes_start[i];
    out[i] = span == 0 || hi <= lo ? hi
                                   : lo + static_cast<std::uint64_t>(static_cast<long double>(hi - lo) *
                                                                     static_cast<long double>(context - in.context_floor) /
                                                                     static_cast<long double>(span));
  }
  return out;
}

// Every layer and the output on the GPU at the given per-layer cache.
std::uint64_t all_on_gpu(const LlamaCppFitInputs& in, const std::vector<std::uint64_t>& cache) {
  return sum(in.layer_bytes) + sum(in.expert_bytes) + sum(cache) + in.output_bytes + in.compute_bytes;
}

// Step 2 (fit.cpp "try reducing memory use by reducing the context size"): the context that meets the target by
// linear interpolation between the floor and the start, rounded down to 256; the floor when even that is short.
void lower_context(LlamaCppFitPlan& plan, const LlamaCppFitInputs& in, std::uint64_t target) {
  if (plan.context_set || in.context_start <= in.context_floor) return;
  const std::uint64_t at_floor = all_on_gpu(in, in.cache_bytes_floor);
  plan.context = in.context_floor;
  plan.step = LlamaFitStep::context;
  if (target > at_floor && plan.projected_bytes > at_floor) {
    const long double share = static_cast<long double>(target - at_floor) /
                              static_cast<long double>(plan.projected_bytes - at_floor);
    const auto raised = in.context_floor + static_cast<std::uint64_t>(
                                               share * static_cast<long double>(in.context_start - in.context_floor));
    plan.context = std::max(raised - raised % kLlamaContextAlign, in.context_floor);
  }
  plan.context_saving_bytes = plan.projected_bytes - all_on_gpu(in, cache_at(in, plan.context));
}

// Places the last `cpu_layers` layers' experts in RAM (experts step) or, with whole layers, keeps only the last
// `gpu_layers` layers on the GPU, and fills the plan's byte counts.
void place(LlamaCppFitPlan& plan, const LlamaCppFitInputs& in, const std::vector<std::uint64_t>& cache,
           std::uint64_t gpu_layers, std::uint64_t cpu_expert_layers, bool output_on_gpu) {
  const std::size_t n = in.layer_bytes.size();
  plan.gpu_layers = gpu_layers;
  plan.output_on_gpu = output_on_gpu;
  plan.gpu_model_bytes = output_on_gpu ? in.output_bytes : 0;
  plan.gpu_context_bytes = 0;
  std::uint64_t experts_in_ram = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool layer_on_gpu = i >= n - gpu_layers;
    const bool experts_on_gpu = layer_on_gpu && i < n - cpu_expert_layers;
    if (layer_on_gpu) plan.gpu_model_bytes += in.layer_bytes[i], plan.gpu_context_bytes += cache[i];
    if (experts_on_gpu) plan.gpu_model_bytes += in.expert_bytes[i];
    else experts_in_ram += in.expert_bytes[i] ? 1 : 0;
  }
  plan.cpu_expert_layers = experts_in_ram;
  plan.first_cpu_expert_layer = n - cpu_expert_layers;
  // --n-cpu-moe N takes layers 0..N-1: the N whose first N layers hold as many expert layers.
  plan.n_cpu_moe = 0;
  for (std::uint64_t seen = 0; plan.n_cpu_moe < n && seen < experts_in_ram; ++plan.n_cpu_moe)
    seen += in.expert_bytes[static_cast<std::size_t>(plan.n_cpu_moe)] ? 1 : 0;
  plan.gpu_compute_bytes = in.compute_bytes;
  plan.projector_bytes = in.projector_bytes;
  plan.gpu_bytes = plan.gpu_model_bytes + plan.gpu_context_bytes + plan.gpu_compute_bytes + plan.projector_bytes;
  const std::uint64_t all_model = sum(in.layer_bytes) + sum(in.expert_bytes) + in.output_bytes;
  plan.host_model_bytes = in.host_only_bytes + all_model - plan.gpu_model_bytes;
  plan.host_context_bytes = sum(cache) - plan.gpu_context_bytes;
  plan.host_ram_bytes = plan.host_model_bytes + plan.host_context_bytes;
}

// Steps 3 and 4: with the experts of every layer in RAM, does the rest fit? Then the first layers take their experts
// back until the target is met; else whole layers leave the GPU from the front.
void move_weights(LlamaCppFitPlan& plan, const LlamaCppFitInputs& in, std::uint64_t target) {
  const std::size_t n = in.layer_bytes.size();
  const auto cache = cache_at(in, plan.context);
  const std::uint64_t dense_only = sum(in.layer_bytes) + sum(cache) + in.compute_bytes;
  if (plan.expert_layers > 0 && dense_only <= target) {
    plan.step = LlamaFitStep::experts;
    std::uint64_t used = dense_only;
    std::size_t kept = 0;  // leading layers that keep their experts on the GPU
    while (kept < n && used + in.expert_bytes[kept] <= target) used += in.expert_bytes[kept++];
    place(plan, in, cache, n, n - kept, false);
    return;
  }
  plan.step = LlamaFitStep::layers;
  std::uint64_t used = in.compute_bytes;
  std::size_t on_gpu = 0;  // trailing layers on the GPU (their experts in RAM for a MoE model)
  auto layer_cost = [&](std::size_t i) {
    return in.layer_bytes[i] + cache[i] + (plan.expert_layers > 0 ? 0 : in.expert_bytes[i]);
  };
  while (on_gpu < n && used + layer_cost(n - 1 - on_gpu) <= target) used += layer_cost(n - 1 - on_gpu++);
  place(plan, in, cache, on_gpu, plan.expert_layers > 0 ? n : 0, false);
  plan.fits = in.compute_bytes <= target;
}

}  // namespace

std::uint64_t llamacpp_fit_margin(const LlamaCppFitTarget& t) noexcept {
  return t.target_bytes + t.projector_bytes + (llamacpp_draft_in_fit(t.build) ? t.draft_bytes : 0);
}

LlamaCppFitPlan plan_llamacpp_fit(const LlamaCppFitInputs& in) {
  LlamaCppFitPlan plan;
  const std::size_t n = in.layer_bytes.size();
  plan.free_bytes = in.free_bytes;
  plan.margin_bytes = in.margin_bytes;
  plan.context_start = plan.context = in.context_start;
  plan.context_set = in.context_set;
  plan.total_layers = n;
  for (std::uint64_t bytes : in.expert_bytes) plan.expert_layers += bytes ? 1 : 0;
  plan.projected_bytes = all_on_gpu(in, in.cache_bytes_start);
  const std::uint64_t target = in.free_bytes > in.margin_bytes ? in.free_bytes - in.margin_bytes : 0;
  // Step 1: the defaults leave the margin free: no changes.
  if (plan.projected_bytes <= target) {
    place(plan, in, in.cache_bytes_start, n, 0, true);
    return plan;
  }
  lower_context(plan, in, target);
  const auto cache = cache_at(in, plan.context);
  if (all_on_gpu(in, cache) <= target) {  // on one GPU fit stops here: "entire model can be fit by reducing context"
    place(plan, in, cache, n, 0, true);
    return plan;
  }
  move_weights(plan, in, target);
  return plan;
}

Result<LlamaCppFitInputs> llamacpp_fit_inputs(const ModelSpec& spec, InferenceOptions options,
                                              std::uint64_t free_bytes, bool context_set) {
  LlamaCppFitInputs in;
  in.free_bytes = free_bytes;
  in.context_set = context_set;
  in.context_start = context_set || !spec.max_context ? options.context_tokens : spec.max_context;
  in.context_floor = std::min(in.context_start, kLlamaFitMinContext);
  options.engine = Engine::llamacpp;
  options.explain = false;
  options.gpu_layers.reset();  // fit plans only where -ngl is left to it
  options.context_tokens = in.context_start;
  if (options.mmproj_offload) {
    auto with_projector = estimate_inference(spec, options);
    if (!with_projector) return with_projector.error();
    in.projector_bytes = with_projector.value().llamacpp ? with_projector.value().llamacpp->mmproj_bytes : 0;
    options.mmproj_offload = false;
  }
  auto start = estimate_inference(spec, options);
  if (!start) return start.error();
  options.context_tokens = in.context_floor;
  auto floor = estimate_inference(spec, options);
  if (!floor) return floor.error();
  const InferenceEstimate& e = start.value();
  const WeightBytes& wd = e.weight_detail;
  const std::uint64_t n = spec.num_layers();
  if (n == 0)
    return make_error("model", message("llamacpp.fit_bare", "llama.cpp's fit places layers; a bare parameter count has none"));
  std::uint64_t moe_layers = 0;
  for (const LayerRun& run : spec.layers) moe_layers += run.mlp.kind == MlpKind::moe ? run.count : 0;
  const std::uint64_t layers_total = wd.attention + wd.mlp + wd.norms + wd.other;
  const std::uint64_t routed = moe_layers ? wd.routed_expert_bytes : 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const bool moe = spec.layer(i).mlp.kind == MlpKind::moe && routed > 0;
    in.layer_bytes.push_back((layers_total - routed) / n);
    in.expert_bytes.push_back(moe ? routed / moe_layers : 0);
    in.cache_bytes_start.push_back((e.kv_cache + e.state_cache) / n);
    in.cache_bytes_floor.push_back((floor.value().kv_cache + floor.value().state_cache) / n);
  }
  in.output_bytes = wd.output;
  in.host_only_bytes = wd.total - layers_total - wd.output;
  in.compute_bytes = e.llamacpp ? e.llamacpp->compute_buffer_bytes : 0;
  return in;
}

}  // namespace vramfit
