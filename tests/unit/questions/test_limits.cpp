// The solvers: largest context and batch on a GPU, and memory curves.
#include "../test_support.hpp"
#include "questions/limits.hpp"

using namespace vramfit;

TEST_CASE("the largest context is the last one under the budget") {
  Request r;
  r.model = "llama-3.1-8b";
  r.gpu = "rtx-4090";
  auto limits = solve_limits(test::catalog(), r);
  REQUIRE(limits.ok());
  const auto& l = limits.value();
  // Budget: 24 GiB × 0.9 = 23,192,823,398 B. Weights 16,060,522,496 B, overhead 570,425,344 B, KV
  // 131,072 B/token: the context must leave (23.19 − 16.06 − 0.57) GB ≈ 6.56 GB for KV + activations
  // (51,200 × 2 B = 102,400 B/token of MLP peak): ≈ 6.56e9 / 233,472 ≈ 28,100 tokens at most.
  CHECK(l.max_context > 20'000);
  CHECK(l.max_context < 28'200);
  InferenceOptions o;
  o.context_tokens = l.max_context;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).value().total <= l.budget_bytes);
  o.context_tokens = l.max_context + 1;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).value().total > l.budget_bytes);
  CHECK(l.max_batch >= 1);
}

TEST_CASE("the solvers need a GPU and say so") {
  Request r;
  r.model = "llama-3.1-8b";
  auto limits = solve_limits(test::catalog(), r);
  REQUIRE_FALSE(limits.ok());
  CHECK(limits.error().field == "gpu");
}

TEST_CASE("a context curve is monotone and each point is the estimate itself") {
  Request r;
  r.model = "qwen2.5-7b";
  auto curve = memory_curve(test::catalog(), r, CurveAxis::context, 256);
  REQUIRE(curve.ok());
  const auto& c = curve.value();
  REQUIRE(c.x.size() >= 200);
  CHECK(c.x.front() == 1);
  for (std::size_t i = 1; i < c.x.size(); ++i) CHECK(c.total[i] >= c.total[i - 1]);
  InferenceOptions o;
  o.context_tokens = c.x[100];
  CHECK(estimate_inference(test::preset("qwen2.5-7b"), o).value().total == c.total[100]);
  auto batch = memory_curve(test::catalog(), r, CurveAxis::batch, 16);
  REQUIRE(batch.ok());
  CHECK(batch.value().x.back() == 256);
  CHECK_FALSE(memory_curve(test::catalog(), r, CurveAxis::batch, 1).ok());
}
