#pragma once
// Inverse questions on the monotone estimate: the largest context or batch that fits a GPU, and memory
// curves against context or batch for the page's chart, every point computed by estimate_inference (or, for a
// training scenario, estimate_training).
#include <cstdint>  // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>   // std::vector

#include "questions/evaluate.hpp"
#include "questions/evaluate_training.hpp"

namespace vramfit {

// What bounds the largest batch: the memory line, or the serving engine's own limit at the context (vLLM's and
// SGLang's KV pool is fixed by the GPU, so more sequences than it holds never run at once, whatever memory says).
enum class BatchLimit { memory, kv_pool, max_num_seqs, max_running_requests };
std::string_view batch_limit_name(BatchLimit limit) noexcept;  // "memory", "kv_pool", "max_num_seqs", ...

struct Limits {
  std::string gpu;
  std::uint64_t budget_bytes = 0;  // budget_bytes(usable, fit_headroom): the "fits" line of the GPU table
  std::uint64_t max_context = 0;   // 0: not even one token fits
  std::uint64_t max_batch = 0;
  BatchLimit batch_limit = BatchLimit::memory;
  std::vector<Message> notes;      // which engine limit binds the batch, when one does
};

// Binary search on estimate.total ≤ budget (total grows with context and with batch). Needs request.gpu.
Result<Limits> solve_limits(const Catalog& catalog, const Request& request);
// The same for a request already resolved (resolve_request), when other questions share the resolution.
Result<Limits> solve_limits(const ResolvedRequest& scenario);

enum class CurveAxis { context, batch };

// The x values of a curve. `values` (1–1024 of them, ascending) when given; else `points` (2–1024) spaced from
// `from` to `to`, duplicates dropped. Evenly by default: from 1 to `to` (0: context → the model's max context or 4×
// the scenario's; batch → 256). With `log`, geometrically, as a chart with a log axis reads them: `to` (0: context →
// the model's max context, else the scenario's, at least 2048; batch → 256) from `from` (0: context → 256 or an
// eighth of `to` if less; batch → 1).
struct CurveInputs {
  CurveAxis axis = CurveAxis::context;
  std::uint64_t points = 256;
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  bool log = false;
  std::vector<std::uint64_t> values;
};

// One column of a curve: a breakdown line ("weights", "kv_cache", ...) at every x.
struct CurveLine {
  const char* key = "";
  std::vector<std::uint64_t> values;
};

// Inference curves have the lines weights, kv_cache, state_cache, activations, overhead and allocator_reserve and
// the total's range (low, high); training curves the busiest rank's weights, gradients, optimizer, master_weights
// (part of the optimizer), activations, temporary and overhead, and no range (low and high empty). On the context
// axis a training curve varies the sequence, on the batch axis the micro-batch.
struct Curve {
  CurveAxis axis = CurveAxis::context;
  std::vector<std::uint64_t> x;
  std::vector<CurveLine> lines;
  std::vector<std::uint64_t> total, low, high;
};

// `points` evenly spaced x values (or exactly `values`); the other inputs as in the request.
Result<Curve> memory_curve(const Catalog& catalog, const Request& request, CurveAxis axis, std::uint64_t points,
                           std::uint64_t to = 0, const std::vector<std::uint64_t>& values = {});

Result<Curve> memory_curve(const Catalog& catalog, const Request& request, const CurveInputs& inputs);

// The curve of a resolved scenario. `base`: its estimate, whose weights every point reuses (null: the first
// point's).
Result<Curve> memory_curve(const ResolvedRequest& scenario, const CurveInputs& inputs,
                           const InferenceEstimate* base = nullptr);

// The curve of a training scenario: its estimate's options with the sequence or micro-batch at each x.
Result<Curve> training_curve(const TrainingReport& base, const CurveInputs& inputs);

}  // namespace vramfit
