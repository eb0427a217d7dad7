#include "questions/evaluate_training.hpp"

#include <algorithm>  // std::min
#include <cmath>      // std::isfinite
#include <string>     // std::string, std::to_string

#include "util/json_fields.hpp"
#include "util/number_text.hpp"
#include "json/report_json.hpp"
#include "util/quantity.hpp"  // parse_count
#include "util/text.hpp"      // lower_ascii, parse_switch
#include "util/units.hpp"     // signed_difference

namespace vramfit {

using detail::FieldReader;
using detail::json;
using detail::JsonWriter;

namespace {

// The training core names some fields as flags spell them ("lora-rank"); the request's keys use '_'.
Error with_request_field(Error e) {
  for (auto& ch : e.field)
    if (ch == '-') ch = '_';
  return e;
}

std::string describe_targets(const LinearSet& t) {
  if (t.q && t.k && t.v && t.o && t.gate && t.up && t.down && t.router) return "all-linear";
  std::string out;
  const std::pair<bool, const char*> names[] = {{t.q, "q"},       {t.k, "k"},   {t.v, "v"},     {t.o, "o"},
                                                {t.gate, "gate"}, {t.up, "up"}, {t.down, "down"}, {t.router, "router"}};
  for (const auto& [on, name] : names)
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

// A choice: empty keeps the core's default; otherwise it must parse, or the error names the key.
template <class T, class Parse>
std::optional<Error> choose(const std::string& text, std::string_view field, Parse parse, const std::string& allowed,
                            T& out) {
  if (text.empty()) return std::nullopt;
  const auto parsed = parse(text);
  if (!parsed) return make_error(std::string(field), "unknown value \"" + text + "\"; allowed: " + allowed);
  out = *parsed;
  return std::nullopt;
}

std::string number(double v) {
  std::string s = detail::fixed_text(v, 6);  // std::to_string's "%f", then trailing zeros dropped
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Time and cost on one GPU: the compute dtype's dense tensor TFLOPS, the catalog's price if it has one.
// Nothing (with a note) when the catalog lacks the figure: fp32 training runs on the fp32 units, which
// the catalog does not list, and a card without bf16 units cannot run bf16 at its fp16 rate.
Result<std::optional<TrainingTime>> time_on(const Gpu& gpu, const ModelSpec& spec, const TrainingRequest& r,
                                            const TrainingEstimate& e, const TrainingOptions& o,
                                            std::vector<std::string>& notes) {
  if (!r.tokens) {
    notes.push_back("The training time and cost on " + gpu.name + " need the number of training tokens.");
    return std::optional<TrainingTime>{};
  }
  TrainingTime t;
  t.gpu = &gpu;
  t.tokens = *r.tokens;
  t.mfu = r.mfu.value_or(kDefaultMfu);
  std::optional<double> peak;
  if (o.precision == Precision::mixed_fp16) t.peak_dtype = "fp16", peak = gpu.tflops_fp16;
  else if (o.precision != Precision::fp32) t.peak_dtype = "bf16", peak = gpu.tflops_bf16;
  if (!peak) {
    notes.push_back(o.precision == Precision::fp32
                        ? "No time estimate: fp32 training runs on the fp32 units, and the catalog lists only 16-bit "
                          "tensor TFLOPS."
                        : "No time estimate: the catalog has no " + t.peak_dtype + " TFLOPS for " + gpu.name + ".");
    return std::optional<TrainingTime>{};
  }
  t.peak_tflops = *peak;
  if (gpu.cloud_usd_per_hour) t.usd_per_gpu_hour = gpu.cloud_usd_per_hour->usd;
  TimeOptions opt;
  opt.tokens = t.tokens;
  opt.sequence = o.sequence;
  opt.gpus = e.layout.gpus;
  opt.peak_tflops = t.peak_tflops;
  opt.mfu = t.mfu;
  opt.usd_per_gpu_hour = t.usd_per_gpu_hour;
  opt.mode = o.mode;
  opt.checkpointing = o.checkpointing;
  opt.flash_attention = o.flash_attention;
  opt.slowdown = e.slowdown.min;
  auto fastest = estimate_training_time(spec, opt);
  if (!fastest) return with_request_field(fastest.error());
  t.fastest = std::move(fastest).value();
  // Step time scales linearly with the slowdown multiplier (training_time.cpp: seconds × slowdown).
  const double ratio = e.slowdown.max / e.slowdown.min;
  t.seconds_max = t.fastest.seconds * ratio;
  t.gpu_hours_max = t.fastest.gpu_hours * ratio;
  if (t.fastest.cost_usd) t.cost_usd_max = *t.fastest.cost_usd * ratio;
  if (!t.usd_per_gpu_hour) notes.push_back("No cost: the catalog has no cloud price for " + gpu.name + ".");
  return std::optional<TrainingTime>{std::move(t)};
}

}  // namespace

bool is_training_mode(std::string_view mode) noexcept {
  const std::string m = lower_ascii(mode);
  return !m.empty() && m != "inference";
}

bool request_json_is_training(std::string_view text) noexcept {
  const json j = detail::parse_dom(text);
  if (!j.is_object()) return false;
  const auto it = j.find("mode");
  return it != j.end() && it->is_string() && is_training_mode(it->get_ref<const std::string&>());
}

std::uint64_t default_training_sequence(const ModelSpec& spec) noexcept {
  const std::uint64_t context = spec.default_context ? spec.default_context : spec.max_context;
  return context ? std::min(kDefaultTrainingSequence, context) : kDefaultTrainingSequence;
}

Result<TrainingReport> evaluate_training(const Catalog& catalog, const TrainingRequest& r) {
  TrainingReport report;
  TrainingOptions& o = report.options;
  if (!is_training_mode(r.mode))
    return make_error("mode", "\"" + r.mode + "\" is not a training mode (inference has its own estimate); allowed: " +
                                  training_mode_names());
  if (auto e = choose(r.mode, "mode", parse_training_mode, training_mode_names() + " (or inference)", o.mode)) return *e;

  // The model, the GPU and the headroom resolve exactly as for inference; bf16 keeps the inference path from
  // reading the checkpoint's quantization_config, which training does not use (precision decides).
  Request shared;
  shared.model = r.model;
  shared.config_json = r.config_json;
  shared.params = r.params;
  shared.imported = r.imported;
  shared.weights = "bf16";
  shared.gpu = r.gpu;
  shared.headroom = r.headroom;
  auto resolved = resolve_request(catalog, shared);
  if (!resolved) return resolved.error();
  report.model = std::move(resolved.value().model);
  report.published_params = resolved.value().published_params;
  const std::string params_source = resolved.value().params_source;
  report.gpu = resolved.value().gpu;
  report.headroom = r.headroom;
  report.tokens = r.tokens;
  report.mfu = r.mfu.value_or(kDefaultMfu);
  const ModelSpec& m = report.model;

  if (auto e = choose(r.precision, "precision", parse_precision, precision_names(), o.precision)) return *e;
  GradDType grad{};
  if (auto e = choose(r.grad_dtype, "grad_dtype", parse_grad_dtype, grad_dtype_names(), grad)) return *e;
  if (!r.grad_dtype.empty()) o.grad_dtype = grad;
  if (auto e = choose(r.optimizer, "optimizer", parse_optimizer, optimizer_names(), o.optimizer)) return *e;
  if (!r.lora_targets.empty()) {
    auto targets = parse_lora_targets(r.lora_targets);
    if (!targets) return with_request_field(targets.error());
    o.lora_targets = targets.value();
  }
  if (r.lora_rank) o.lora_rank = *r.lora_rank;
  if (auto e = choose(r.checkpointing, "checkpointing", parse_checkpointing, checkpointing_names(), o.checkpointing))
    return *e;
  if (auto e = choose(r.zero, "zero", parse_zero, zero_names(), o.parallel.zero)) return *e;
  if (auto e = choose(r.offload, "offload", parse_offload, offload_names(), o.parallel.offload)) return *e;
  o.flash_attention = r.flash_attention;
  o.dropout = r.dropout;
  o.parallel.gpus = r.gpus;
  o.parallel.tensor_parallel = r.tp;
  o.parallel.pipeline_parallel = r.pp;
  o.parallel.sequence_parallel = r.sp;
  o.parallel.micro_batch = r.micro_batch;
  o.parallel.gradient_accumulation = r.grad_accum;
  if (r.sequence) {
    o.sequence = *r.sequence;
    report.sequence_source = "request";
  } else {
    o.sequence = default_training_sequence(m);
    report.sequence_source = o.sequence == kDefaultTrainingSequence ? "default" : "model_context";
  }
  if (r.tokens && (!(*r.tokens > 0) || !std::isfinite(*r.tokens)))
    return make_error("tokens", "must be a positive number of training tokens, got " + number(*r.tokens));
  if (r.mfu && !(*r.mfu > 0 && *r.mfu <= 1))
    return make_error("mfu", "must be a fraction above 0 and at most 1 (0.4 = 40 %), got " + number(*r.mfu));

  auto estimate = estimate_training(m, o);
  if (!estimate) return with_request_field(estimate.error());
  report.estimate = std::move(estimate).value();
  auto& notes = report.estimate.notes;
  if (!r.sequence && !m.is_bare())
    notes.push_back("No sequence given: " + std::to_string(o.sequence) + " tokens per sequence assumed" +
                    (report.sequence_source == "model_context" ? " (the model's context)." : "."));
  const std::uint64_t limit = m.max_context ? m.max_context : m.default_context;
  if (r.sequence && limit && *r.sequence > limit)
    notes.push_back("The sequence (" + std::to_string(*r.sequence) + ") is longer than the model's context (" +
                    std::to_string(limit) + "): the positions beyond it were never trained.");

  // Every rank must fit its own card: the busiest rank's total decides.
  const std::uint64_t total = report.estimate.breakdown.total;
  auto fit_on = [&](const Gpu& g) {
    const std::uint64_t usable = g.usable_bytes();
    return TrainingGpuFit{&g, classify_fit(total, usable, r.headroom), signed_difference(usable, total)};
  };
  const std::uint64_t job_gpus = o.parallel.gpus;
  if (report.gpu) {
    if (job_gpus > 1 && report.gpu->one_per_machine())
      return make_error("gpus", report.gpu->name + ": " + std::string(kOnePerMachine));
    report.gpus.push_back(fit_on(*report.gpu));
    auto time = time_on(*report.gpu, m, r, report.estimate, o, notes);
    if (!time) return time.error();
    report.time = std::move(time).value();
  } else {
    for (const auto& g : catalog.gpus)
      if (job_gpus == 1 || !g.one_per_machine()) report.gpus.push_back(fit_on(g));  // a job on one Mac only
    if (r.tokens) notes.push_back("Choose a GPU for the training time and cost.");
  }
  if (report.time) {
    for (const auto& x : report.time->fastest.explanations) report.estimate.explanations.push_back(x);
    for (const auto& n : report.time->fastest.notes) notes.push_back(n);
  }
  report.estimate.explanations.push_back(
      params_explanation(m, report.estimate.params, report.published_params, params_source));
  return report;
}

Result<TrainingRequest> training_request_from_json(std::string_view text) {
  auto parsed = detail::parse_json(text, "request");
  if (!parsed) return parsed.error();
  const json& j = parsed.value();
  if (!j.is_object()) return make_error("request", "expected a JSON object");
  static constexpr std::string_view kKeys[] = {
      "model",    "config",  "params",  "mode",  "precision", "grad_dtype", "optimizer", "lora_rank",
      "lora_targets", "sequence", "context", "micro_batch", "batch", "grad_accum", "checkpointing",
      "flash_attention", "dropout", "zero", "gpus", "tp", "pp", "sp", "offload", "gpu", "headroom", "tokens",
      "mfu", "weights"};
  if (auto unknown = detail::refuse_unknown_keys(j, kKeys, "training input")) return *unknown;
  FieldReader f(j, "");
  // A switch: true/false, or a string as the CLI's flags and the page's toggles spell it ("on").
  auto on_off = [&](std::string_view key, bool fallback) {
    const json* v = f.find(key);
    if (!v) return fallback;
    if (v->is_boolean()) return v->get<bool>();
    if (v->is_string())
      if (const auto s = parse_switch(v->get_ref<const std::string&>())) return *s;
    f.fail(key, "expected true, false or a string: " + std::string(kSwitchSpellings), *v);
    return fallback;
  };
  TrainingRequest r;
  r.model = f.string("model").value_or("");
  r.config_json = detail::config_text(f);
  r.params = f.uint("params").value_or(0);
  r.mode = f.string("mode").value_or("");
  r.precision = f.string("precision").value_or("");
  r.grad_dtype = f.string("grad_dtype").value_or("");
  r.optimizer = f.string("optimizer").value_or("");
  r.lora_rank = f.uint("lora_rank");
  r.lora_targets = f.string("lora_targets").value_or("");
  // The training keys win over the page's shared inputs (context, batch) when both are present.
  r.sequence = f.has("sequence") ? f.uint("sequence") : f.uint("context");
  r.micro_batch = (f.has("micro_batch") ? f.uint("micro_batch") : f.uint("batch")).value_or(1);
  r.grad_accum = f.uint("grad_accum").value_or(1);
  r.checkpointing = f.string("checkpointing").value_or("");
  r.flash_attention = on_off("flash_attention", true);
  r.dropout = on_off("dropout", false);
  if (const json* zero = f.find("zero")) {
    if (zero->is_string()) r.zero = zero->get<std::string>();
    else if (zero->is_number_unsigned()) r.zero = std::to_string(zero->get<std::uint64_t>());
    else f.fail("zero", "expected a stage 0-3 or an FSDP name", *zero);
  }
  r.gpus = f.uint("gpus").value_or(1);
  r.tp = f.uint("tp").value_or(1);
  r.pp = f.uint("pp").value_or(1);
  r.sp = on_off("sp", false);
  r.offload = f.string("offload").value_or("");
  r.gpu = f.string("gpu").value_or("");
  r.headroom = f.number("headroom").value_or(kDefaultHeadroom);
  // A number, or as written in the page's field and the CLI's --tokens: "1e9", "300B", "2T".
  if (const auto* written = f.find("tokens"); written && written->is_string()) {
    const auto count = parse_count(written->get_ref<const std::string&>());
    if (!count)
      return make_error("tokens", "expected a token count such as 1e9, 300B or 2T, got " +
                                      FieldReader::type_name(*written));
    r.tokens = static_cast<double>(*count);
  } else {
    r.tokens = f.number("tokens");
  }
  r.mfu = f.number("mfu");
  (void)f.string("weights");  // type-checked, then ignored: see the header
  if (f.error()) return *f.error();
  return r;
}

namespace {

// One rank's memory; the per-rank list adds who the rank is.
void write_rank(JsonWriter& w, const char* key, const RankMemory& r, bool with_role) {
  w.begin_object(key);
  w.field("activations", r.activations);
  w.field("gradients", r.gradients);
  if (with_role) w.field("in_flight_micro_batches", r.in_flight_micro_batches);
  w.field("master_weights", r.master_weights);
  w.field("optimizer", r.optimizer);
  w.field("overhead", r.overhead);
  if (with_role) w.field("params", r.params), w.field("role", r.role);
  w.field("temporary", r.temporary);
  w.field("total", r.total);
  w.field("weights", r.weights);
  w.end_object();
}

}  // namespace

std::string training_report_to_json(const TrainingReport& report) {
  const auto& e = report.estimate;
  const auto& m = report.model;
  const auto& o = report.options;
  const bool adapters = e.mode != TrainingMode::full;
  const auto& l = e.layout;
  JsonWriter w;
  w.begin_object();
  if (e.activations) {
    const auto& a = *e.activations;
    w.begin_object("activations");
    w.field("embedding", a.embedding);
    w.field("head", a.head);
    w.field("layers", a.layers);
    w.field("logits", a.logits);
    w.field("logits_gradient", a.logits_gradient);
    w.field("per_layer_full", a.dense_layer.full);
    w.field("per_layer_kept", a.dense_layer.kept);
    w.field("recompute_peak", a.recompute_peak);
    w.field("total", a.total);
    w.end_object();
  } else {
    w.field("activations", nullptr);
  }
  write_rank(w, "breakdown", e.breakdown, false);
  w.field("breakdown_role", e.breakdown.role);
  detail::write_explanations(w, e.explanations);
  w.begin_array("gpus");
  for (const auto& f : report.gpus) detail::write_gpu_fit(w, *f.gpu, f.fit, f.free_bytes);
  w.end_array();
  w.field("gradient_convention", e.gradient_convention);
  w.field("host_ram_bytes", e.host_ram_bytes);
  w.begin_object("inputs");
  w.field("checkpointing", checkpointing_name(o.checkpointing));
  w.field("dp", l.data_parallel);
  w.field("dropout", o.dropout);
  w.field("flash_attention", o.flash_attention);
  w.field("fsdp", fsdp_name(o.parallel.zero));
  w.field("global_batch", l.global_batch);
  if (report.gpu) w.field("gpu", report.gpu->id);
  else w.field("gpu", nullptr);
  w.field("gpus", l.gpus);
  w.field("grad_accum", l.gradient_accumulation);
  w.field("grad_dtype", grad_dtype_name(e.grad_dtype));
  w.field("headroom", report.headroom);
  if (adapters) w.field("lora_rank", o.lora_rank), w.field("lora_targets", describe_targets(o.lora_targets));
  else w.field("lora_rank", nullptr), w.field("lora_targets", nullptr);
  w.field("mfu", report.mfu);
  w.field("micro_batch", l.micro_batch);
  w.field("mode", training_mode_name(e.mode));
  w.field("offload", offload_name(o.parallel.offload));
  w.field("optimizer", optimizer_info(e.optimizer).name);
  w.field("pp", l.pipeline_parallel);
  w.field("precision", precision_name(e.precision));
  w.field("sequence", o.sequence);
  w.field("sequence_source", report.sequence_source);
  w.field("sp", o.parallel.sequence_parallel);
  w.field("tokens", report.tokens);
  w.field("tp", l.tensor_parallel);
  w.field("zero", zero_name(o.parallel.zero));
  w.end_object();
  w.field("mode", training_mode_name(e.mode));
  detail::write_model(w, m, e.params, report.published_params);
  w.field("notes", e.notes);
  w.field("nvme_bytes", e.nvme_bytes);
  w.field("ok", true);
  w.field("quantized_params", e.quantized_params);
  w.begin_array("ranks");
  for (const auto& r : e.ranks) write_rank(w, nullptr, r, true);
  w.end_array();
  w.begin_object("slowdown");
  w.field("max", e.slowdown.max);
  w.field("min", e.slowdown.min);
  w.field("source", e.slowdown.source);
  w.end_object();
  if (report.time) {
    const auto& t = *report.time;
    const auto& f = t.fastest;
    w.begin_object("time");
    w.field("executed_flops", f.executed_flops);
    w.field("flops", f.model_flops);
    w.field("flops_per_token", f.per_token.model_per_token);
    w.field("gpu", t.gpu->id);
    w.field("gpu_hours", f.gpu_hours);
    w.field("gpu_hours_max", t.gpu_hours_max);
    w.field("gpus", e.layout.gpus);
    w.field("mfu", t.mfu);
    w.field("peak_dtype", t.peak_dtype);
    w.field("peak_tflops", t.peak_tflops);
    w.field("recompute_overhead", f.recompute_overhead);
    w.field("seconds", f.seconds);
    w.field("seconds_max", t.seconds_max);
    w.field("tokens", t.tokens);
    w.field("usd", f.cost_usd);
    w.field("usd_max", t.cost_usd_max);
    w.field("usd_per_gpu_hour", t.usd_per_gpu_hour);
    w.end_object();
  } else {
    w.field("time", nullptr);
  }
  w.field("trainable_params", e.trainable_params);
  w.end_object();
  return w.take();
}

}  // namespace vramfit
