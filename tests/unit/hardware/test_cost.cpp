// Cost: rented GPU-hours, $/1M output tokens, training runs and owned cards' electricity.
#include <doctest/doctest.h>

#include "../test_support.hpp"
#include "hardware/cost.hpp"

using namespace vramfit;
using vramfit::test::gpu;

TEST_CASE("an hour of N GPUs costs N times the catalog's dated per-GPU price") {
  // data/gpus.json: H100 SXM 3.78 $/h (Lambda, 2026-05) → 8 GPUs: 30.24 $/h.
  CHECK(*usd_per_hour(gpu("h100-sxm"), 8) == doctest::Approx(30.24));
  CHECK(*usd_per_hour(gpu("rtx-4090"), 1) == doctest::Approx(0.34));
}

TEST_CASE("a GPU without a cloud price has no price, never zero") {
  CHECK_FALSE(usd_per_hour(gpu("rtx-4060"), 1).has_value());
  CHECK_FALSE(usd_per_hour(gpu("h100-sxm"), 0).has_value());
}

TEST_CASE("buying N cards costs N times the catalog's dated street price; none without one") {
  // data/gpus.json: RTX 3090 street_usd 1499 (launch price, 2020-09) → 2 cards: 2998 $; Tesla P40 260 (used, 2026-06).
  CHECK(*purchase_usd(gpu("rtx-3090"), 2) == doctest::Approx(2998));
  CHECK(*purchase_usd(gpu("tesla-p40"), 2) == doctest::Approx(520));
  CHECK_FALSE(purchase_usd(gpu("h100-sxm"), 1).has_value());  // rented only: no street price
  CHECK_FALSE(purchase_usd(gpu("rtx-3090"), 0).has_value());
}

TEST_CASE("break-even: the hours of renting that cost as much as buying") {
  // 520 $ ÷ 0.33 $/h = 1575.76 h.
  CHECK(break_even_hours(520, 0.33).value() == doctest::Approx(1575.7576));
  CHECK(break_even_hours(0, 0.33).error().field == "purchase_usd");
  CHECK(break_even_hours(520, 0).error().field == "usd_per_hour");
}

TEST_CASE("dollars per million output tokens follow from $/h and aggregate tokens/s") {
  // 3.78 $/h at 1000 t/s: 3.6 M tokens an hour → 3.78 / 3.6 = 1.05 $ per 1M tokens.
  CHECK(usd_per_million_tokens(3.78, 1000).value() == doctest::Approx(1.05));
  // Concurrency raises aggregate throughput and lowers the price per token: 30 t/s → 35 $/1M.
  CHECK(usd_per_million_tokens(3.78, 30).value() == doctest::Approx(35.0));
  CHECK(usd_per_million_tokens(0, 1000).error().field == "usd_per_hour");
  CHECK(usd_per_million_tokens(3.78, 0).error().field == "tokens_per_second");
}

TEST_CASE("a training run costs its GPU-hours at the hourly price") {
  // 8 GPUs for 24 h = 192 GPU-hours at 2.50 $/h = 480 $.
  CHECK(training_run_usd(192, 2.5).value() == doctest::Approx(480));
  CHECK(training_run_usd(-1, 2.5).error().field == "gpu_hours");
  CHECK(training_run_usd(10, 0).error().field == "usd_per_gpu_hour");
}

TEST_CASE("an owned card's energy is its board power times utilisation and hours") {
  // RTX 4090: 450 W. Half-loaded for 10 h: 0.45 kW · 0.5 · 10 h = 2.25 kWh; at 0.30 $/kWh 0.675 $.
  auto e = energy_cost(gpu("rtx-4090"), 1, 10, 0.5, 0.30);
  REQUIRE(e.ok());
  CHECK(e.value().kwh == doctest::Approx(2.25));
  CHECK(e.value().usd == doctest::Approx(0.675));
  // Two cards: twice the energy.
  CHECK(energy_cost(gpu("rtx-4090"), 2, 10, 0.5, 0.30).value().kwh == doctest::Approx(4.5));
  CHECK(energy_cost(gpu("rtx-4090"), 1, 10, 1.5, 0.30).error().field == "utilisation");
  CHECK(energy_cost(gpu("a10g"), 1, 10, 0.5, 0.30).error().field == "gpu");  // no TDP in the catalog
}
