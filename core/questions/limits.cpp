#include "questions/limits.hpp"

#include <algorithm>  // std::max

#include "util/units.hpp"

namespace vramfit {
namespace {

// Largest v in [1, hi] with fits(v), assuming fits is monotone (true then false); 0 if fits(1) is false.
template <class Fits>
Result<std::uint64_t> largest(std::uint64_t hi, Fits fits) {
  auto one = fits(1);
  if (!one) return one.error();
  if (!one.value()) return std::uint64_t{0};
  std::uint64_t lo = 1;  // fits
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    auto ok = fits(mid);
    if (!ok) return ok.error();
    if (ok.value()) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace

Result<Limits> solve_limits(const Catalog& catalog, const Request& request) {
  if (request.gpu.empty()) return make_error("gpu", "the largest context and batch need a GPU to fit on");
  auto resolved = resolve_request(catalog, request);
  if (!resolved) return resolved.error();
  const auto& r = resolved.value();
  Limits out;
  out.gpu = r.gpu->id;
  out.budget_bytes = budget_bytes(r.gpu->usable_bytes(), r.fit_headroom);  // the GPU table's "fits" line
  auto fits_with = [&](std::uint64_t context, std::uint64_t batch) -> Result<bool> {
    InferenceOptions o = r.options;
    o.context_tokens = context;
    o.batch = batch;
    if (o.avg_tokens && *o.avg_tokens > context) o.avg_tokens = context;
    auto e = estimate_inference(r.model, o);
    if (!e) {
      if (e.error().field == "context" || e.error().field == "batch") return false;  // overflow: far too big
      return e.error();
    }
    return e.value().total <= out.budget_bytes;
  };
  auto context = largest(kMaxContextTokens, [&](std::uint64_t c) { return fits_with(c, r.options.batch); });
  if (!context) return context.error();
  out.max_context = context.value();
  auto batch = largest(kMaxBatch, [&](std::uint64_t b) { return fits_with(r.options.context_tokens, b); });
  if (!batch) return batch.error();
  out.max_batch = batch.value();
  return out;
}

Result<Curve> memory_curve(const Catalog& catalog, const Request& request, CurveAxis axis, std::uint64_t points,
                           std::uint64_t to, const std::vector<std::uint64_t>& values) {
  if (values.empty() && (points < 2 || points > 1024))
    return make_error("points", "must be between 2 and 1024, got " + std::to_string(points));
  if (values.size() > 1024) return make_error("values", "at most 1024 values");
  auto resolved = resolve_request(catalog, request);
  if (!resolved) return resolved.error();
  const auto& r = resolved.value();
  if (to == 0) {
    to = axis == CurveAxis::batch ? 256
                                  : std::max(r.model.max_context, std::min(kMaxContextTokens, 4 * r.options.context_tokens));
  }
  const std::uint64_t limit = axis == CurveAxis::batch ? kMaxBatch : kMaxContextTokens;
  if (to > limit) return make_error("to", "must be at most " + std::to_string(limit));
  std::vector<std::uint64_t> xs = values;
  for (std::uint64_t i = 0; xs.empty() || (values.empty() && i < points); ++i)
    xs.push_back(1 + static_cast<std::uint64_t>(static_cast<double>(to - 1) * static_cast<double>(i) /
                                                static_cast<double>(points - 1)));
  Curve c;
  c.axis = axis;
  InferenceOptions base = r.options;  // after the first point: the weights and their tensors, computed once
  base.explain = false;
  for (const std::uint64_t x : xs) {
    if (x < 1 || x > limit) return make_error("values", "must be between 1 and " + std::to_string(limit));
    if (!c.x.empty() && c.x.back() >= x) continue;  // ascending, no duplicates
    InferenceOptions o = base;
    (axis == CurveAxis::batch ? o.batch : o.context_tokens) = x;
    if (o.avg_tokens && *o.avg_tokens > o.context_tokens) o.avg_tokens = o.context_tokens;
    auto e = estimate_inference(r.model, o);
    if (!e) return e.error();
    const auto& v = e.value();
    if (!base.weight_tensor_bytes) {
      base.exact_weights = v.weight_detail;
      base.weight_tensor_bytes = v.weight_tensor_bytes;
    }
    c.x.push_back(x);
    c.weights.push_back(v.weights);
    c.kv_cache.push_back(v.kv_cache);
    c.activations.push_back(v.activations);
    c.overhead.push_back(v.overhead);
    c.allocator_reserve.push_back(v.allocator_reserve);
    c.total.push_back(v.total);
    c.low.push_back(v.range.low);
    c.high.push_back(v.range.high);
  }
  return c;
}

}  // namespace vramfit
