#pragma once
// Does an estimate fit on a GPU, how tightly, and how many of that GPU would it take?
#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "hardware/gpu.hpp"
#include "memory/engines/engine.hpp"  // Engine
#include "memory/inference.hpp"

namespace vramfit {

enum class Fit { fits, tight, does_not_fit };
std::string_view fit_name(Fit fit) noexcept;  // "fits", "tight", "does_not_fit"

// Share of a GPU's memory kept free for allocator fragmentation and spikes the estimate does not
// model (PyTorch's caching allocator, the article "GPU-Speicher": "4 GB free, a 2 GB allocation fails").
inline constexpr double kDefaultHeadroom = 0.10;

// One GPU's row as a report judges it: an inference's GPU table, a training job's, and the rows its verdict reads.
struct GpuFit {
  const Gpu* gpu = nullptr;       // points into the catalog
  Fit fit = Fit::does_not_fit;
  std::int64_t free_bytes = 0;    // usable − total (a training job: its busiest rank); negative when it does not fit
  std::uint64_t gpus_needed = 0;  // smallest count within headroom if everything but the overhead divided evenly
                                  // (the headline's GPU: checked by its own estimate); 0: never, or (training) not
                                  // counted
  bool one_per_machine = false;   // several GPUs asked of a Mac, which has one: not judged (fit does_not_fit)
};

// The share of a GPU a scenario keeps free when judged: the request's headroom; for vLLM at least
// 1 − gpu_memory_utilization, since vLLM never takes more than that share of the GPU (vLLM docs, EngineArgs).
double fit_headroom(Engine engine, double headroom, double gpu_util) noexcept;

// The most a scenario may take and still fit: usable·(1 − headroom), the only place that product is formed.
// A headroom outside [0, 1) counts as none.
std::uint64_t budget_bytes(std::uint64_t usable_bytes, double headroom) noexcept;

// fits: total ≤ budget_bytes(usable, headroom); tight: ≤ usable; does_not_fit: above.
Fit classify_fit(std::uint64_t total_bytes, std::uint64_t usable_bytes, double headroom) noexcept;

// Smallest n with ceil(shardable / n) + per_gpu ≤ budget_bytes(usable, headroom): weights, KV cache and
// activations split n ways (tensor or pipeline parallel), the runtime overhead paid on every GPU.
// 0 when even an infinite split cannot fit (per_gpu alone is too big).
std::uint64_t gpus_needed(std::uint64_t shardable_bytes, std::uint64_t per_gpu_bytes, std::uint64_t usable_bytes,
                          double headroom) noexcept;

// The one fit rule for an inference estimate on a GPU, shared by the GPU table, the largest-context solver and
// the remedies: the total (one GPU's share with tensor or pipeline parallel) against the headroom line. vLLM and
// SGLang sized for this GPU preallocate: their KV pool decides. vLLM must hold one sequence of max_model_len or it
// refuses to start (kv_cache_utils.check_enough_kv_cache_memory); fewer sequences than the batch run queued (tight).
Fit estimate_fit(const InferenceEstimate& estimate, std::uint64_t usable_bytes, double headroom) noexcept;

// What vLLM or SGLang, sized for the GPU, leave free on each card, whatever the model needs: vLLM takes
// gpu_memory_utilization of the driver's total (its KV pool is what the rest of the budget leaves), plus its CUDA
// graphs where they sit outside that budget (before 0.21) (gpu_worker.py determine_available_memory); SGLang takes
// mem_fraction_static of the memory free at its start for weights and pool and keeps the rest for activations and
// CUDA graphs (server_args.py). None for any other estimate. Memory other programs hold (estimate.in_use) is gone from
// what vLLM leaves; SGLang measured its free memory without it.
std::optional<std::int64_t> preallocated_free_bytes(const InferenceEstimate& estimate) noexcept;

// What a model may take on `gpu` while other programs hold `in_use_bytes` of it (usable_beside): every judgement of
// an inference estimate on a card goes through it, with the estimate's `in_use`.
std::uint64_t usable_for(const Gpu& gpu, std::uint64_t in_use_bytes) noexcept;

// With tensor or pipeline parallel (estimate.per_gpu.gpus > 1) each GPU is judged by its share.
std::vector<GpuFit> check_fit(const InferenceEstimate& estimate, const std::vector<Gpu>& gpus, double headroom);

}  // namespace vramfit
