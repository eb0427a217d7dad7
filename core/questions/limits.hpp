#pragma once
// Inverse questions on the monotone estimate: the largest context or batch that fits a GPU, and memory
// curves against context or batch for the page's chart, every point computed by estimate_inference.
#include <cstdint>  // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>   // std::vector

#include "questions/evaluate.hpp"

namespace vramfit {

struct Limits {
  std::string gpu;
  std::uint64_t budget_bytes = 0;  // usable × (1 − headroom): the "fits" line of classify_fit
  std::uint64_t max_context = 0;   // 0: not even one token fits
  std::uint64_t max_batch = 0;
};

// Binary search on estimate.total ≤ budget (total grows with context and with batch). Needs request.gpu.
Result<Limits> solve_limits(const Catalog& catalog, const Request& request);

enum class CurveAxis { context, batch };

struct Curve {
  CurveAxis axis = CurveAxis::context;
  std::vector<std::uint64_t> x;
  std::vector<std::uint64_t> weights, kv_cache, activations, overhead, allocator_reserve, total, low, high;
};

// `points` (2–1024) x values spaced evenly from 1 to `to` (0: context → the model's max context or 4×
// the request's; batch → 256), duplicates dropped; or exactly `values` (1–1024 of them, ascending) when
// given. The other inputs as in the request.
Result<Curve> memory_curve(const Catalog& catalog, const Request& request, CurveAxis axis, std::uint64_t points,
                           std::uint64_t to = 0, const std::vector<std::uint64_t>& values = {});

// The binding's form: a request JSON plus "axis" ("context" | "batch") and "points" (default 256), "to", or
// "values" (explicit x values). Returns curve_to_json or error_to_json.
std::string memory_curve_json(const Catalog& catalog, std::string_view request_json);

// {"ok":true,"gpu","budget_bytes","max_context","max_batch"}.
std::string limits_to_json(const Limits& limits);
// Columnar, as the page's chart takes it: {"ok":true,"axis","xs":[..],"lines":[{"key","values":[..]}, one per
// breakdown line],"totals":[..],"low":[..],"high":[..]}.
std::string curve_to_json(const Curve& curve);

}  // namespace vramfit
