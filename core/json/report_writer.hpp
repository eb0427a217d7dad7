#pragma once
// Reports → JSON text, the form the CLI's --json prints and the bindings hand to JavaScript. Byte counts are
// integers; keys go in byte order within each object (json_writer.hpp); every answer carries "ok": true, and
// errors are {"ok": false, "error": {"field", "message"}} (error_to_json).
#include <cstdint>  // std::uint64_t
#include <string>   // std::string

#include "questions/evaluate.hpp"
#include "questions/evaluate_training.hpp"
#include "questions/gpu_ranking.hpp"
#include "questions/limits.hpp"
#include "questions/remedies.hpp"
#include "util/result.hpp"     // Error
#include "vramfit/vramfit.hpp"  // error_to_json, catalog_to_json

namespace vramfit {

// {"ok": false, "error": {"field", "message"}}: how every answer reports a wrong input.
std::string error_to_json(const Error& error);

// The inference report. With a GPU it carries "speed", "cost" and, at top level, "decode_tokens_per_second" and
// "prefill_tokens_per_second" ({low, high}); without one they are null.
std::string report_to_json(const Report& report);

// {"ok": true, "mode", "model", "inputs", "breakdown", "breakdown_role", "ranks", "host_ram_bytes",
// "nvme_bytes", "trainable_params", "gradient_convention", "slowdown", "activations", "time", "explanations",
// "notes", "gpus"}.
std::string training_report_to_json(const TrainingReport& report);

// {"ok": true, "budget_bytes", "gpu", "batch_limit", "max_batch", "max_context", "notes"}.
std::string limits_to_json(const Limits& limits);
// Columnar, as the page's chart takes it: {"ok": true, "axis", "xs": [..], "lines": [{"key", "values"}],
// "totals": [..], "low": [..], "high": [..]}; a training curve has no "low" and "high" (no range).
std::string curve_to_json(const Curve& curve);

std::string gpu_ranking_report_to_json(const GpuRankingReport& report);
std::string biggest_report_to_json(const BiggestReport& report);

// {"ok": true, "mode", "bytes", "gpu", "fit", "free_bytes", "notes", "remedies": [{"id", "inputs", "applicable",
// "bytes", "saved_bytes", "fit", "free_bytes", "host_ram_bytes", "cost", "source", "explanation":
// {"formula", "key", "source", "values"}}]}.
std::string remedies_report_to_json(const RemediesReport& report);

// A model file's header runs past the bytes given: {"ok": true, "need_prefix_bytes": N}, and for a sharded
// checkpoint "need_file": the shard that needs them.
std::string need_prefix_to_json(const ImportedModel& imported, bool sharded);

}  // namespace vramfit
