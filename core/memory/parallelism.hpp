#pragma once
// Splitting training over GPUs: data parallel with ZeRO sharding (FSDP), tensor, sequence and pipeline
// parallel, gradient accumulation, and offloading model states to host RAM or NVMe.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

// ZeRO stages (Rajbhandari et al. 2019, arXiv 1910.02054 §5): 1 shards optimizer states (P_os),
// 2 also gradients (P_os+g), 3 also parameters (P_os+g+p). PyTorch FSDP names: NO_SHARD = 0,
// SHARD_GRAD_OP = 2, FULL_SHARD = 3 (FSDP has no optimizer-only stage).
enum class ZeroStage { none = 0, optimizer = 1, gradients = 2, parameters = 3 };
std::string_view zero_name(ZeroStage stage) noexcept;  // "0", "1", "2", "3"
std::string_view fsdp_name(ZeroStage stage) noexcept;  // "NO_SHARD", "", "SHARD_GRAD_OP", "FULL_SHARD"
// "0".."3", "zero1".., and the FSDP names (any case, '-' for '_').
std::optional<ZeroStage> parse_zero(std::string_view name) noexcept;
std::string zero_names();  // the stages, then the FSDP names: "0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD"

// none; optimizer: ZeRO-Offload (optimizer states, fp32 step and gradients on the CPU, Ren et al. 2021);
// params: ZeRO-Infinity with parameters in CPU RAM too; nvme: ZeRO-Infinity with parameters and
// optimizer states on NVMe (Rajbhandari et al. 2021, arXiv 2104.07857).
enum class Offload { none, optimizer, params, nvme };
std::string_view offload_name(Offload offload) noexcept;  // "none", "optimizer", "params", "nvme"
std::optional<Offload> parse_offload(std::string_view name) noexcept;
std::string offload_names();

struct ParallelOptions {
  std::uint64_t gpus = 1;               // all GPUs of the job = tp × pp × data parallel
  std::uint64_t tensor_parallel = 1;    // t (Megatron column/row-parallel layers)
  std::uint64_t pipeline_parallel = 1;  // p stages, 1F1B schedule
  bool sequence_parallel = false;       // Korthikanti §4.2.2; needs t > 1 to matter
  ZeroStage zero = ZeroStage::none;
  Offload offload = Offload::none;
  std::uint64_t micro_batch = 1;            // sequences per GPU per forward pass
  std::uint64_t gradient_accumulation = 1;  // micro-batches per optimizer step per data-parallel rank
};

inline constexpr std::uint64_t kMaxGpus = 1'000'000;
inline constexpr std::uint64_t kMaxGradientAccumulation = 1'000'000;

struct ParallelLayout {
  std::uint64_t gpus = 1;
  std::uint64_t data_parallel = 1;  // gpus / (t · p)
  std::uint64_t tensor_parallel = 1;
  std::uint64_t pipeline_parallel = 1;
  std::uint64_t micro_batch = 1;
  std::uint64_t gradient_accumulation = 1;
  std::uint64_t global_batch = 1;  // sequences per optimizer step: micro × accumulation × data parallel
};

// Checks the degrees against each other and the model and names the field: p must divide the layers, t the
// attention and key-value heads alike, so `heads_divisor` is their greatest common divisor (0: no heads known).
Result<ParallelLayout> plan_parallelism(const ParallelOptions& options, std::uint64_t num_layers,
                                        std::uint64_t heads_divisor);

// Layers of pipeline stage `stage` (0-based) of p: an even split, the remainder to the earliest stages.
struct StageLayers {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};
StageLayers stage_layers(std::uint64_t num_layers, std::uint64_t stages, std::uint64_t stage) noexcept;

// 1F1B: stage i runs p − i forward passes before its first backward, so it holds that many micro-batches'
// activations (fewer when a step has fewer micro-batches). Stage 0 holds p: its L/p layers × p micro-batches
// = the whole model's activations for one micro-batch (Korthikanti et al. 2022 §4.2.3, eq. 5).
std::uint64_t in_flight_micro_batches(std::uint64_t stages, std::uint64_t micro_batches_per_step,
                                      std::uint64_t stage) noexcept;

struct ModelStateBytes {
  std::uint64_t weights = 0;
  std::uint64_t gradients = 0;
  std::uint64_t optimizer = 0;  // optimizer states including any fp32 master weights (ZeRO's K·Ψ)
};

// One data-parallel replica's model states → one GPU's share under ZeRO over `data_parallel` ranks
// (ceil division: the last rank's shard is never larger).
ModelStateBytes shard_model_states(const ModelStateBytes& replica, std::uint64_t data_parallel, ZeroStage stage) noexcept;

// The ZeRO paper's per-GPU model-state formulas (§5.3, Figure 1), mixed-precision Adam with fp16
// weights and gradients and K bytes/param of optimizer state: none (2 + 2 + K)Ψ; stage 1 4Ψ + KΨ/N_d;
// stage 2 2Ψ + (2 + K)Ψ/N_d; stage 3 (4 + K)Ψ/N_d. Nothing on overflow.
std::optional<std::uint64_t> zero_paper_bytes(std::uint64_t psi, std::uint64_t k, std::uint64_t data_parallel,
                                              ZeroStage stage) noexcept;

// DeepSpeed's own estimators (deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs,
// stage3.py estimate_zero3_model_states_mem_needs), transcribed, with their 1.5 host buffer factor:
//   ZeRO-2, no offload:        GPU 2Ψ + 18Ψ/N          CPU 4Ψ · gpus_per_node · 1.5
//   ZeRO-2, optimizer offload: GPU 2Ψ                  CPU Ψ · max(4N, 16) · 1.5
//   ZeRO-3, no offload:        GPU 4·LL + 18Ψ/N        CPU 4·LL · gpus_per_node · 1.5   (zero_init)
//   ZeRO-3, optimizer offload: GPU 4·LL + 2Ψ/N         CPU 16Ψ/nodes · 1.5              (zero_init)
//   ZeRO-3, + param offload:   GPU 4·LL                CPU 18Ψ/nodes · 1.5              (zero_init)
// LL = the largest layer's parameters. Model states only: no activations, no CUDA context.
struct DeepSpeedEstimate {
  std::uint64_t gpu_bytes = 0;
  std::uint64_t cpu_bytes = 0;
};
inline constexpr double kDeepSpeedBufferFactor = 1.5;
DeepSpeedEstimate deepspeed_zero2_estimate(std::uint64_t params, std::uint64_t gpus_per_node, std::uint64_t nodes,
                                           bool offload_optimizer) noexcept;
DeepSpeedEstimate deepspeed_zero3_estimate(std::uint64_t params, std::uint64_t largest_layer_params,
                                           std::uint64_t gpus_per_node, std::uint64_t nodes, bool offload_optimizer,
                                           bool offload_params) noexcept;

// How much longer a step takes with the offload (multipliers on step time), and where the range comes from.
struct SlowdownRange {
  double min = 1.0;
  double max = 1.0;
  Message source;  // where the range comes from, in words a page translates
};
SlowdownRange offload_slowdown(Offload offload);

}  // namespace vramfit
