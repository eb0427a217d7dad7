#include "hardware/training_time.hpp"

#include <array>   // std::array
#include <cmath>   // std::isfinite
#include <string>  // std::string
#include <utility>  // std::pair

#include "memory/inference.hpp"  // kMaxContextTokens
#include "util/number_text.hpp"
#include "util/text.hpp"  // NamedValue, find_named

namespace vramfit {
namespace {

struct MatmulParams {
  double layers = 0;   // weight-matrix elements a token passes in all layers (active experts only)
  double lm_head = 0;  // output layer (tied or not: it is a matmul either way)
  double attention_width = 0;  // Σ over layers of (qk width + v width) per position: QKᵀ and AV
};

// Weight elements a token passes in one layer's MLP: the dense FFN, or the router, its k experts and the shared ones.
double mlp_matmuls(const ModelSpec& s, const MlpBlock& m) {
  const double h = static_cast<double>(s.hidden_size);
  const double mats = s.gated_mlp ? 3 : 2;
  if (m.kind == MlpKind::none) return 0;
  if (m.kind == MlpKind::dense) return mats * h * static_cast<double>(m.intermediate);
  return mats * h * static_cast<double>(m.active_width()) + h * static_cast<double>(m.routed_experts);
}

MatmulParams matmul_params(const ModelSpec& s) {
  MatmulParams m;
  for (const LayerRun& run : s.layers) {
    const auto [mixer, width] = run.matmuls(s.hidden_size);
    const double count = static_cast<double>(run.count);
    m.layers += count * (mixer + mlp_matmuls(s, run.mlp));
    m.attention_width += count * width;
  }
  m.lm_head = s.has_lm_head ? static_cast<double>(s.hidden_size) * static_cast<double>(s.vocab_size) : 0;
  return m;
}

}  // namespace

double korthikanti_flops(double B, double s, double L, double h, double V) noexcept {
  return 72 * B * L * s * h * h * (1 + s / (6 * h) + V / (12 * h * L));
}

double korthikanti_flops_full_recompute(double B, double s, double L, double h, double V) noexcept {
  return 96 * B * L * s * h * h * (1 + s / (6 * h) + V / (16 * h * L));
}

namespace {

// Names in enum order (flops_method_name indexes them), then the other spellings parse_flops_method reads.
constexpr std::array<NamedValue<FlopsMethod>, 2> kFlopsMethods{
    {{"6N", FlopsMethod::six_n}, {"architecture", FlopsMethod::architecture}}};
constexpr std::array<NamedValue<FlopsMethod>, 3> kFlopsMethodAliases{
    {{"6n", FlopsMethod::six_n}, {"six-n", FlopsMethod::six_n}, {"korthikanti", FlopsMethod::architecture}}};

}  // namespace

std::string_view flops_method_name(FlopsMethod m) noexcept { return kFlopsMethods[static_cast<std::size_t>(m)].name; }

std::optional<FlopsMethod> parse_flops_method(std::string_view name) noexcept {
  if (const auto* entry = find_named(kFlopsMethods, name)) return entry->value;
  if (const auto* entry = find_named(kFlopsMethodAliases, name)) return entry->value;
  return std::nullopt;
}

Result<TrainingFlops> training_flops_per_token(const ModelSpec& spec, std::uint64_t sequence, TrainingMode mode,
                                               Checkpointing checkpointing, AttnImplementation attn_implementation,
                                               FlopsMethod method) {
  auto params = count_params(spec);
  if (!params) return params.error();
  if (sequence < 1 || sequence > kMaxContextTokens)
    return make_error("sequence", message("error.tokens_range", "must be between 1 and {max} tokens, got {value}",
                                          {arg::digits("max", kMaxContextTokens), arg::digits("value", sequence)}));
  const bool frozen = mode != TrainingMode::full;
  TrainingFlops f;
  if (spec.is_bare() || method == FlopsMethod::six_n) {
    const double n = static_cast<double>(params.value().active);
    f.forward_per_token = 2 * n;
    f.model_per_token = (frozen ? 4 : 6) * n;
    f.recompute_per_token = checkpointing == Checkpointing::full ? 2 * n : 0;
  } else {
    const MatmulParams m = matmul_params(spec);
    const double attention = 2 * static_cast<double>(sequence) * m.attention_width;  // QKᵀ + AV, full s×s
    const double weights_fwd = 2 * (m.layers + m.lm_head);
    f.forward_per_token = weights_fwd + attention;
    // Backward: gradients of the inputs (2·N) and, when the weights train, of the weights (2·N).
    f.model_per_token = weights_fwd * (frozen ? 2 : 3) + attention * 3;
    if (checkpointing == Checkpointing::full) f.recompute_per_token = 2 * m.layers + attention;
    else if (checkpointing == Checkpointing::selective && keeps_attention_scores(attn_implementation)) f.recompute_per_token = attention;
  }
  f.executed_per_token = f.model_per_token + f.recompute_per_token;
  return f;
}

namespace {

MessageArg g4(std::string_view name, double v) { return arg::general(name, v, 4); }  // printf's %.4g

Message flops_formula(bool six_n, bool full) {
  if (six_n)
    return full ? message("explain.flops.formula_6n", "6 × active params × tokens")
                : message("explain.flops.formula_4n", "4 × active params × tokens");
  return full ? message("explain.flops.formula", "(2·weights·3 + 2·s·attention width·3) × tokens")
              : message("explain.flops.formula_frozen", "(2·weights·2 + 2·s·attention width·3) × tokens");
}

void explain_time(TrainingTimeEstimate& e, const TimeOptions& o, bool six_n) {
  e.explanations.push_back(
      {"flops", flops_formula(six_n, o.mode == TrainingMode::full),
       message("explain.flops.values", "{per_token} FLOPs/token × {tokens} tokens = {flops}",
               {g4("per_token", e.per_token.model_per_token), g4("tokens", o.tokens), g4("flops", e.model_flops)}),
       six_n ? message("explain.flops.source_6n", "Kaplan et al. 2020 (6N); frozen weights skip weight gradients")
             : message("explain.flops.source", "Korthikanti et al. 2022 App. A: 72BLsh²(1 + s/6h + V/12hL), generalised")});
  e.explanations.push_back(
      {"recompute", message("explain.recompute.formula", "extra forward work from checkpointing"),
       message("explain.recompute.values", "+{percent} % ({checkpointing})",
               {g4("percent", e.recompute_overhead * 100), arg::text("checkpointing", checkpointing_name(o.checkpointing))}),
       message("explain.recompute.source",
               "full recompute reruns each layer's forward: ≈ +1/3 (\"GPU-Speicher\": 20–30 % longer)")});
  e.explanations.push_back(
      {"seconds", message("explain.seconds.formula", "executed FLOPs / (GPUs × peak × MFU) × offload slowdown"),
       message("explain.seconds.values", "{flops} / ({gpus} × {peak}e12 × {mfu}) × {slowdown} = {seconds} s",
               {g4("flops", e.executed_flops), arg::digits("gpus", o.gpus), g4("peak", o.peak_tflops), g4("mfu", o.mfu),
                g4("slowdown", o.slowdown), g4("seconds", e.seconds)}),
       message("explain.seconds.source", "MFU default 0.40: Llama 3 reports 38–43 % on H100")});
  e.explanations.push_back({"gpu_hours", message("explain.gpu_hours.formula", "seconds × GPUs / 3600"),
                            message("explain.gpu_hours.values", "{gpu_hours}", {g4("gpu_hours", e.gpu_hours)}),
                            message("explain.gpu_hours.source", "definition")});
  if (e.cost_usd)
    e.explanations.push_back(
        {"cost_usd", message("explain.cost_usd.formula", "GPU-hours × price"),
         message("explain.cost_usd.values", "{gpu_hours} × {price} = {cost} USD",
                 {g4("gpu_hours", e.gpu_hours), g4("price", *o.usd_per_gpu_hour), g4("cost", *e.cost_usd)}),
         message("explain.cost_usd.source", "catalog price per GPU-hour")});
}

}  // namespace

Result<TrainingTimeEstimate> estimate_training_time(const ModelSpec& spec, const TimeOptions& o) {
  if (!(o.tokens > 0) || !std::isfinite(o.tokens))
    return make_error("tokens", message("error.time.tokens", "must be a positive number of training tokens"));
  if (o.gpus < 1 || o.gpus > kMaxGpus)
    return make_error("gpus", message("error.range", "must be between 1 and {max}, got {value}",
                                      {arg::digits("max", kMaxGpus), arg::digits("value", o.gpus)}));
  if (!(o.peak_tflops > 0) || !std::isfinite(o.peak_tflops))
    return make_error("peak_tflops",
                      message("error.time.peak_tflops", "must be positive: the GPU's dense 16-bit tensor TFLOPS"));
  if (!(o.mfu > 0) || o.mfu > 1)
    return make_error("mfu", message("error.time.mfu", "must be above 0 and at most 1, got {value}",
                                     {arg::general("value", o.mfu, 4)}));
  if (!(o.slowdown >= 1) || !std::isfinite(o.slowdown))
    return make_error("slowdown", message("error.at_least_1", "must be at least 1"));
  if (o.usd_per_gpu_hour && (!(*o.usd_per_gpu_hour >= 0) || !std::isfinite(*o.usd_per_gpu_hour)))
    return make_error("price", message("error.time.price", "must be a non-negative USD amount per GPU-hour"));
  auto per = training_flops_per_token(spec, o.sequence, o.mode, o.checkpointing, o.attn_implementation, o.method);
  if (!per) return per.error();

  TrainingTimeEstimate e;
  e.per_token = per.value();
  e.model_flops = e.per_token.model_per_token * o.tokens;
  e.executed_flops = e.per_token.executed_per_token * o.tokens;
  e.recompute_overhead = e.model_flops > 0 ? e.executed_flops / e.model_flops - 1 : 0;
  const double rate = static_cast<double>(o.gpus) * o.peak_tflops * 1e12 * o.mfu;
  e.seconds = e.executed_flops / rate * o.slowdown;
  e.gpu_hours = e.seconds * static_cast<double>(o.gpus) / 3600;
  if (o.usd_per_gpu_hour) e.cost_usd = e.gpu_hours * *o.usd_per_gpu_hour;

  explain_time(e, o, spec.is_bare() || o.method == FlopsMethod::six_n);
  if (o.mfu == kDefaultMfu)
    e.notes.push_back(message("time.mfu", "MFU 40 % assumed (large well-tuned runs); small models and fine-tunes often "
                                        "reach 20–35 %."));
  if (spec.is_bare() && o.method == FlopsMethod::architecture)
    e.notes.push_back(message("time.bare", "Only a parameter count is known: FLOPs use 6·N·tokens."));
  return e;
}

}  // namespace vramfit
