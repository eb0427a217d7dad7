// Ranking GPU type × count, the home user's "biggest model on my card", and the seed article's tiers.
// The tiers use the tests' own memory arithmetic (weights_bytes + fp16 KV cache + a fixed 1 GiB,
// speed_fixtures.hpp), not estimate_inference, so they pin the article, not another module.
#include <doctest/doctest.h>

#include "../speed_fixtures.hpp"
#include "hardware/ranking.hpp"

using namespace vramfit;
using vramfit::test::gpu;
using vramfit::test::kTierOverheadBytes;
using vramfit::test::kv_bytes;
using vramfit::test::speed_model;
using vramfit::test::tier_total_bytes;
using vramfit::test::weights_of;

namespace {
bool fits_on(const char* gpu_id, std::uint64_t total) {
  return classify_fit(total, gpu(gpu_id).usable_bytes(), kDefaultHeadroom) == Fit::fits;
}
}  // namespace

TEST_CASE("seed tiers: 8 GB runs a 7B model in INT4 but not INT8") {
  CHECK(fits_on("rtx-4060", tier_total_bytes("llama-2-7b", "int4", 4096)));
  CHECK_FALSE(fits_on("rtx-4060", tier_total_bytes("llama-2-7b", "int8", 4096)));
}

TEST_CASE("seed tiers: 24 GB runs 13B in INT8; 70B in INT4 does not fit on the GPU alone") {
  CHECK(fits_on("rtx-4090", tier_total_bytes("llama-2-13b", "int8", 4096)));
  CHECK_FALSE(fits_on("rtx-4090", tier_total_bytes("llama-2-13b", "bf16", 4096)));
  // The article's "or at tiny context" does not hold for INT4: the weights alone (~35 GB) exceed 24 GiB,
  // so even a 1-token context does not fit.
  CHECK_FALSE(fits_on("rtx-4090", tier_total_bytes("llama-2-70b", "int4", 1)));
}

TEST_CASE("seed tiers: 48 GB runs 70B in INT4; 80 GB cards need two for 70B in FP16") {
  CHECK(fits_on("rtx-a6000", tier_total_bytes("llama-2-70b", "int4", 4096)));
  const std::uint64_t kv = kv_bytes("llama-2-70b", 4096);
  const std::uint64_t fp16 = weights_of("llama-2-70b", "fp16").total;
  CHECK(gpus_needed(fp16 + kv, kTierOverheadBytes, gpu("a100-80gb-sxm").usable_bytes(), kDefaultHeadroom) == 2);
}

TEST_CASE("the biggest model a card runs: most parameters first, then the most bits") {
  std::vector<ModelCandidate> candidates;
  for (const char* model : {"llama-2-7b", "llama-2-13b", "llama-2-70b"})
    for (const char* format : {"bf16", "int8", "int4"}) {
      const WeightBytes w = weights_of(model, format);
      candidates.push_back({model, format, w.params, 8.0 * static_cast<double>(w.total) / static_cast<double>(w.params),
                            tier_total_bytes(model, format, 4096)});
    }
  auto best = biggest_that_fits(candidates, gpu("rtx-4090").usable_bytes(), kDefaultHeadroom);
  REQUIRE(best.has_value());
  CHECK(candidates[*best].model == "llama-2-13b");
  CHECK(candidates[*best].format == "int8");
  auto small = biggest_that_fits(candidates, gpu("rtx-4060").usable_bytes(), kDefaultHeadroom);
  REQUIRE(small.has_value());
  CHECK(candidates[*small].model == "llama-2-7b");
  CHECK(candidates[*small].format == "int4");
  CHECK_FALSE(biggest_that_fits(candidates, 2 * kGiB, kDefaultHeadroom).has_value());
}

TEST_CASE("tensor parallel must divide the attention and KV heads") {
  const SpeedModel m = speed_model("llama-3.1-70b", "bf16");  // 64 heads, 8 KV heads
  CHECK(tensor_parallel_problem(m, 8).empty());
  CHECK(tensor_parallel_problem(m, 3).text.find("attention heads") != std::string::npos);
  SpeedModel odd = m;
  odd.num_kv_heads = 4;
  CHECK(tensor_parallel_problem(odd, 8).text.find("KV heads") != std::string::npos);
}

TEST_CASE("ranking 70B in bf16: fitting configurations, the picks, and how far the rest miss") {
  const SpeedModel m = speed_model("llama-3.1-70b", "bf16");
  const std::uint64_t kv = kv_bytes("llama-3.1-70b", 4096);
  MemoryNeed need{weights_of("llama-3.1-70b", "bf16").total + 16 * kv, kTierOverheadBytes, {}};
  RankOptions o;
  o.gpus = {"h100-sxm", "a100-80gb-sxm", "rtx-4090", "l40s"};
  o.counts = {1, 2, 3, 4, 8};
  o.speed.engine = Engine::vllm;
  o.speed.batch = 16;
  o.speed.context_tokens = 4096;
  o.speed.kv_bytes_per_sequence = kv;
  auto rec = rank_gpus(m, need, vramfit::test::catalog().gpus, o);
  REQUIRE(rec.ok());
  const GpuRanking& r = rec.value();
  CHECK(r.configs.size() == 20);
  for (const RankedConfig& c : r.configs) {
    CAPTURE(c.gpu->id);
    CAPTURE(c.count);
    if (c.count == 3) CHECK_FALSE(c.fits);  // 3 divides neither 64 nor 8 heads
    if (c.count == 1) CHECK_FALSE(c.fits);  // ~141 GB of weights on one card
    // Per-GPU free bytes = usable − (ceil(shardable / count) + per-GPU overhead).
    const std::uint64_t per_gpu = (need.shardable_bytes + c.count - 1) / c.count + need.per_gpu_bytes;
    CHECK(c.free_bytes == static_cast<std::int64_t>(c.gpu->usable_bytes()) - static_cast<std::int64_t>(per_gpu));
    if (c.fits) {
      REQUIRE(c.tokens_per_second.has_value());
      CHECK(c.tokens_per_second->low > 0);
    }
  }
  // Fitting ones come first, and the first not-fitting one misses by the least.
  CHECK(r.configs.front().fits);
  REQUIRE(r.cheapest_per_hour.has_value());
  // Cheapest per hour, by hand from data/gpus.json: 8 × RTX 4090 at 0.34 = 2.72 $/h, below
  // 2 × A100 80 GB at 1.39 = 2.78 $/h and 4 × L40S at 0.79 = 3.16 $/h (2 × L40S is 96 GiB: too small).
  CHECK(r.configs[*r.cheapest_per_hour].gpu->id == "rtx-4090");
  CHECK(r.configs[*r.cheapest_per_hour].count == 8);
  CHECK(*r.configs[*r.cheapest_per_hour].usd_per_hour == doctest::Approx(2.72));
  REQUIRE(r.fastest.has_value());
  CHECK(r.configs[*r.fastest].gpu->id == "h100-sxm");  // 3350 GB/s each and NVLink
  REQUIRE(r.cheapest_per_million_tokens.has_value());
  CHECK(r.configs[*r.cheapest_per_million_tokens].fits);

  SUBCASE("a budget keeps the picks within it") {
    o.max_usd_per_hour = 3.0;
    auto budget = rank_gpus(m, need, vramfit::test::catalog().gpus, o);
    REQUIRE(budget.ok());
    REQUIRE(budget.value().fastest.has_value());
    CHECK(*budget.value().configs[*budget.value().fastest].usd_per_hour <= 3.0);
  }
  SUBCASE("bad options name the field") {
    o.headroom = 1.5;
    CHECK(rank_gpus(m, need, vramfit::test::catalog().gpus, o).error().field == "headroom");
    o.headroom = 0.1;
    o.gpus = {"no-such-gpu"};
    CHECK(rank_gpus(m, need, vramfit::test::catalog().gpus, o).error().field == "gpus");
  }
}

TEST_CASE("an Apple chip is ranked alone: two of them are not a configuration") {
  // Llama-2-7B in int4 (~3.9 GB with a 4096-token fp16 KV cache and 1 GiB) fits one M4 Max 128 GB many times
  // over; a count of 2 would fit on paper, but a Mac has one GPU.
  const SpeedModel m = speed_model("llama-2-7b", "int4");
  MemoryNeed need{weights_of("llama-2-7b", "int4").total + kv_bytes("llama-2-7b", 4096), kTierOverheadBytes, {}};
  RankOptions o;
  o.gpus = {"apple-m4-max-128gb", "rtx-4090"};
  o.counts = {1, 2};
  auto rec = rank_gpus(m, need, vramfit::test::catalog().gpus, o);
  REQUIRE(rec.ok());
  int apple_pairs = 0;
  for (const RankedConfig& c : rec.value().configs) {
    CAPTURE(c.gpu->id);
    CAPTURE(c.count);
    if (c.gpu->id == "apple-m4-max-128gb" && c.count == 2) {
      ++apple_pairs;
      CHECK_FALSE(c.fits);
      CHECK(c.note.text.find("one GPU per machine") != std::string::npos);
    } else {
      CHECK(c.fits);  // one M4 Max, one or two RTX 4090s
    }
  }
  CHECK(apple_pairs == 1);
}
