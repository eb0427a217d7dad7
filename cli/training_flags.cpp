#include "training_flags.hpp"

#include <array>    // std::array
#include <cstdio>   // std::snprintf
#include <cstdlib>  // std::strtod

#include "cli_args.hpp"  // parse_count, parse_tokens, whole_number
#include "util/text.hpp"   // parse_switch
#include "util/units.hpp"  // gb_and_gib

namespace vramfit::cli {

namespace {

constexpr std::array<TrainingFlag, 20> kTrainingFlags{{
    {"--mode", "MODE", "inference (default), train (full fine-tune), lora or qlora"},
    {"--precision", "P", "fp32, mixed-fp16, mixed-bf16 (default: bf16 compute + fp32 master weights) or bf16"},
    {"--grad-dtype", "D", "gradient storage: fp32 (HF Trainer, 18 B/param with AdamW) or half (ZeRO/Megatron, 16 B)"},
    {"--optimizer", "NAME", "adamw (default), adamw-8bit, paged-adamw, paged-adamw-8bit, sgd, sgd-momentum, "
                            "adafactor, lion"},
    {"--lora-rank", "R", "LoRA/QLoRA adapter rank (default 16)"},
    {"--lora-targets", "LIST", "modules with adapters: q,k,v,o,gate,up,down,router or all-linear (default)"},
    {"--seq", "TOKENS", "tokens per training sequence (default 2048, or the model's context if shorter)"},
    {"--micro-batch", "N", "sequences per GPU per forward pass (default 1; --batch means the same in training)"},
    {"--grad-accum", "N", "micro-batches per optimizer step (default 1)"},
    {"--checkpointing", "KIND", "activation checkpointing: none (default), selective or full (≈ +33 % compute)"},
    {"--flash-attention", "on|off", "FlashAttention/SDPA: no s×s attention scores kept (default on)"},
    {"--dropout", "on|off", "attention and hidden dropout masks (default off)"},
    {"--zero", "STAGE", "ZeRO stage 0-3, or FSDP NO_SHARD, SHARD_GRAD_OP, FULL_SHARD (default 0)"},
    {"--gpus", "N", "GPUs of the job = tp × pp × data parallel (default 1)"},
    {"--tp", "N", "tensor-parallel degree (default 1)"},
    {"--pp", "N", "pipeline-parallel stages, 1F1B (default 1)"},
    {"--sp", "", "sequence parallel (with --tp > 1)"},
    {"--offload", "WHERE", "none (default), optimizer (ZeRO-Offload), params or nvme (ZeRO-Infinity)"},
    {"--tokens", "N", "training tokens for time and cost on --gpu: 1e9, 300B, 2T"},
    {"--mfu", "FRACTION", "model FLOPs utilisation above 0 up to 1, or a percentage (default 0.40)"},
}};

const TrainingFlag* find_flag(std::string_view flag) noexcept {
  for (const auto& f : kTrainingFlags)
    if (f.name == flag) return &f;
  return nullptr;
}

Error invalid(std::string_view flag, const std::string& value, const std::string& allowed) {
  return make_error(std::string(flag), "invalid value \"" + value + "\"; allowed: " + allowed);
}

std::string fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::span<const TrainingFlag> training_flags() noexcept { return kTrainingFlags; }
bool is_training_flag(std::string_view flag) noexcept { return find_flag(flag) != nullptr; }
bool training_flag_takes_value(std::string_view flag) noexcept {
  const TrainingFlag* f = find_flag(flag);
  return f && !f->value.empty();
}

Result<bool> apply_training_flag(TrainingRequest& r, std::string_view flag, const std::string& value) {
  if (!is_training_flag(flag)) return false;
  // A choice the core parses: checked here so the message names the flag, stored as typed.
  auto choice = [&](auto parse, const std::string& allowed, std::string& out) -> Result<bool> {
    if (!parse(value)) return invalid(flag, value, allowed);
    out = value;
    return true;
  };
  auto count = [&](std::uint64_t& out) -> Result<bool> {
    const auto v = whole_number(value, 1);
    if (!v) return invalid(flag, value, "a whole number of at least 1");
    out = *v;
    return true;
  };
  if (flag == "--mode") {
    if (value == "inference") {
      r.mode = value;
      return true;
    }
    return choice(parse_training_mode, "inference, " + training_mode_names(), r.mode);
  }
  if (flag == "--precision") return choice(parse_precision, precision_names(), r.precision);
  if (flag == "--grad-dtype") return choice(parse_grad_dtype, grad_dtype_names(), r.grad_dtype);
  if (flag == "--optimizer") return choice(parse_optimizer, optimizer_names(), r.optimizer);
  if (flag == "--checkpointing") return choice(parse_checkpointing, checkpointing_names(), r.checkpointing);
  if (flag == "--zero") return choice(parse_zero, "0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD", r.zero);
  if (flag == "--offload") return choice(parse_offload, offload_names(), r.offload);
  if (flag == "--lora-targets") {
    if (!parse_lora_targets(value)) return invalid(flag, value, lora_target_names());
    r.lora_targets = value;
    return true;
  }
  if (flag == "--lora-rank") {
    const auto v = whole_number(value, 1);
    if (!v || *v > kMaxLoraRank) return invalid(flag, value, "a whole number from 1 to " + std::to_string(kMaxLoraRank));
    r.lora_rank = *v;
    return true;
  }
  if (flag == "--seq") {
    const auto v = parse_tokens(value);
    if (!v) return invalid(flag, value, "a whole number of tokens such as 4096 or 4k");
    r.sequence = *v;
    return true;
  }
  if (flag == "--micro-batch") return count(r.micro_batch);
  if (flag == "--grad-accum") return count(r.grad_accum);
  if (flag == "--gpus") return count(r.gpus);
  if (flag == "--tp") return count(r.tp);
  if (flag == "--pp") return count(r.pp);
  if (flag == "--flash-attention" || flag == "--dropout") {
    const auto v = parse_switch(value);
    if (!v) return invalid(flag, value, std::string(kSwitchSpellings));
    (flag == "--dropout" ? r.dropout : r.flash_attention) = *v;
    return true;
  }
  if (flag == "--sp") {
    r.sp = true;
    return true;
  }
  if (flag == "--tokens") {
    const auto v = parse_count(value);
    if (!v) return invalid(flag, value, "a positive token count such as 1e9, 300B or 2T");
    r.tokens = static_cast<double>(*v);
    return true;
  }
  // --mfu: "0.4" or "40%".
  const bool percent = !value.empty() && value.back() == '%';
  const std::string digits = percent ? value.substr(0, value.size() - 1) : value;
  char* end = nullptr;
  double mfu = std::strtod(digits.c_str(), &end);
  if (percent) mfu /= 100;
  if (digits.empty() || *end != '\0' || !(mfu > 0 && mfu <= 1))
    return invalid(flag, value, "a fraction above 0 and at most 1 (0.4), or a percentage (40%)");
  r.mfu = mfu;
  return true;
}

std::string training_help_text() {
  std::string out = "\nTraining (--mode train|lora|qlora; --context and --batch set --seq and --micro-batch):\n";
  for (const auto& f : kTrainingFlags) {
    std::string left = "  " + std::string(f.name) + (f.value.empty() ? "" : " " + std::string(f.value));
    if (left.size() < 28) left.resize(28, ' ');
    else left += "  ";
    out += left + std::string(f.help) + "\n";
  }
  out += "Example: vramfit --mode qlora --model llama-2-7b --gpu rtx-4090 --seq 2048 --micro-batch 4\n";
  return out;
}

Result<TrainingRequest> training_request_from_shared(const Request& s, TrainingRequest t) {
  const Request defaults;
  const std::pair<bool, const char*> inference_only[] = {
      {s.engine != defaults.engine, "--engine"},
      {!s.kv_dtype.empty(), "--kv-dtype"},
      {!s.attention.empty(), "--attention"},
      {!s.kv_allocation.empty(), "--kv-allocation"},
      {s.avg_tokens.has_value(), "--avg-tokens"},
      {s.expandable_segments, "--expandable-segments"},
      {s.gpu_util != defaults.gpu_util, "--gpu-util"},
      {s.gpu_layers.has_value(), "--ngl"},
      {s.max_num_batched_tokens.has_value(), "--max-num-batched-tokens"},
      {s.max_num_seqs.has_value(), "--max-num-seqs"},
  };
  for (const auto& [given, flag] : inference_only)
    if (given)
      return make_error(flag, "applies to inference only; training (--mode " + t.mode + ") does not use it");
  t.model = s.model;
  t.config_json = s.config_json;
  t.params = s.params;
  t.imported = s.imported;
  t.gpu = s.gpu;
  t.headroom = s.headroom;
  if (!t.sequence) t.sequence = s.context;
  if (s.batch != defaults.batch) {
    if (t.micro_batch != 1 && t.micro_batch != s.batch)
      return make_error("--batch", "conflicts with --micro-batch; in training they mean the same, give one");
    t.micro_batch = s.batch;
  }
  return t;
}

std::string training_flag_for_field(std::string_view field) {
  if (field == "sequence" || field == "context") return "--seq";
  if (field == "model" || field == "params" || field == "gpu" || field == "headroom") return "--" + std::string(field);
  std::string flag = "--" + std::string(field);
  for (auto& ch : flag)
    if (ch == '_') ch = '-';
  return is_training_flag(flag) ? flag : std::string(field);
}

std::string training_table(const TrainingReport& r) {
  const auto& e = r.estimate;
  const auto& o = r.options;
  const auto& l = e.layout;
  std::string out;
  out += r.model.name + ": " + std::string(training_mode_name(e.mode)) + ", " +
         fixed("%.3g", static_cast<double>(e.params.total) / 1e9) + " B parameters (" +
         std::to_string(e.trainable_params) + " trainable), " + std::string(precision_name(e.precision)) + ", " +
         std::string(optimizer_info(e.optimizer).name) + "\n";
  out += "  sequence " + std::to_string(o.sequence) + " × micro-batch " + std::to_string(l.micro_batch) +
         ", accumulation " + std::to_string(l.gradient_accumulation) + ", global batch " +
         std::to_string(l.global_batch) + "; " + std::to_string(l.gpus) + " GPU(s): tp " +
         std::to_string(l.tensor_parallel) + " pp " + std::to_string(l.pipeline_parallel) + " dp " +
         std::to_string(l.data_parallel) + ", ZeRO " + std::string(zero_name(o.parallel.zero)) + ", offload " +
         std::string(offload_name(o.parallel.offload)) + "\n";
  out += "  per GPU (" + e.breakdown.role + "):\n";
  const auto& b = e.breakdown;
  const std::pair<const char*, std::uint64_t> lines[] = {
      {"weights", b.weights},         {"gradients", b.gradients}, {"optimizer", b.optimizer},
      {"activations", b.activations}, {"temporary", b.temporary}, {"overhead", b.overhead},
      {"total", b.total}};
  for (const auto& [label, bytes] : lines) {
    std::string left = "    " + std::string(label);
    left.resize(17, ' ');
    out += left + gb_and_gib(bytes) + "\n";
  }
  if (e.ranks.size() > 1)
    for (const auto& rank : e.ranks) out += "    rank: " + rank.role + std::string(" total ") + gb_and_gib(rank.total) + "\n";
  if (e.host_ram_bytes) out += "  host RAM     " + gb_and_gib(e.host_ram_bytes) + "\n";
  if (e.nvme_bytes) out += "  NVMe         " + gb_and_gib(e.nvme_bytes) + "\n";
  if (e.slowdown.max > 1)
    out += "  offload slowdown ×" + fixed("%.2g", e.slowdown.min) + "–" + fixed("%.2g", e.slowdown.max) + "\n";
  if (r.time) {
    const auto& t = *r.time;
    out += "  time on " + std::to_string(l.gpus) + " × " + t.gpu->name + " (" + fixed("%.4g", t.peak_tflops) +
           " TFLOPS " + t.peak_dtype + ", MFU " + fixed("%.2g", t.mfu) + "): " + fixed("%.4g", t.fastest.seconds / 3600) +
           " h";
    if (t.seconds_max > t.fastest.seconds) out += "–" + fixed("%.4g", t.seconds_max / 3600) + " h";
    out += ", " + fixed("%.4g", t.fastest.gpu_hours) + " GPU-hours";
    if (t.fastest.cost_usd) {
      out += ", " + fixed("%.2f", *t.fastest.cost_usd);
      if (t.cost_usd_max && *t.cost_usd_max > *t.fastest.cost_usd) out += "–" + fixed("%.2f", *t.cost_usd_max);
      out += " USD";
    }
    out += "\n";
  }
  for (const auto& note : e.notes) out += "  note: " + note + "\n";
  out += "\n";
  for (const auto& f : r.gpus) {
    std::string name = f.gpu->name;
    if (name.size() < 34) name.resize(34, ' ');
    std::string verdict(fit_name(f.fit));
    if (verdict.size() < 14) verdict.resize(14, ' ');
    out += "  " + name + " " + verdict + fixed(" %+8.1f GiB free", static_cast<double>(f.free_bytes) / static_cast<double>(kGiB)) + "\n";
  }
  return out;
}

}  // namespace vramfit::cli
