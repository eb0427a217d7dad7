#pragma once
// The training flags (--mode train|lora|qlora, optimizer, precision, parallelism, offload) → a core TrainingRequest.
// parse_args() hands every flag for which is_training_flag() holds to apply_training_flag(); the flags the
// two modes share (--model, --params, --gpu, --headroom, --context, --batch) stay in cli_args.cpp and are
// carried over by training_request_from_shared().
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "util/result.hpp"
#include "questions/evaluate.hpp"
#include "questions/evaluate_training.hpp"

namespace vramfit::cli {

struct TrainingFlag {
  std::string_view name;
  std::string_view value;  // empty: a switch that takes no value (--sp)
  std::string_view help;
};

std::span<const TrainingFlag> training_flags() noexcept;
bool is_training_flag(std::string_view flag) noexcept;
bool training_flag_takes_value(std::string_view flag) noexcept;

// Checks the value and stores it. Errors name the flag and what is allowed, e.g.
// `--zero: invalid value "5"; allowed: 0, 1, 2 or 3 (FSDP: NO_SHARD = 0, SHARD_GRAD_OP = 2, FULL_SHARD = 3)`.
// `--mode inference` is stored as "inference": not a training request (is_training_mode), so the caller
// routes it to the inference estimate. Returns true when the flag was a training flag.
Result<bool> apply_training_flag(TrainingRequest& request, std::string_view flag, const std::string& value);

// The training section of --help: one line per flag, aligned like help_text().
std::string training_help_text();

// The shared flags of an inference Request (model, config, params, imported file, gpu, headroom,
// --context → sequence, --batch → micro-batch) copied into `training`. Inference-only flags (--engine,
// --kv-dtype, --attention, --kv-allocation, --avg-tokens, --expandable-segments, --gpu-util, --ngl,
// --max-num-batched-tokens, --max-num-seqs) are refused, naming the flag; --weights is ignored (training
// stores weights by --precision, NF4 for qlora). `training.sequence` from --seq wins over --context.
Result<TrainingRequest> training_request_from_shared(const Request& shared, TrainingRequest training);

// A request field named in an evaluate_training() error → the flag the user typed ("micro_batch" →
// "--micro-batch", "sequence" → "--seq"); other fields are returned unchanged.
std::string training_flag_for_field(std::string_view field);

// The human-readable report: per-GPU breakdown, ranks, host RAM / NVMe, time and the fit per GPU.
std::string training_table(const TrainingReport& report);

}  // namespace vramfit::cli
