#include "json/request.hpp"

#include <algorithm>  // std::all_of
#include <string>     // std::string, std::to_string
#include <utility>    // std::move

#include "util/json_fields.hpp"
#include "util/quantity.hpp"  // parse_count
#include "util/text.hpp"      // lower_ascii, parse_switch, split_list

namespace vramfit {

using detail::FieldReader;
using detail::json;

namespace {


// The request text as a JSON object, or the error naming "request".
Result<json> request_object(std::string_view text) {
  auto parsed = detail::parse_json(text, "request");
  if (!parsed) return parsed.error();
  if (!parsed.value().is_object()) return make_error("request", "expected a JSON object");
  return parsed;
}

Result<Request> inference_request(const json& j) {
  static constexpr std::string_view kKeys[] = {
      "model", "config", "params", "weights", "kv_dtype", "context", "batch", "headroom", "gpu", "engine",
      "attention", "kv_allocation", "avg_tokens", "expandable_segments", "gpu_util", "max_num_batched_tokens",
      "max_num_seqs", "gpu_layers", "system_bandwidth", "prompt_tokens", "usd_per_kwh", "gpus", "budget_per_hour",
      "mode"};
  if (auto unknown = detail::refuse_unknown_keys(j, kKeys, "input")) return *unknown;
  FieldReader f(j, "");
  // Training modes are answered by evaluate_training (see parse_request); here only inference.
  if (const auto mode = f.string("mode"); mode && *mode != "inference")
    return make_error("mode", "\"" + *mode + "\" is a training mode; this request answers inference only");
  Request r;
  r.model = f.string("model").value_or("");
  r.config_json = detail::config_text(f);
  r.params = f.uint("params").value_or(0);
  r.weights = f.string("weights").value_or("");
  r.kv_dtype = f.string("kv_dtype").value_or("");
  r.context = f.uint("context");
  r.batch = f.uint("batch").value_or(1);
  r.headroom = f.number("headroom").value_or(kDefaultHeadroom);
  r.gpu = f.string("gpu").value_or("");
  r.engine = f.string("engine").value_or("transformers");
  r.attention = f.string("attention").value_or("");
  r.kv_allocation = f.string("kv_allocation").value_or("");
  r.avg_tokens = f.uint("avg_tokens");
  r.expandable_segments = f.boolean("expandable_segments").value_or(false);
  r.gpu_util = f.number("gpu_util").value_or(kVllmDefaultGpuUtil);
  r.max_num_batched_tokens = f.uint("max_num_batched_tokens");
  r.max_num_seqs = f.uint("max_num_seqs");
  r.gpu_layers = f.uint("gpu_layers");
  r.serving.system_bandwidth_gb_s = f.number("system_bandwidth");
  r.serving.prompt_tokens = f.uint("prompt_tokens");
  r.serving.usd_per_kwh = f.number("usd_per_kwh");
  r.budget_per_hour = f.number("budget_per_hour");
  if (const json* gpus = f.find("gpus")) {
    // An array of ids or names, or one comma-separated string (as the CLI's --gpus takes it).
    if (gpus->is_string()) r.gpus = split_list(gpus->get<std::string>());
    else if (gpus->is_array() && std::all_of(gpus->begin(), gpus->end(), [](const json& g) { return g.is_string(); }))
      for (const json& g : *gpus) r.gpus.push_back(g.get<std::string>());
    else f.fail("gpus", "expected an array of GPU ids or a comma-separated string", *gpus);
  }
  if (f.error()) return *f.error();
  return r;
}

Result<TrainingRequest> training_request(const json& j) {
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

// "mode" names a training mode (an unknown word too, so that evaluate_training reports it, naming "mode").
bool asks_training(const json& j) {
  const auto it = j.find("mode");
  return it != j.end() && it->is_string() && is_training_mode(it->get_ref<const std::string&>());
}

// Reads and removes "question": the rest of the object is the question's inputs.
Result<Question> take_question(json& j) {
  FieldReader f(j, "");
  const auto name = f.string("question");
  if (f.error()) return *f.error();
  j.erase("question");
  if (!name || *name == "estimate") return Question::estimate;
  static constexpr std::pair<std::string_view, Question> kQuestions[] = {
      {"limits", Question::limits},           {"curve", Question::curve},
      {"gpu_ranking", Question::gpu_ranking}, {"biggest_model", Question::biggest_model},
      {"remedies", Question::remedies}};
  for (const auto& [key, question] : kQuestions)
    if (*name == key) return question;
  return make_error("question", "unknown question \"" + *name + "\"; allowed: " + std::string(kQuestionNames));
}

// Reads and removes the curve's own keys, so that the rest is an inference request.
Result<CurveInputs> take_curve_inputs(json& j) {
  CurveInputs out;
  detail::FieldReader f(j, "");
  const std::string axis = f.string("axis").value_or("context");
  out.points = f.uint("points").value_or(256);
  out.to = f.uint("to").value_or(0);
  if (const json* v = f.array("values")) {
    for (const auto& x : *v) {
      if (!x.is_number() || x.get<double>() < 1 || x.get<double>() > 1e12)
        return make_error("values", "expected positive numbers");
      out.values.push_back(static_cast<std::uint64_t>(x.get<double>()));
    }
  }
  if (f.error()) return *f.error();
  if (axis != "context" && axis != "batch") return make_error("axis", "allowed: context, batch");
  out.axis = axis == "batch" ? CurveAxis::batch : CurveAxis::context;
  for (const char* key : {"axis", "points", "to", "values"}) j.erase(key);
  return out;
}

}  // namespace

Result<ParsedRequest> parse_request(std::string_view text) {
  auto object = request_object(text);
  if (!object) return object.error();
  json& j = object.value();
  ParsedRequest out;
  auto question = take_question(j);
  if (!question) return question.error();
  out.question = question.value();
  if (out.question == Question::curve) {
    auto curve = take_curve_inputs(j);
    if (!curve) return curve.error();
    out.curve = std::move(curve).value();
  }
  // "mode": "train" | "lora" | "qlora" asks the training estimate or its remedies; the other questions are
  // inference only, and the inference reader says so, naming "mode".
  const bool trains = out.question == Question::estimate || out.question == Question::remedies;
  if (trains && asks_training(j)) {
    auto training = training_request(j);
    if (!training) return training.error();
    out.training = std::move(training).value();
    return out;
  }
  auto inference = inference_request(j);
  if (!inference) return inference.error();
  out.inference = std::move(inference).value();
  return out;
}

Result<Request> request_from_json(std::string_view text) {
  auto object = request_object(text);
  if (!object) return object.error();
  return inference_request(object.value());
}

Result<TrainingRequest> training_request_from_json(std::string_view text) {
  auto object = request_object(text);
  if (!object) return object.error();
  return training_request(object.value());
}

}  // namespace vramfit
