#pragma once
// Training compute and time: FLOPs per token, recomputation overhead, wall-clock time, GPU-hours and cost.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/activations.hpp"  // Checkpointing, AttnImplementation
#include "util/explanation.hpp"
#include "model/model_spec.hpp"
#include "util/result.hpp"
#include "memory/training.hpp"     // TrainingMode
#include "util/message.hpp"  // Message

namespace vramfit {

// Model FLOPs utilisation assumed when none is given: the share of peak dense 16-bit tensor throughput a
// well-tuned large run sustains. Llama 3 (Dubey et al. 2024, Table 4) reports 38–43 % BF16 MFU on H100s;
// Korthikanti et al. 2022 reach 54 % on A100s. Fine-tunes of small models usually run lower: adjust it.
inline constexpr double kDefaultMfu = 0.40;

// Korthikanti et al. 2022 App. A (and Narayanan et al. 2021): model FLOPs per iteration of a GPT model,
// 72·B·L·s·h²·(1 + s/(6h) + V/(12hL)), B sequences of s tokens. With full recomputation the hardware
// executes 96·B·L·s·h²·(1 + s/(6h) + V/(16hL)): one more forward of every layer.
double korthikanti_flops(double batch, double sequence, double layers, double hidden, double vocab) noexcept;
double korthikanti_flops_full_recompute(double batch, double sequence, double layers, double hidden, double vocab) noexcept;

enum class FlopsMethod { six_n, architecture };
std::string_view flops_method_name(FlopsMethod method) noexcept;  // "6N", "architecture"
std::optional<FlopsMethod> parse_flops_method(std::string_view name) noexcept;

struct TrainingFlops {
  double forward_per_token = 0;    // one forward pass
  double model_per_token = 0;      // forward + backward: what MFU counts
  double recompute_per_token = 0;  // extra forward work from checkpointing
  double executed_per_token = 0;   // model + recompute: what the GPUs run
};

// Per token at sequence length s. architecture: 2 FLOPs per multiply-add of every weight matrix a token
// passes (active experts only) plus attention's QKᵀ and AV (4·s·heads·head_dim per layer), backward 2× forward;
// frozen base weights (LoRA, QLoRA) skip their weight gradients: 4 instead of 6 FLOPs per weight.
// Checkpointing: full reruns every layer's forward (≈ +1/3), selective reruns eager attention's QKᵀ/AV.
// six_n: 6·N_active (8·N_active with full recomputation). Bare specs always use six_n.
Result<TrainingFlops> training_flops_per_token(const ModelSpec& spec, std::uint64_t sequence, TrainingMode mode,
                                               Checkpointing checkpointing, AttnImplementation attn_implementation,
                                               FlopsMethod method);

struct TimeOptions {
  double tokens = 1e9;            // training tokens (all epochs)
  std::uint64_t sequence = 2048;
  std::uint64_t gpus = 1;
  double peak_tflops = 0;         // dense 16-bit tensor TFLOPS of one GPU (catalog: tflops_bf16)
  double mfu = kDefaultMfu;       // share of peak reached on the executed FLOPs, (0, 1]
  std::optional<double> usd_per_gpu_hour;
  TrainingMode mode = TrainingMode::full;
  Checkpointing checkpointing = Checkpointing::none;
  AttnImplementation attn_implementation = AttnImplementation::sdpa;
  FlopsMethod method = FlopsMethod::architecture;
  double slowdown = 1.0;          // offload multiplier on step time (TrainingEstimate::slowdown)
};

struct TrainingTimeEstimate {
  TrainingFlops per_token;
  double model_flops = 0;         // per_token.model × tokens
  double executed_flops = 0;      // including recomputation
  double recompute_overhead = 0;  // executed / model − 1 (full checkpointing ≈ 0.33)
  double seconds = 0;             // executed / (gpus · peak · mfu) × slowdown
  double gpu_hours = 0;
  std::optional<double> cost_usd;
  std::vector<Explanation> explanations;
  std::vector<Message> notes;
};

Result<TrainingTimeEstimate> estimate_training_time(const ModelSpec& spec, const TimeOptions& options);

}  // namespace vramfit
