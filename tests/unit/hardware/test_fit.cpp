// Fitting estimates onto GPUs: the seed article's capacity examples.
#include "../test_support.hpp"
#include "hardware/fit.hpp"
#include "util/units.hpp"

using namespace vramfit;

TEST_CASE("seed article: 70B in FP16 (140 GB) does not fit one 80 GB H100 and needs two") {
  ModelSpec s;
  s.bare_params = 70'000'000'000;
  InferenceOptions o;
  o.weights = DType::fp16;
  auto e = estimate_inference(s, o);
  REQUIRE(e.ok());
  const Gpu& h100 = test::gpu("h100-sxm");
  CHECK(h100.memory_bytes == 80 * kGiB);
  auto fits = check_fit(e.value(), {h100}, kDefaultHeadroom);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].fit == Fit::does_not_fit);
  // 140e9 B + 0.5 GiB per card against 80 GiB × 0.9 = 77.3e9 B usable: 2 cards.
  CHECK(fits[0].gpus_needed == 2);
}

TEST_CASE("seed article: a 1T model's 2 TB of FP16 weights needs at least 25 H100s") {
  // The article divides 2 TB by 80 GB (decimal) = 25. An H100's 80 GB are 80 GiB = 85.9e9 B, so the
  // weights alone would squeeze into ceil(2e12 / 85,899,345,920) = 24 cards with not one byte spare.
  const std::uint64_t usable = test::gpu("h100-sxm").usable_bytes();
  CHECK(gpus_needed(2'000'000'000'000ULL, 0, usable, 0.0) == 24);
  // With the CUDA context on every card and 10 % headroom it takes
  // ceil(2e12 / (77,309,411,328 − 536,870,912)) = 27 cards: "at least 25" holds.
  CHECK(gpus_needed(2'000'000'000'000ULL, kCudaContextBytes, usable, kDefaultHeadroom) == 27);
}

TEST_CASE("fit classes: fits below the headroom line, tight within it, no above capacity") {
  CHECK(classify_fit(89, 100, 0.1) == Fit::fits);
  CHECK(classify_fit(90, 100, 0.1) == Fit::fits);
  CHECK(classify_fit(91, 100, 0.1) == Fit::tight);
  CHECK(classify_fit(100, 100, 0.1) == Fit::tight);
  CHECK(classify_fit(101, 100, 0.1) == Fit::does_not_fit);
}

TEST_CASE("vLLM keeps free at least the share gpu_memory_utilization leaves it; other engines the headroom") {
  // vLLM takes gpu_memory_utilization of the GPU and no more (vLLM docs, EngineArgs): at 0.8 the fit line
  // keeps 1 − 0.8 = 0.2 free, above the 0.1 headroom; at its default 0.9, 1 − 0.9 = 0.1 equals the headroom.
  CHECK(fit_headroom(Engine::vllm, 0.1, 0.8) == 0.2);
  CHECK(fit_headroom(Engine::vllm, 0.1, 0.9) == 0.1);
  CHECK(fit_headroom(Engine::vllm, 0.3, 0.9) == 0.3);
  CHECK(fit_headroom(Engine::transformers, 0.1, 0.8) == 0.1);
  CHECK(fit_headroom(Engine::llamacpp, 0.1, 0.8) == 0.1);
}

TEST_CASE("the budget is usable × (1 − headroom), and it is the fits line") {
  // An H100 SXM: memory_gib 80 in data/gpus.json = 85,899,345,920 B. × 0.8 = 68,719,476,736 B (64 GiB);
  // × 0.9 = 77,309,411,328 B (72 GiB).
  const std::uint64_t usable = test::gpu("h100-sxm").usable_bytes();
  CHECK(usable == 85'899'345'920ULL);
  CHECK(budget_bytes(usable, 0.2) == 68'719'476'736ULL);
  CHECK(budget_bytes(usable, 0.1) == 77'309'411'328ULL);
  CHECK(classify_fit(68'719'476'736ULL, usable, 0.2) == Fit::fits);
  CHECK(classify_fit(68'719'476'737ULL, usable, 0.2) == Fit::tight);
  CHECK(budget_bytes(100, 1.5) == 100);  // a headroom outside [0, 1) keeps nothing back
}

TEST_CASE("seed article: 13B in FP16 (26 GB) overshoots a 24 GB card; INT8 fits with room for KV") {
  ModelSpec s;
  s.bare_params = 13'000'000'000;
  InferenceOptions o;
  o.weights = DType::fp16;
  const Gpu& rtx4090 = test::gpu("rtx-4090");
  auto fp16 = check_fit(estimate_inference(s, o).value(), {rtx4090}, kDefaultHeadroom);
  CHECK(fp16[0].fit == Fit::does_not_fit);  // 26e9 + 0.5 GiB > 24 GiB = 25.8e9 B
  o.weights = DType::int8;
  auto int8 = check_fit(estimate_inference(s, o).value(), {rtx4090}, kDefaultHeadroom);
  CHECK(int8[0].fit == Fit::fits);  // 13e9 + 0.5 GiB < 0.9 × 25.8e9 B
}

TEST_CASE("seed article: Llama-2-7B in INT4 runs on an 8 GB card") {
  InferenceOptions o;
  o.weights = DType::int4;
  o.context_tokens = 4096;
  auto e = estimate_inference(test::preset("llama-2-7b"), o);
  REQUIRE(e.ok());
  // 3.37 GB weights + 2.15 GB fp16 KV (524,288 B × 4096) + activations + 0.5 GiB < 7.2 GiB.
  auto fits = check_fit(e.value(), {test::gpu("rtx-4060")}, kDefaultHeadroom);
  CHECK(fits[0].fit == Fit::fits);
}

TEST_CASE("Apple unified memory counts only the GPU's default share") {
  for (const auto& g : test::catalog().gpus) {
    if (g.segment != "apple") continue;
    CAPTURE(g.id);
    REQUIRE(g.unified_memory);
    CHECK(g.usable_bytes() < g.memory_bytes);
  }
}

TEST_CASE("an Apple chip is one GPU per machine: a model too big for it never \"needs 2\"") {
  // Llama-3.1-8B bf16 at 8192 tokens: 16,060,522,496 B of weights alone exceed the M3 24 GB's GPU share
  // (24 GiB × 2/3 ≈ 16.00 GiB usable, and with KV + activations the total is ~18.5 GB).
  vramfit::InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  auto fits = check_fit(e.value(), {test::gpu("apple-m3-24gb"), test::gpu("apple-m3-max-128gb"), test::gpu("rtx-3060-12gb")},
                        kDefaultHeadroom);
  CHECK(fits[0].fit == Fit::does_not_fit);
  CHECK(fits[0].gpus_needed == 0);  // not 2: there is no second M3 in the machine
  CHECK(fits[1].fit == Fit::fits);  // 128 GB × 3/4 = 96 GiB
  CHECK(fits[1].gpus_needed == 1);
  CHECK(fits[2].fit == Fit::does_not_fit);  // a 12 GB discrete card: split across two
  CHECK(fits[2].gpus_needed == 2);
}
