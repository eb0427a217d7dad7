#include "memory/parallelism.hpp"

#include <algorithm>  // std::min, std::max
#include <array>      // std::array

#include "util/byte_math.hpp"
#include "util/text.hpp"  // fold_name, find_named, join_names

namespace vramfit {
namespace {

constexpr std::array<std::string_view, 4> kZeroNames{"0", "1", "2", "3"};
constexpr std::array<std::string_view, 4> kFsdpNames{"NO_SHARD", "", "SHARD_GRAD_OP", "FULL_SHARD"};
constexpr std::array<NamedValue<Offload>, 4> kOffloads{{{"none", Offload::none},
                                                        {"optimizer", Offload::optimizer},
                                                        {"params", Offload::params},
                                                        {"nvme", Offload::nvme}}};
constexpr std::array<NamedValue<Offload>, 5> kOffloadAliases{{{"cpu", Offload::optimizer},
                                                              {"optimizer_cpu", Offload::optimizer},
                                                              {"params_cpu", Offload::params},
                                                              {"parameters", Offload::params},
                                                              {"params_nvme", Offload::nvme}}};

std::uint64_t div_up(std::uint64_t a, std::uint64_t d) noexcept { return d == 0 ? a : ceil_div(a, d); }

}  // namespace

std::string_view zero_name(ZeroStage stage) noexcept { return kZeroNames[static_cast<std::size_t>(stage)]; }
std::string_view fsdp_name(ZeroStage stage) noexcept { return kFsdpNames[static_cast<std::size_t>(stage)]; }

std::optional<ZeroStage> parse_zero(std::string_view name) noexcept {
  const std::string f = fold_name(name, '_');  // "Full-Shard" and "full_shard" both read as FULL_SHARD
  for (std::size_t i = 0; i < kZeroNames.size(); ++i) {
    if (f == kZeroNames[i] || f == "zero" + std::string(kZeroNames[i]) || f == "zero_" + std::string(kZeroNames[i]))
      return static_cast<ZeroStage>(i);
    if (!kFsdpNames[i].empty() && f == fold_name(kFsdpNames[i], '_')) return static_cast<ZeroStage>(i);
  }
  return std::nullopt;
}

std::string zero_names() {
  std::string out;
  for (std::string_view name : kZeroNames) out += (out.empty() ? "" : ", ") + std::string(name);
  for (std::string_view name : kFsdpNames)
    if (!name.empty()) out += ", " + std::string(name);
  return out;
}

std::string_view offload_name(Offload offload) noexcept { return kOffloads[static_cast<std::size_t>(offload)].name; }

std::optional<Offload> parse_offload(std::string_view name) noexcept {
  const std::string f = fold_name(name, '_');
  if (const auto* entry = find_named(kOffloads, f)) return entry->value;
  if (const auto* entry = find_named(kOffloadAliases, f)) return entry->value;
  return std::nullopt;
}

std::string offload_names() { return join_names(kOffloads); }

Result<ParallelLayout> plan_parallelism(const ParallelOptions& o, std::uint64_t num_layers,
                                        std::uint64_t heads_divisor) {
  if (o.gpus < 1 || o.gpus > kMaxGpus)
    return make_error("gpus", message("parallel.range", "must be between 1 and {max}, got {value}",
                                      {arg::digits("max", kMaxGpus), arg::digits("value", o.gpus)}));
  if (o.tensor_parallel < 1 || o.tensor_parallel > o.gpus)
    return make_error("tp", message("parallel.up_to_gpus", "must be between 1 and the number of GPUs ({gpus}), got {value}",
                                    {arg::digits("gpus", o.gpus), arg::digits("value", o.tensor_parallel)}));
  if (heads_divisor != 0 && heads_divisor % o.tensor_parallel != 0)
    return make_error("tp", message("parallel.divide_heads",
                                    "must divide both the attention and the key-value heads (their largest common "
                                    "divisor is {heads}), got {value}",
                                    {arg::digits("heads", heads_divisor), arg::digits("value", o.tensor_parallel)}));
  if (o.pipeline_parallel < 1 || o.pipeline_parallel > o.gpus)
    return make_error("pp", message("parallel.up_to_gpus", "must be between 1 and the number of GPUs ({gpus}), got {value}",
                                    {arg::digits("gpus", o.gpus), arg::digits("value", o.pipeline_parallel)}));
  if (num_layers != 0 && o.pipeline_parallel > num_layers)
    return make_error("pp", message("parallel.up_to_layers", "must be at most the number of layers ({layers}), got {value}",
                                    {arg::digits("layers", num_layers), arg::digits("value", o.pipeline_parallel)}));
  const std::uint64_t model_parallel = o.tensor_parallel * o.pipeline_parallel;  // both ≤ 1e6: fits
  if (o.gpus % model_parallel != 0)
    return make_error("gpus", message("parallel.multiple_of_tp_pp", "must be a multiple of tp × pp ({product}), got {value}",
                                      {arg::digits("product", model_parallel), arg::digits("value", o.gpus)}));
  if (o.micro_batch < 1 || o.micro_batch > 1'000'000)
    return make_error("micro-batch", message("parallel.micro_batch_range", "must be between 1 and 1000000, got {value}",
                                             {arg::digits("value", o.micro_batch)}));
  if (o.gradient_accumulation < 1 || o.gradient_accumulation > kMaxGradientAccumulation)
    return make_error("grad-accum", message("parallel.range", "must be between 1 and {max}, got {value}",
                                            {arg::digits("max", kMaxGradientAccumulation),
                                             arg::digits("value", o.gradient_accumulation)}));
  if (o.offload != Offload::none && o.zero == ZeroStage::none)
    return make_error("offload", message("parallel.offload_zero", "needs ZeRO stage 1, 2 or 3 (DeepSpeed offloads the "
                                                                  "partitioned optimizer); got zero 0"));
  if ((o.offload == Offload::params || o.offload == Offload::nvme) && o.zero != ZeroStage::parameters)
    return make_error("offload", message("parallel.offload_params_zero3", "offloading parameters ({offload}) needs ZeRO "
                                                                          "stage 3, got {zero}",
                                         {arg::text("offload", offload_name(o.offload)), arg::text("zero", zero_name(o.zero))}));
  ParallelLayout l;
  l.gpus = o.gpus;
  l.tensor_parallel = o.tensor_parallel;
  l.pipeline_parallel = o.pipeline_parallel;
  l.data_parallel = o.gpus / model_parallel;
  l.micro_batch = o.micro_batch;
  l.gradient_accumulation = o.gradient_accumulation;
  const auto global = detail::product({o.micro_batch, o.gradient_accumulation, l.data_parallel});
  if (!global)
    return make_error("grad-accum", message("parallel.global_batch_overflow",
                                            "micro-batch × accumulation × data parallel overflows 64 bits"));
  l.global_batch = *global;
  return l;
}

StageLayers stage_layers(std::uint64_t num_layers, std::uint64_t stages, std::uint64_t stage) noexcept {
  if (stages == 0 || stage >= stages) return {};
  const std::uint64_t base = num_layers / stages, extra = num_layers % stages;
  const std::uint64_t first = stage * base + std::min(stage, extra);
  return {first, base + (stage < extra ? 1 : 0)};
}

std::uint64_t in_flight_micro_batches(std::uint64_t stages, std::uint64_t micro_batches_per_step,
                                      std::uint64_t stage) noexcept {
  if (stage >= stages) return 0;
  return std::max<std::uint64_t>(1, std::min(stages - stage, micro_batches_per_step));
}

ModelStateBytes shard_model_states(const ModelStateBytes& r, std::uint64_t dp, ZeroStage stage) noexcept {
  ModelStateBytes out = r;
  if (stage >= ZeroStage::optimizer) out.optimizer = div_up(r.optimizer, dp);
  if (stage >= ZeroStage::gradients) out.gradients = div_up(r.gradients, dp);
  if (stage >= ZeroStage::parameters) out.weights = div_up(r.weights, dp);
  return out;
}

std::optional<std::uint64_t> zero_paper_bytes(std::uint64_t psi, std::uint64_t k, std::uint64_t nd,
                                              ZeroStage stage) noexcept {
  if (nd == 0) return std::nullopt;
  const auto two = checked_mul(2, psi);
  const auto kpsi = checked_mul(k, psi);
  if (!two || !kpsi) return std::nullopt;
  detail::CheckedSum sum;
  switch (stage) {
    case ZeroStage::none: sum.add(*two).add(*two).add(*kpsi); break;
    case ZeroStage::optimizer: sum.add(*two).add(*two).add(ceil_div(*kpsi, nd)); break;
    case ZeroStage::gradients: {
      const auto rest = checked_add(*two, *kpsi);
      sum.add(*two).add(rest ? std::optional(ceil_div(*rest, nd)) : std::nullopt);
      break;
    }
    case ZeroStage::parameters: {
      const auto all = detail::product({4 + k, psi});
      sum.add(all ? std::optional(ceil_div(*all, nd)) : std::nullopt);
      break;
    }
  }
  return sum.result();
}

DeepSpeedEstimate deepspeed_zero2_estimate(std::uint64_t params, std::uint64_t gpus_per_node, std::uint64_t nodes,
                                           bool offload_optimizer) noexcept {
  const double p = static_cast<double>(params);
  const double total_gpus = static_cast<double>(std::max<std::uint64_t>(1, gpus_per_node * nodes));
  double gpu = 0, cpu = 0;
  if (offload_optimizer) {
    gpu = 2 * p;
    cpu = p * std::max(4 * total_gpus, 16.0) * kDeepSpeedBufferFactor;
  } else {
    // Current DeepSpeed: 2 = 16-bit params; 18 = 16-bit grads 2 + fp32 grads 4 + fp32 params 4 + Adam 8.
    // (Older releases wrote 4Ψ + 16Ψ/N.)
    gpu = 2 * p + static_cast<double>(static_cast<std::uint64_t>(18 * p / total_gpus));
    cpu = p * 4 * static_cast<double>(gpus_per_node) * kDeepSpeedBufferFactor;
  }
  return {static_cast<std::uint64_t>(gpu), static_cast<std::uint64_t>(cpu)};
}

DeepSpeedEstimate deepspeed_zero3_estimate(std::uint64_t params, std::uint64_t largest_layer_params,
                                           std::uint64_t gpus_per_node, std::uint64_t nodes, bool offload_optimizer,
                                           bool offload_params) noexcept {
  const double p = static_cast<double>(params);
  const double total_gpus = static_cast<double>(std::max<std::uint64_t>(1, gpus_per_node * nodes));
  const double gpus_factor = 1.0 / static_cast<double>(std::max<std::uint64_t>(1, nodes));
  const double largest = 4 * static_cast<double>(largest_layer_params);
  double gpu = 0, cpu = 0;  // zero_init = True, DeepSpeed's default branch
  if (offload_optimizer && offload_params) {
    gpu = largest;
    cpu = p * 18 * gpus_factor * kDeepSpeedBufferFactor;
  } else if (offload_optimizer) {
    gpu = largest + static_cast<double>(static_cast<std::uint64_t>(2 * p / total_gpus));
    cpu = p * 16 * gpus_factor * kDeepSpeedBufferFactor;
  } else {
    gpu = largest + static_cast<double>(static_cast<std::uint64_t>(18 * p / total_gpus));
    cpu = static_cast<double>(largest_layer_params) * 4 * static_cast<double>(gpus_per_node) * kDeepSpeedBufferFactor;
  }
  return {static_cast<std::uint64_t>(gpu), static_cast<std::uint64_t>(cpu)};
}

SlowdownRange offload_slowdown(Offload offload) {
  switch (offload) {
    case Offload::none: return {1.0, 1.0, message("explain.slowdown.source_none", "no offload")};
    case Offload::optimizer:
      return {1.3, 1.4,
              message("explain.slowdown.source_optimizer",
                      "\"GPU-Speicher\": ZeRO-Offload of a 13B model trains 30-40 % longer")};
    case Offload::params:
      return {1.5, 2.5,
              message("explain.slowdown.source_params",
                      "assumption: parameters also cross PCIe in every forward and backward pass (ZeRO-Infinity "
                      "overlaps much of it at large batch); not a measured figure")};
    case Offload::nvme:
      return {2.0, 4.0,
              message("explain.slowdown.source_nvme",
                      "assumption: parameters and optimizer states stream from NVMe (a few GB/s) every step; "
                      "not a measured figure")};
  }
  return {1.0, 1.0, {}};
}

}  // namespace vramfit
