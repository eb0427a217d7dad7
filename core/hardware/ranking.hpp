#pragma once
// Which GPU, how many, how fast and at what price: every configuration GPU type × count (tensor
// parallel when split) ranked for one scenario; and the home user's "biggest model I can run".
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t, std::int64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "hardware/gpu.hpp"
#include "hardware/fit.hpp"
#include "util/message.hpp"
#include "util/result.hpp"
#include "hardware/speed.hpp"

namespace vramfit {

// The memory a scenario needs: the part split across tensor-parallel GPUs (weights, KV cache,
// activations) and the part every GPU pays (runtime overhead).
struct MemoryNeed {
  std::uint64_t shardable_bytes = 0;
  std::uint64_t per_gpu_bytes = 0;
  // Per GPU count, the busiest GPU's bytes as the engine splits the model over that many (whole layers per GPU, the
  // output layer on one of them, tensor-parallel shards): what the answer for that setup says.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> split_bytes;  // {count, bytes}
};

// Bytes one GPU holds over `count` GPUs: split_bytes' figure for that count, else the shardable part split evenly,
// ceil(shardable / count) + per GPU, saturating instead of wrapping.
std::uint64_t bytes_per_gpu(const MemoryNeed& need, std::uint64_t count) noexcept;

// Memory in use that differs by GPU type: other vLLM or SGLang servers, each sized by the card it starts on.
struct GpuInUse {
  std::string gpu_id;
  std::uint64_t bytes = 0;  // in place of RankOptions::in_use_bytes on this GPU type
  Message refusal;          // why nothing runs on it beside them (one of them cannot load there); empty: it can
};

struct RankOptions {
  double headroom = kDefaultHeadroom;
  std::uint64_t in_use_bytes = 0;  // memory other programs hold on each GPU (usable_for)
  std::vector<GpuInUse> in_use_by_gpu;  // where a GPU type's differs; every count of it holds the same
  std::vector<std::uint64_t> counts = {1, 2, 4, 8};
  std::vector<std::string> gpus;              // ids or names; empty: the whole catalog
  std::optional<double> max_usd_per_hour;     // budget for the whole configuration
  SpeedOptions speed;                         // engine, batch (concurrency), KV per sequence
};

struct RankedConfig {
  const Gpu* gpu = nullptr;
  std::uint64_t count = 1;
  Fit fit = Fit::does_not_fit;
  bool fits = false;              // fit == Fit::fits (within the headroom)
  std::int64_t free_bytes = 0;    // per GPU: usable − needed; negative: short by that many bytes
  std::optional<Range> tokens_per_second;       // aggregate decode; none without a bandwidth figure
  std::optional<double> usd_per_hour;           // none: no catalog price
  std::optional<Range> usd_per_million_tokens;  // low = at the fast end
  std::optional<double> purchase_usd;           // count × the card's street price; none: no street price
  std::string purchase_date;                    // that price's date as the catalog gives it; empty without one
  bool within_budget = true;
  Message note;  // why a count is impossible or a speed is missing
};

struct GpuRanking {
  std::vector<RankedConfig> configs;  // fitting first (cheapest per 1M tokens, then fastest); then the rest
                                      // by how little they miss
  std::optional<std::size_t> cheapest_per_hour;  // indices into configs, fitting and within budget
  std::optional<std::size_t> cheapest_per_million_tokens;
  std::optional<std::size_t> fastest;
  // The fitting configuration cheapest to buy (street price × count); a budget per hour is for renting and does not
  // apply. With a cheapest per hour, the hours of renting that cost as much: its purchase ÷ that $/h.
  std::optional<std::size_t> cheapest_to_buy;
  std::optional<double> break_even_hours;
};

// Tensor parallel over `count` GPUs splits attention heads: count must divide both the attention
// and the KV heads (vLLM refuses the rest). An empty message when it does; else why not.
Message tensor_parallel_problem(const SpeedModel& model, std::uint64_t count);

Result<GpuRanking> rank_gpus(const SpeedModel& model, const MemoryNeed& need, const std::vector<Gpu>& catalog,
                                 const RankOptions& options);

// One (model, weight format) the home user could load, with its memory already estimated.
struct ModelCandidate {
  std::string model;   // preset id
  std::string format;  // weight format name
  std::uint64_t params = 0;
  double bits_per_weight = 0;  // weight bytes · 8 / params
  std::uint64_t total_bytes = 0;
};

// The candidate that fits `usable_bytes` within the headroom with the most parameters, then the most
// bits per weight (the better quantization); none when nothing fits.
std::optional<std::size_t> biggest_that_fits(const std::vector<ModelCandidate>& candidates,
                                             std::uint64_t usable_bytes, double headroom) noexcept;

}  // namespace vramfit
