#pragma once
// Training and fine-tuning memory per GPU: model states (weights, gradients, optimizer states) for full
// training, LoRA and QLoRA under each precision convention, plus activations, buffers and overhead.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/activations.hpp"
#include "memory/grpo.hpp"
#include "util/explanation.hpp"
#include "model/model_spec.hpp"
#include "memory/parallelism.hpp"
#include "util/result.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

// full: every weight trains. lora: frozen 16-bit base + low-rank adapters (Hu et al. 2021).
// qlora: frozen NF4 base with double quantization + adapters (Dettmers et al. 2023, arXiv 2305.14314).
enum class TrainingMode { full, lora, qlora };
std::string_view training_mode_name(TrainingMode mode) noexcept;  // "train", "lora", "qlora"
std::optional<TrainingMode> parse_training_mode(std::string_view name) noexcept;  // also "full"
std::string training_mode_names();

// fp32: everything 4 bytes. mixed-*: 16-bit weights for compute plus fp32 master weights (Micikevicius
// et al. 2018). bf16: pure bf16 weights, no master copy (optimizer states follow the weight dtype).
enum class Precision { fp32, mixed_fp16, mixed_bf16, bf16 };
std::string_view precision_name(Precision precision) noexcept;  // "fp32", "mixed-fp16", "mixed-bf16", "bf16"
std::optional<Precision> parse_precision(std::string_view name) noexcept;
std::string precision_names();

// Gradient storage: fp32 as the HF Trainer / PyTorch AMP keep them (HF "model memory anatomy":
// 18 B/param with AdamW), or half precision as in the ZeRO paper and Megatron (16 B/param).
enum class GradDType { fp32, half };
std::string_view grad_dtype_name(GradDType dtype) noexcept;  // "fp32", "half"
std::optional<GradDType> parse_grad_dtype(std::string_view name) noexcept;  // also fp16, bf16
std::string grad_dtype_names();

enum class Optimizer { adamw, adamw_8bit, paged_adamw, paged_adamw_8bit, sgd, sgd_momentum, adafactor, lion };

struct OptimizerInfo {
  Optimizer optimizer;
  std::string_view name;                // as flags spell it: "adamw", "adamw-8bit", …
  std::uint32_t state_bytes_per_param;  // fp32 weights; 0 for Adafactor (factored: per matrix rows + cols)
  bool eight_bit;                       // bitsandbytes 8-bit states: 2 B/param whatever the weight dtype
  bool paged;                           // bitsandbytes paged: spills to host RAM under memory pressure
  std::string_view summary;
};
std::span<const OptimizerInfo> all_optimizers() noexcept;
const OptimizerInfo& optimizer_info(Optimizer optimizer) noexcept;
std::optional<Optimizer> parse_optimizer(std::string_view name) noexcept;  // also HF `optim` names
std::string optimizer_names();

// "q,v", "q_proj,v_proj,o_proj", "all-linear" (PEFT: every linear layer but the output layer).
Result<LinearSet> parse_lora_targets(std::string_view names);
std::string lora_target_names();

// NF4 with double quantization (QLoRA §3): 4 bits per weight, an 8-bit absmax per 64-weight block and an
// fp32 constant per 256 blocks: 4 + 8/64 + 32/(64·256) = 4.126953125 bits ("0.127 bits/param" of constants).
inline constexpr std::uint64_t kNf4BlockSize = 64;
inline constexpr std::uint64_t kNf4SecondBlockSize = 256;
// ceil(params × 4.126953125 / 8) bytes; nothing on overflow.
std::optional<std::uint64_t> nf4_double_quant_bytes(std::uint64_t params) noexcept;

// LoRA's trainable parameters: r·(d_in + d_out) per adapted matrix, over every layer (and every expert
// of an MoE layer). Needs the architecture.
Result<std::uint64_t> lora_trainable_params(const ModelSpec& spec, std::uint64_t rank, const LinearSet& targets);

inline constexpr std::uint64_t kMaxLoraRank = 65'536;

struct TrainingOptions {
  TrainingMode mode = TrainingMode::full;
  Precision precision = Precision::mixed_bf16;
  std::optional<GradDType> grad_dtype;  // default: fp32, except half for pure bf16
  Optimizer optimizer = Optimizer::adamw;
  std::uint64_t lora_rank = 16;
  LinearSet lora_targets = LinearSet::all();  // all-linear
  std::uint64_t sequence = 2048;              // tokens per training sequence
  Checkpointing checkpointing = Checkpointing::none;
  AttnImplementation attn_implementation = AttnImplementation::sdpa;
  std::optional<bool> dropout;  // none: on when the config's attention or hidden dropout is above 0
  ParallelOptions parallel;  // gpus, tp, pp, sp, zero, offload, micro-batch, gradient accumulation
  // RL fine-tuning (GRPO): the policy trains as `mode` says over prompt + completion tokens (`sequence` is then
  // ignored), plus the reference model and the sampler's memory.
  std::optional<GrpoOptions> grpo;
};

// One GPU's memory. Where ranks differ (pipeline stages), one per kind of rank.
struct RankMemory {
  std::string role;            // "every GPU", "first pipeline stage", "middle pipeline stages", "last pipeline stage"
  std::uint64_t params = 0;    // parameters of this GPU's share of the model (its stage ÷ t), before ZeRO-3
  std::uint64_t in_flight_micro_batches = 1;
  std::uint64_t weights = 0;
  std::uint64_t gradients = 0;
  std::uint64_t optimizer = 0;       // optimizer states, including master_weights
  std::uint64_t master_weights = 0;  // the fp32 master copy inside `optimizer` (mixed precision)
  std::uint64_t activations = 0;
  std::uint64_t temporary = 0;       // ZeRO-3 all-gather buffers, the logits' gradient
  std::uint64_t reference_model = 0; // GRPO with beta > 0: the frozen reference weights
  std::uint64_t sampling = 0;        // GRPO: the sampler's KV cache (between steps) or colocated vLLM's share
  std::uint64_t overhead = 0;        // CUDA context and kernels
  std::uint64_t total = 0;
};

struct TrainingEstimate {
  TrainingMode mode = TrainingMode::full;
  Precision precision = Precision::mixed_bf16;
  GradDType grad_dtype = GradDType::fp32;
  Optimizer optimizer = Optimizer::adamw;
  Message gradient_convention;  // which bytes/param convention this is, in words

  ParamCounts params;
  std::uint64_t trainable_params = 0;
  std::uint64_t quantized_params = 0;      // QLoRA: weights stored as NF4
  std::uint64_t largest_layer_params = 0;  // largest single weight matrix (ZeRO-3 gathers it whole)
  ParallelLayout layout;

  ModelStateBytes replica;       // the whole model's states in one copy, before any split
  std::vector<RankMemory> ranks; // one per kind of rank
  RankMemory breakdown;          // the rank with the largest total: what must fit
  std::uint64_t host_ram_bytes = 0;  // offloaded states, all GPUs of the job together
  std::uint64_t nvme_bytes = 0;
  SlowdownRange slowdown;            // step-time multiplier range from offloading

  std::optional<ActivationEstimate> activations;  // absent for a bare parameter count
  std::optional<GrpoBytes> grpo;                  // RL fine-tuning only
  std::vector<Explanation> explanations;
  std::vector<Message> notes;
};

Result<TrainingEstimate> estimate_training(const ModelSpec& spec, const TrainingOptions& options);

}  // namespace vramfit
