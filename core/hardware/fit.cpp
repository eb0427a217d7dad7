#include "hardware/fit.hpp"

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::round
#include <optional>   // std::optional

#include "memory/in_use.hpp"
#include "util/units.hpp"

namespace vramfit {

std::string_view fit_name(Fit fit) noexcept {
  switch (fit) {
    case Fit::fits: return "fits";
    case Fit::tight: return "tight";
    case Fit::does_not_fit: return "does_not_fit";
  }
  return "does_not_fit";
}

double fit_headroom(Engine engine, double headroom, double gpu_util) noexcept {
  if (engine != Engine::vllm) return headroom;
  // Rounded to nine places: 1 − 0.8 is 0.19999999999999996 in binary, and the report shows this share.
  return std::max(headroom, std::round((1.0 - gpu_util) * 1e9) / 1e9);
}

std::uint64_t budget_bytes(std::uint64_t usable, double headroom) noexcept {
  if (!(headroom >= 0) || headroom >= 1) headroom = 0;
  return static_cast<std::uint64_t>(static_cast<double>(usable) * (1.0 - headroom));
}

Fit classify_fit(std::uint64_t total, std::uint64_t usable, double headroom) noexcept {
  if (total <= budget_bytes(usable, headroom)) return Fit::fits;
  if (total <= usable) return Fit::tight;
  return Fit::does_not_fit;
}

std::uint64_t gpus_needed(std::uint64_t shardable, std::uint64_t per_gpu, std::uint64_t usable,
                          double headroom) noexcept {
  const std::uint64_t budget = budget_bytes(usable, headroom);
  if (per_gpu >= budget) return 0;
  const std::uint64_t room = budget - per_gpu;
  return shardable == 0 ? 1 : ceil_div(shardable, room);
}

std::optional<std::int64_t> preallocated_free_bytes(const InferenceEstimate& e) noexcept {
  if (const auto& v = e.vllm; v && v->driver_total_bytes)
    return signed_difference(v->driver_total_bytes,
                             v->budget_bytes + (v->cuda_graphs_in_budget ? 0 : v->cuda_graph_bytes) + e.in_use);
  if (const auto& g = e.sglang; g && g->driver_total_bytes)
    return static_cast<std::int64_t>(static_cast<double>(g->free_at_start_bytes) * (1.0 - g->mem_fraction_static));
  return std::nullopt;
}

namespace {

// vLLM and SGLang sized for the GPU: their pool decides. A pool below one sequence: vLLM refuses to start, SGLang
// with no pool at all; fewer sequences than the batch (or SGLang's pool shorter than one context, which it starts
// with and refuses only longer requests, scheduler.py max_req_input_len) runs, queued: tight.
std::optional<Fit> pool_fit(const InferenceEstimate& e) noexcept {
  const auto free = preallocated_free_bytes(e);
  if (!free) return std::nullopt;
  if (*free < 0) return Fit::does_not_fit;
  if (e.vllm_start && !e.vllm_start->starts) return Fit::does_not_fit;  // free memory below its budget at start
  const std::uint64_t batch = std::max<std::uint64_t>(e.batch, 1);
  if (e.vllm)
    return e.vllm->max_concurrency == 0 ? Fit::does_not_fit : e.vllm->max_concurrency >= batch ? Fit::fits : Fit::tight;
  if (e.sglang->max_total_num_tokens == 0) return Fit::does_not_fit;
  return e.sglang->max_concurrency >= batch ? Fit::fits : Fit::tight;
}

// What a card keeps free: an engine that runs with its pool leaves what it does not preallocate; otherwise (and
// where it would not start) the card less what the estimate needs, or what vLLM's start check lacks.
std::int64_t free_after(const InferenceEstimate& e, Fit fit, std::int64_t need_based) noexcept {
  const auto preallocated = preallocated_free_bytes(e);
  const std::int64_t rest = preallocated && fit != Fit::does_not_fit ? *preallocated : need_based;
  // vLLM stopped at start by memory others hold: how far the free memory falls short of what it asks, or, where its
  // pool holds no sequence either, the card's shortfall against what the model needs if that is larger.
  if (const auto& s = e.vllm_start; s && !s->starts) {
    const std::int64_t start = signed_difference(s->free_bytes, s->requested_bytes);
    return e.vllm && e.vllm->max_concurrency == 0 ? std::min(start, need_based) : start;
  }
  return rest;
}

}  // namespace

Fit estimate_fit(const InferenceEstimate& e, std::uint64_t usable, double headroom) noexcept {
  const std::uint64_t total = e.per_gpu.gpus > 1 ? e.per_gpu.total : e.total;
  if (const auto fit = pool_fit(e)) return *fit;
  // Ollama decides itself: fits when it offloads every layer, else part of the model runs on the CPU.
  if (e.ollama && e.ollama->planned)
    return e.ollama->layers_offload == e.ollama->layers_model ? Fit::fits : Fit::does_not_fit;
  return classify_fit(total, usable, headroom);
}

std::uint64_t usable_for(const Gpu& gpu, std::uint64_t in_use) noexcept {
  return usable_beside(gpu.usable_bytes(), in_use, gpu.unified_memory, gpu.memory_bytes);
}

std::vector<GpuFit> check_fit(const InferenceEstimate& e, const std::vector<Gpu>& gpus, double headroom) {
  std::vector<GpuFit> out;
  out.reserve(gpus.size());
  for (const auto& gpu : gpus) {
    const std::uint64_t usable = usable_for(gpu, e.in_use);
    GpuFit f;
    f.gpu = &gpu;
    if (e.per_gpu.gpus > 1) {  // a deployment over a given number of GPUs: one GPU's share decides
      f.one_per_machine = gpu.one_per_machine();
      f.fit = f.one_per_machine ? Fit::does_not_fit : estimate_fit(e, usable, headroom);
      f.free_bytes = free_after(e, f.fit, signed_difference(usable, e.per_gpu.total));
      f.gpus_needed = f.fit == Fit::fits ? e.per_gpu.gpus : 0;
      out.push_back(f);
      continue;
    }
    f.fit = estimate_fit(e, usable, headroom);
    // Ollama with some layers in system RAM: what it would need to hold them all (memory.required.full).
    const std::uint64_t need = e.ollama && e.ollama->planned && f.fit != Fit::fits
                                   ? std::max(e.total, e.ollama->required_full_bytes)
                                   : e.total;
    f.free_bytes = free_after(e, f.fit, signed_difference(usable, need));
    f.gpus_needed = gpu.one_per_machine() ? (f.fit == Fit::fits ? 1 : 0)
                                          : gpus_needed(need - std::min(need, e.overhead), e.overhead, usable, headroom);
    out.push_back(f);
  }
  return out;
}

}  // namespace vramfit
