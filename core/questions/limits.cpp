#include "questions/limits.hpp"

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::llround, std::pow
#include <cstddef>    // std::size_t
#include <initializer_list>  // std::initializer_list
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

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

// The sequences vLLM or SGLang runs at once at the request's context, and what bounds them: vLLM's whole sequences
// in its KV pool (its "Maximum concurrency") within max_num_seqs; SGLang's within max_running_requests. None for
// other engines, or without a pool to read (its estimate's error is the memory search's to report).
struct EngineBatch {
  std::uint64_t batch = 0;
  BatchLimit limit = BatchLimit::kv_pool;
  Message note;
};
std::optional<EngineBatch> engine_batch(const ResolvedRequest& r) {
  if (!kv_pool_engine(r.options.engine)) return std::nullopt;
  InferenceOptions o = r.options;
  o.batch = 1;
  auto e = estimate_inference(r.model, o);
  if (!e) return std::nullopt;
  const std::string engine(engine_title(o.engine));
  const auto pool_note = [&](std::uint64_t sequences) {
    if (sequences == 0)
      return message("limits.batch_kv_pool_none",
                     "{engine}'s KV pool holds less than one sequence of {context} tokens: it would not start at this "
                     "context; a shorter one fits more.",
                     {arg::text("engine", engine), arg::count("context", o.context_tokens)});
    return message("limits.batch_kv_pool",
                   "{engine}'s KV pool holds {sequences} whole sequences of {context} tokens: more never run at "
                   "once, so that is the largest batch.",
                   {arg::text("engine", engine), arg::count("sequences", sequences),
                    arg::count("context", o.context_tokens)});
  };
  if (const auto& v = e.value().vllm) {
    if (!r.model.causal)  // no KV pool to bound it (an encoder): the scheduler's limit alone
      return EngineBatch{v->max_num_seqs, BatchLimit::max_num_seqs,
                         message("limits.batch_max_num_seqs_encoder",
                                 "vLLM keeps no KV cache for an encoder and runs at most max_num_seqs = {seqs} "
                                 "sequences at once: that is the largest batch.",
                                 {arg::count("seqs", v->max_num_seqs)})};
    if (v->max_num_seqs >= v->max_concurrency)
      return EngineBatch{v->max_concurrency, BatchLimit::kv_pool, pool_note(v->max_concurrency)};
    return EngineBatch{v->max_num_seqs, BatchLimit::max_num_seqs,
                       message("limits.batch_max_num_seqs",
                               "vLLM runs at most max_num_seqs = {seqs} sequences at once, fewer than the {sequences} "
                               "its KV pool holds at {context} tokens: that is the largest batch.",
                               {arg::count("seqs", v->max_num_seqs), arg::count("sequences", v->max_concurrency),
                                arg::count("context", o.context_tokens)})};
  }
  if (const auto& s = e.value().sglang) {
    const std::uint64_t pool = s->max_total_num_tokens / s->context_len;
    if (pool <= s->max_running_requests) return EngineBatch{pool, BatchLimit::kv_pool, pool_note(pool)};
    return EngineBatch{s->max_running_requests, BatchLimit::max_running_requests,
                       message("limits.batch_max_running_requests",
                               "SGLang runs at most max_running_requests = {requests} requests at once, fewer than the "
                               "{sequences} its KV pool holds at {context} tokens: that is the largest batch.",
                               {arg::count("requests", s->max_running_requests), arg::count("sequences", pool),
                                arg::count("context", o.context_tokens)})};
  }
  return std::nullopt;
}

}  // namespace

std::string_view batch_limit_name(BatchLimit limit) noexcept {
  switch (limit) {
    case BatchLimit::memory: return "memory";
    case BatchLimit::kv_pool: return "kv_pool";
    case BatchLimit::max_num_seqs: return "max_num_seqs";
    case BatchLimit::max_running_requests: return "max_running_requests";
  }
  return "memory";
}

Result<Limits> solve_limits(const Catalog& catalog, const Request& request) {
  if (request.gpu.empty()) return make_error("gpu", message("limits.needs_gpu", "the largest context and batch need a GPU to fit on"));
  auto resolved = resolve_request(catalog, request);
  if (!resolved) return resolved.error();
  return solve_limits(resolved.value());
}

Result<Limits> solve_limits(const ResolvedRequest& r) {
  if (!r.gpu) return make_error("gpu", message("limits.needs_gpu", "the largest context and batch need a GPU to fit on"));
  Limits out;
  out.gpu = r.gpu->id;
  const std::uint64_t usable = usable_for(*r.gpu, r.options.memory_in_use);
  out.budget_bytes = budget_bytes(usable, r.fit_headroom);  // the GPU table's "fits" line
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
    return estimate_fit(e.value(), usable, r.fit_headroom) == Fit::fits;
  };
  auto context = largest(kMaxContextTokens, [&](std::uint64_t c) { return fits_with(c, r.options.batch); });
  if (!context) return context.error();
  out.max_context = context.value();
  // Learned absolute position embeddings (GPT-2, BERT) have one row per position: no context goes past them.
  if (const std::uint64_t positions = r.model.learned_positions; positions && out.max_context > positions) {
    out.notes.push_back(message("limits.context_learned_positions",
                                "{model} has learned position embeddings for {positions} tokens and can read no "
                                "more: that is its largest context.",
                                {arg::text("model", r.model.name.empty() ? std::string("The model") : r.model.name),
                                 arg::count("positions", positions)}));
    out.max_context = positions;
  }
  auto batch = largest(kMaxBatch, [&](std::uint64_t b) { return fits_with(r.options.context_tokens, b); });
  if (!batch) return batch.error();
  out.max_batch = batch.value();
  if (auto cap = engine_batch(r); cap && cap->batch <= out.max_batch) {
    out.max_batch = cap->batch;
    out.batch_limit = cap->limit;
    out.notes.push_back(std::move(cap->note));
  }
  return out;
}

namespace {

// The x values CurveInputs describes, for a scenario at `context` tokens whose model allows `max_context`.
Result<std::vector<std::uint64_t>> curve_xs(const CurveInputs& in, std::uint64_t context, std::uint64_t max_context) {
  if (in.values.size() > 1024) return make_error("values", message("curve.values_max", "at most 1024 values"));
  if (!in.values.empty()) return in.values;
  if (in.points < 2 || in.points > 1024)
    return make_error("points", message("curve.points_range", "must be between 2 and 1024, got {points}",
                                                {arg::digits("points", in.points)}));
  const bool batch = in.axis == CurveAxis::batch;
  const std::uint64_t limit = batch ? kMaxBatch : kMaxContextTokens;
  std::uint64_t to = in.to;
  if (to == 0 && batch) to = 256;
  else if (to == 0 && in.log) to = std::max<std::uint64_t>(max_context ? max_context : context, 2048);
  else if (to == 0) to = std::max(max_context, std::min(kMaxContextTokens, 4 * context));
  if (to > limit) return make_error("to", message("curve.to_max", "must be at most {max}", {arg::digits("max", limit)}));
  double from = in.from != 0 ? static_cast<double>(in.from)
                : in.log && !batch ? std::max(1.0, std::min(256.0, static_cast<double>(to) / 8))
                                   : 1.0;
  if (from >= static_cast<double>(to))
    return make_error("from", message("curve.from_below", "must be below to ({to}), got {from}",
                                      {arg::digits("to", to), arg::digits("from", in.from)}));
  std::vector<std::uint64_t> xs;
  const double span = static_cast<double>(in.points - 1);
  for (std::uint64_t i = 0; i < in.points; ++i) {
    const double step = static_cast<double>(i);
    xs.push_back(in.log ? static_cast<std::uint64_t>(std::llround(from * std::pow(static_cast<double>(to) / from, step / span)))
                        : static_cast<std::uint64_t>(from) +
                              static_cast<std::uint64_t>((static_cast<double>(to) - from) * step / span));
  }
  return xs;
}

// Walks the x values in order, skipping duplicates and refusing values out of range; `point(x)` adds one point.
template <class Point>
std::optional<Error> each_x(const std::vector<std::uint64_t>& xs, CurveAxis axis, Curve& c, Point point) {
  const std::uint64_t limit = axis == CurveAxis::batch ? kMaxBatch : kMaxContextTokens;
  for (const std::uint64_t x : xs) {
    if (x < 1 || x > limit)
      return make_error("values", message("curve.values_range", "must be between 1 and {max}", {arg::digits("max", limit)}));
    if (!c.x.empty() && c.x.back() >= x) continue;  // ascending, no duplicates
    if (auto e = point(x)) return e;
    c.x.push_back(x);
  }
  return std::nullopt;
}

Curve empty_curve(CurveAxis axis, std::initializer_list<const char*> keys) {
  Curve c;
  c.axis = axis;
  for (const char* key : keys) c.lines.push_back({key, {}});
  return c;
}

// The training core names fields as flags spell them ("micro-batch"); the request's keys use '_'.
Error with_request_field(Error e) {
  for (auto& ch : e.field)
    if (ch == '-') ch = '_';
  return e;
}

}  // namespace

Result<Curve> memory_curve(const Catalog& catalog, const Request& request, CurveAxis axis, std::uint64_t points,
                           std::uint64_t to, const std::vector<std::uint64_t>& values) {
  CurveInputs in;
  in.axis = axis;
  in.points = points;
  in.to = to;
  in.values = values;
  return memory_curve(catalog, request, in);
}

Result<Curve> memory_curve(const Catalog& catalog, const Request& request, const CurveInputs& in) {
  if (in.values.empty() && (in.points < 2 || in.points > 1024))
    return make_error("points", message("curve.points_range", "must be between 2 and 1024, got {points}",
                                                {arg::digits("points", in.points)}));
  if (in.values.size() > 1024) return make_error("values", message("curve.values_max", "at most 1024 values"));
  auto resolved = resolve_request(catalog, request);
  if (!resolved) return resolved.error();
  return memory_curve(resolved.value(), in);
}

Result<Curve> memory_curve(const ResolvedRequest& r, const CurveInputs& in, const InferenceEstimate* base_estimate) {
  auto xs = curve_xs(in, r.options.context_tokens, r.model.max_context);
  if (!xs) return xs.error();
  Curve c = empty_curve(in.axis, {"weights", "vision_encoder", "kv_cache", "state_cache", "activations", "overhead",
                                  "allocator_reserve"});
  InferenceOptions base = r.options;  // the weights and their tensors, computed once: by the scenario or point one
  base.explain = false;
  if (base_estimate) {
    base.exact_weights = base_estimate->weight_detail;
    base.weight_tensor_bytes = base_estimate->weight_tensor_bytes;
  }
  auto error = each_x(xs.value(), in.axis, c, [&](std::uint64_t x) -> std::optional<Error> {
    InferenceOptions o = base;
    (in.axis == CurveAxis::batch ? o.batch : o.context_tokens) = x;
    if (o.avg_tokens && *o.avg_tokens > o.context_tokens) o.avg_tokens = o.context_tokens;
    auto e = estimate_inference(r.model, o);
    if (!e) return e.error();
    const auto& v = e.value();
    if (!base.weight_tensor_bytes) {
      base.exact_weights = v.weight_detail;
      base.weight_tensor_bytes = v.weight_tensor_bytes;
    }
    const std::uint64_t columns[] = {v.weights,     v.vision_encoder, v.kv_cache,         v.state_cache,
                                     v.activations, v.overhead,       v.allocator_reserve};
    for (std::size_t i = 0; i < c.lines.size(); ++i) c.lines[i].values.push_back(columns[i]);
    c.total.push_back(v.total);
    c.low.push_back(v.range.low);
    c.high.push_back(v.range.high);
    return std::nullopt;
  });
  if (error) return *error;
  return c;
}

Result<Curve> training_curve(const TrainingReport& base, const CurveInputs& in) {
  auto xs = curve_xs(in, base.options.sequence, base.model.max_context);
  if (!xs) return xs.error();
  // GRPO adds its reference model and sampler; its sequence is prompt + completion, so the context axis moves the
  // completion.
  const bool grpo = base.options.grpo.has_value();
  Curve c = grpo ? empty_curve(in.axis, {"weights", "gradients", "optimizer", "master_weights", "activations",
                                         "temporary", "reference_model", "sampling", "overhead"})
                 : empty_curve(in.axis, {"weights", "gradients", "optimizer", "master_weights", "activations",
                                         "temporary", "overhead"});
  auto error = each_x(xs.value(), in.axis, c, [&](std::uint64_t x) -> std::optional<Error> {
    TrainingOptions o = base.options;
    if (in.axis == CurveAxis::batch) o.parallel.micro_batch = x;
    else if (!grpo) o.sequence = x;
    else if (x <= o.grpo->prompt_tokens)
      return make_error("values", message("curve.grpo_prompt",
                                          "GRPO's sequence is prompt + completion: each value must exceed the prompt "
                                          "({tokens} tokens)",
                                          {arg::digits("tokens", o.grpo->prompt_tokens)}));
    else o.grpo->completion_tokens = x - o.grpo->prompt_tokens;
    auto e = estimate_training(base.model, o);
    if (!e) return with_request_field(e.error());
    const RankMemory& b = e.value().breakdown;
    std::vector<std::uint64_t> columns{b.weights, b.gradients, b.optimizer, b.master_weights, b.activations, b.temporary};
    if (grpo) columns.insert(columns.end(), {b.reference_model, b.sampling});
    columns.push_back(b.overhead);
    for (std::size_t i = 0; i < c.lines.size(); ++i) c.lines[i].values.push_back(columns[i]);
    c.total.push_back(b.total);
    return std::nullopt;
  });
  if (error) return *error;
  return c;
}

}  // namespace vramfit
