#pragma once
// How fast and at what price one inference scenario runs on one GPU: the glue from the memory
// estimate (inference.hpp) to the roofline (speed.hpp) and the prices (cost.hpp). Pure arithmetic on
// values already estimated; evaluate() calls it for a request with a GPU.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string

#include "hardware/cost.hpp"
#include "hardware/gpu.hpp"
#include "memory/inference.hpp"
#include "hardware/ranking.hpp"  // MemoryNeed
#include "util/result.hpp"
#include "hardware/speed.hpp"

namespace vramfit {

// Inputs only speed and cost need; none: the speed module's defaults.
struct ServingInputs {
  std::optional<double> system_bandwidth_gb_s;  // llama.cpp layers left in system RAM (default 60 GB/s)
  std::optional<std::uint64_t> prompt_tokens;   // prefill length (default 512, llama-bench pp512)
  std::optional<double> usd_per_kwh;            // electricity for a card you own
  // Where llama.cpp places the model, when it leaves experts in system RAM (--n-cpu-moe, --fit's experts step):
  // the layers whose routed experts stay there, and whether the output layer does too.
  std::uint64_t cpu_expert_layers = 0;
  bool output_on_cpu = false;
};

// Errors name the request field: system_bandwidth, prompt_tokens, usd_per_kwh.
Result<bool> validate_serving_inputs(const ServingInputs& inputs);

std::string_view compute_path_name(ComputePath path) noexcept;  // "fp16", "int8", "fp8"

// The roofline's inputs taken from the memory estimate: engine, batch, the KV cache one sequence reads
// per step (at avg_tokens when given, else the context), llama.cpp -ngl below the layer count.
Result<SpeedOptions> speed_options_for(const ModelSpec& spec, const InferenceEstimate& estimate,
                                       const ServingInputs& inputs);

// The memory split tensor parallelism sees, the same split check_fit uses for gpus_needed: the
// runtime overhead (CUDA context, cuBLAS workspace or vLLM's non-torch memory and CUDA graphs) is
// paid by every GPU; weights, KV cache, activations and the allocator's segment rounding divide.
MemoryNeed memory_need(const InferenceEstimate& estimate) noexcept;

struct EnergyUse {
  double usd_per_kwh = 0;
  double tdp_w = 0;
  double kwh_per_hour = 0;  // board power at TDP: an upper bound (decode rarely draws full power)
  double usd_per_hour = 0;
  std::optional<Range> usd_per_million_tokens;  // low: at the fast end of the speed range
};

struct ServingCost {
  std::optional<double> usd_per_hour;           // none: the catalog has no price for this GPU
  std::optional<Range> usd_per_million_tokens;  // low: at the fast end; none without a price or speed
  std::optional<EnergyUse> energy;              // only when usd_per_kwh is given
  Message energy_unavailable;                   // why not, when asked for and impossible (no TDP)
};

// Speculative decoding's decode speed: γ draft steps and one target step over γ + 1 tokens (memory-bound: the
// target's weights read once) give (1 − α^(γ+1)) / (1 − α) tokens (Leviathan et al. 2023, eq. 1).
struct DraftSpeed {
  std::uint64_t draft_tokens = 0;      // γ
  double acceptance_low = 0, acceptance_high = 0;
  bool acceptance_given = false;
  double tokens_per_step_low = 0, tokens_per_step_high = 0;  // at acceptance_low and acceptance_high
  Range draft_step_seconds;            // one draft decode step
  Range step_seconds;                  // γ draft steps + one target step
  Range tokens_per_second_per_sequence;  // low: slow end at acceptance_low; high: fast end at acceptance_high
  Range tokens_per_second;             // over the batch
};

struct ServingSpeed {
  ComputePath compute = ComputePath::fp16;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t prefill_chunk = 0;  // tokens per prefill forward pass (0: the whole prompt)
  DecodeSpeed decode;
  std::optional<PrefillSpeed> prefill;
  Message prefill_unavailable;  // why prefill has no figure (e.g. Apple GPUs: no TFLOPS in the catalog)
  std::string_view efficiency_source;
  Message note;  // e.g. "does not fit on one GPU: the speed it would have if it did"
  std::optional<DraftSpeed> draft;  // with a draft: decoding with it
};

struct ServingEstimate {
  std::optional<ServingSpeed> speed;
  Message speed_unavailable;      // why decode speed cannot be estimated (no bandwidth, vLLM on Apple, ...)
  ServingCost cost;
};

// Speed and cost of `estimate` on `gpu` (estimate.per_gpu.gpus of it: the price and the power of all of them; a
// layer split runs its GPUs one after another, so the step is one GPU's); `fits` says whether the estimate fits
// them (a note otherwise). Inputs are assumed validated (validate_serving_inputs); speed problems become
// *_unavailable messages.
ServingEstimate estimate_serving(const ModelSpec& spec, const InferenceEstimate& estimate, const Gpu& gpu,
                                 const ServingInputs& inputs, bool fits = true);

}  // namespace vramfit
