// Inference totals: the seed article's examples with their arithmetic, and the breakdown's shape.
#include "test_support.hpp"
#include "vramfit/inference.hpp"

using namespace vramfit;

namespace {
ModelSpec bare(std::uint64_t params) {
  ModelSpec s;
  s.bare_params = params;
  return s;
}
std::uint64_t weights_of(std::uint64_t params, DType dtype) {
  InferenceOptions o;
  o.weights = dtype;
  auto e = estimate_inference(bare(params), o);
  REQUIRE(e.ok());
  return e.value().weights;
}
}  // namespace

TEST_CASE("seed article: a 7B model needs 14 GB in FP16, 7 GB in INT8, 3.5 GB in INT4") {
  CHECK(weights_of(7'000'000'000, DType::fp16) == 14'000'000'000ULL);  // 7e9 × 2 B
  CHECK(weights_of(7'000'000'000, DType::int8) == 7'000'000'000ULL);   // 7e9 × 1 B
  CHECK(weights_of(7'000'000'000, DType::int4) == 3'500'000'000ULL);   // 7e9 × 0.5 B
  CHECK(weights_of(7'000'000'000, DType::fp32) == 28'000'000'000ULL);  // 7e9 × 4 B: FP16 halves FP32
}

TEST_CASE("seed article: 13B in FP16 is 26 GB, 70B is 140 GB, 1T is 2 TB") {
  CHECK(weights_of(13'000'000'000, DType::fp16) == 26'000'000'000ULL);
  CHECK(weights_of(70'000'000'000, DType::fp16) == 140'000'000'000ULL);
  CHECK(weights_of(1'000'000'000'000, DType::fp16) == 2'000'000'000'000ULL);
}

TEST_CASE("the real Llama-2-70B weighs 137.95 GB in FP16") {
  // 68,976,648,192 params × 2 B = 137,953,296,384 B: the article's "140 GB" rounds 70B.
  InferenceOptions o;
  o.weights = DType::fp16;
  o.context_tokens = 4096;
  auto e = estimate_inference(test::preset("llama-2-70b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().weights == 137'953'296'384ULL);
}

TEST_CASE("the total is the sum of its lines, and every line is explained") {
  InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  const auto& v = e.value();
  CHECK(v.total == v.weights + v.kv_cache + v.activations + v.overhead);
  CHECK(v.kv_cache == 1'073'741'824ULL);  // 131,072 B × 8192
  CHECK(v.overhead == 512ULL * 1024 * 1024);
  for (const char* key : {"weights", "kv_cache", "activations", "overhead", "total"}) {
    bool found = false;
    for (const auto& x : v.explanations) found = found || x.key == key;
    CHECK_MESSAGE(found, key);
  }
}

TEST_CASE("prefill activations of Llama-3.1-8B at 8192 tokens follow the per-layer peak") {
  // MLP live set b·s·(2h + 3i)·2 B = 8192 × (8192 + 43008) × 2 = 838,860,800 B
  // (attention: 2h + 2·a·d + 2·kv·d = 8192 + 8192 + 2048 = 18,432 wide, smaller),
  // plus last-token fp32 logits 128,256 × 4 = 513,024 B → 839,373,824 B.
  InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().activations == 839'373'824ULL);
}

TEST_CASE("inputs out of range are refused with the field and the allowed range") {
  InferenceOptions o;
  o.context_tokens = 0;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "context");
  CHECK(e.error().message.find("between 1 and") != std::string::npos);
  o.context_tokens = 10;
  o.batch = 0;
  e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "batch");
}

TEST_CASE("huge batch × context does not wrap around") {
  InferenceOptions o;
  o.context_tokens = kMaxContextTokens;
  o.batch = kMaxBatch;
  auto e = estimate_inference(test::preset("llama-3.1-405b"), o);
  // 1e8 tokens × 1e6 sequences × 516,096 B per token overflows 2^64: an error, not a small number.
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "context");
}
