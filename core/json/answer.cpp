#include "json/answer.hpp"

#include <iterator>  // std::size
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include "formats/gguf.hpp"        // import_gguf_splits
#include "formats/hub_repo.hpp"    // gguf_quant_label
#include "formats/model_file.hpp"  // import_model_header
#include "formats/safetensors.hpp"  // import_safetensors
#include "json/report_writer.hpp"
#include "questions/other_models.hpp"  // OthersByCard
#include "util/text.hpp"  // lookup_key

namespace vramfit {
namespace {

// A question's result as its JSON: the report's writer, or the error's.
template <class Report, class Write>
std::string written(const Result<Report>& result, Write write) {
  if (!result) return error_to_json(result.error());
  return write(result.value());
}

// The request for a model file: parsed, and a question that takes a model.
Result<ParsedRequest> parse_file_request(std::string_view text, const ModelReads* reads) {
  auto request = parse_request(text, reads);
  if (!request) return request.error();
  if (request.value().question == Question::biggest_model)
    return make_error("question", message("request.biggest_no_file",
                                          "biggest_model compares the catalog's presets; it takes no model file"));
  return request;
}

// The config.json a safetensors checkpoint needs for its architecture, from whichever request was read.
const std::string& config_of(const ParsedRequest& request) {
  return request.training ? request.training->config_json : request.inference.config_json;
}

// The imported header answers in place of the request's model; its config.json went into the import.
std::string answer_imported(const Catalog& catalog, ParsedRequest request, Result<ImportedModel> imported,
                            bool sharded) {
  if (!imported) return error_to_json(imported.error());
  if (imported.value().need_prefix_bytes != 0) return need_prefix_to_json(imported.value(), sharded);
  auto attach = [&](auto& r) {
    r.config_json.clear();
    r.quant_config_json.clear();
    r.model.clear();
    r.imported = std::move(imported).value();
  };
  if (request.training) attach(*request.training);
  else attach(request.inference);
  return answer(catalog, request);
}

// The single curve question: of the training scenario, or of the inference one.
Result<Curve> curve_of(const Catalog& catalog, const ParsedRequest& request) {
  if (!request.training) return memory_curve(catalog, request.inference, request.curve);
  auto scenario = resolve_training(catalog, *request.training);
  if (!scenario) return scenario.error();
  return training_curve(scenario.value().report, request.curve);
}

Request request_without_gpu(Request r) {
  r.gpu.clear();
  return r;
}

// {"answers": [one answer per question, in the order asked], "ok": true}.
std::string answers_to_json(const std::vector<std::string>& parts) {
  std::string out = "{\"answers\":[";
  for (const std::string& part : parts) out += (&part == &parts.front() ? "" : ",") + part;
  return out + "],\"ok\":true}";
}

// One inference scenario, resolved and estimated once (on the request's GPU, if any), for several questions; the
// GPU ranking and an every_gpu estimate share the estimate without that GPU (on_every_gpu), made when first asked,
// and the other vLLM or SGLang models as sized on each card (others_sized), sized when a card is first met.
struct InferenceScene {
  const Catalog& catalog;
  const Request& r;
  const ResolvedRequest& rr;
  const Result<Report>& base;
  std::optional<Result<Report>> every;
  OthersByCard others_sized;
  const Result<Report>& every_gpu() {
    if (!every) every = on_every_gpu(catalog, r, rr, base.value(), &others_sized);
    return *every;
  }
};

// One training scenario, resolved and estimated once, judged on the request's GPU and, when first asked, on every GPU.
struct TrainingScene {
  const Catalog& catalog;
  const TrainingRequest& t;
  const TrainingScenario& scenario;
  const Result<TrainingReport>& base;
  std::optional<Result<TrainingReport>> every;
  const Result<TrainingReport>& every_gpu() {
    if (!every) every = scenario.report.gpu ? judge_training(catalog, t, scenario, nullptr) : base;
    return *every;
  }
};

// Each question's answer with its writer: asked alone, or among several about an inference or a training scenario.
std::string estimate_alone(const Catalog& catalog, const ParsedRequest& request) {
  if (request.training) return written(evaluate_training(catalog, *request.training), training_report_to_json);
  return written(evaluate(catalog, request.inference), report_to_json);
}
std::string estimate_among(InferenceScene& s, const AskedQuestion& q) {
  return written(q.every_gpu ? s.every_gpu() : s.base, report_to_json);
}
std::string estimate_among_training(TrainingScene& s, const AskedQuestion& q) {
  return written(q.every_gpu ? s.every_gpu() : s.base, training_report_to_json);
}

std::string limits_alone(const Catalog& catalog, const ParsedRequest& request) {
  return written(solve_limits(catalog, request.inference), limits_to_json);
}
std::string limits_among(InferenceScene& s, const AskedQuestion&) { return written(solve_limits(s.rr), limits_to_json); }

std::string curve_alone(const Catalog& catalog, const ParsedRequest& request) {
  return written(curve_of(catalog, request), curve_to_json);
}
std::string curve_among(InferenceScene& s, const AskedQuestion& q) {
  return written(memory_curve(s.rr, q.curve, &s.base.value().estimate), curve_to_json);
}
std::string curve_among_training(TrainingScene& s, const AskedQuestion& q) {
  return written(training_curve(s.scenario.report, q.curve), curve_to_json);
}

std::string ranking_alone(const Catalog& catalog, const ParsedRequest& request) {
  return written(rank_gpus_for(catalog, request.inference), gpu_ranking_report_to_json);
}
std::string ranking_among(InferenceScene& s, const AskedQuestion& q) {
  const Result<Report>& all = s.every_gpu();
  if (!all) return error_to_json(all.error());
  return written(rank_gpus_for(s.catalog, q.every_gpu ? request_without_gpu(s.r) : s.r, without_gpu(s.rr),
                               all.value().estimate, &s.others_sized),
                 gpu_ranking_report_to_json);
}

std::string biggest_alone(const Catalog& catalog, const ParsedRequest& request) {
  return written(biggest_for(catalog, request.inference), biggest_report_to_json);
}
std::string biggest_among(InferenceScene&, const AskedQuestion&) {  // refused by parse_request: not about a scenario
  return error_to_json(make_error("questions", message("request.biggest_asked_alone", "biggest_model is asked alone")));
}

std::string remedies_alone(const Catalog& catalog, const ParsedRequest& request) {
  if (request.training) return written(remedies_for(catalog, *request.training), remedies_report_to_json);
  return written(remedies_for(catalog, request.inference), remedies_report_to_json);
}
std::string remedies_among(InferenceScene& s, const AskedQuestion&) {
  return written(remedies_for(s.catalog, s.r, s.base.value()), remedies_report_to_json);
}
std::string remedies_among_training(TrainingScene& s, const AskedQuestion&) {
  return written(remedies_for(s.catalog, s.t, s.base.value()), remedies_report_to_json);
}

// What answers each question, one row per Question in its order (vramfit/questions.hpp): `training` is null for a
// question of inference only, as kQuestions' `trains` says (held at compile time below).
struct Answerer {
  Question question;
  std::string (*alone)(const Catalog&, const ParsedRequest&);
  std::string (*inference)(InferenceScene&, const AskedQuestion&);
  std::string (*training)(TrainingScene&, const AskedQuestion&);
};
constexpr Answerer kAnswerers[] = {
    {Question::estimate, estimate_alone, estimate_among, estimate_among_training},
    {Question::limits, limits_alone, limits_among, nullptr},
    {Question::curve, curve_alone, curve_among, curve_among_training},
    {Question::gpu_ranking, ranking_alone, ranking_among, nullptr},
    {Question::biggest_model, biggest_alone, biggest_among, nullptr},
    {Question::remedies, remedies_alone, remedies_among, remedies_among_training},
};

constexpr bool answerers_follow_questions() {
  if (std::size(kAnswerers) != std::size(kQuestions)) return false;
  for (std::size_t i = 0; i < std::size(kAnswerers); ++i)
    if (kAnswerers[i].question != kQuestions[i].question || (kAnswerers[i].training != nullptr) != kQuestions[i].trains)
      return false;
  return true;
}
static_assert(answerers_follow_questions(), "one answerer per question, in its order, answering training where it trains");

const Answerer& answerer(Question question) { return kAnswerers[static_cast<std::size_t>(question)]; }

// Several questions about one inference scenario.
std::string answer_inference(const Catalog& catalog, const ParsedRequest& request) {
  const Request& r = request.inference;
  const auto scenario = resolve_request(catalog, r);
  if (!scenario) return error_to_json(scenario.error());
  const auto base = evaluate(catalog, r, scenario.value());
  if (!base) return error_to_json(base.error());
  InferenceScene scene{catalog, r, scenario.value(), base, std::nullopt, {}};
  std::vector<std::string> parts;
  for (const AskedQuestion& q : request.questions) parts.push_back(answerer(q.question).inference(scene, q));
  return answers_to_json(parts);
}

// Several questions about one training scenario; the inference-only questions answer with an error naming "mode".
std::string answer_training(const Catalog& catalog, const ParsedRequest& request) {
  const TrainingRequest& t = *request.training;
  const auto scenario = resolve_training(catalog, t);
  if (!scenario) return error_to_json(scenario.error());
  const auto base = judge_training(catalog, t, scenario.value(), scenario.value().report.gpu);
  if (!base) return error_to_json(base.error());
  TrainingScene scene{catalog, t, scenario.value(), base, std::nullopt};
  std::vector<std::string> parts;
  for (const AskedQuestion& q : request.questions) {
    if (const auto among = answerer(q.question).training) {
      parts.push_back(among(scene, q));
      continue;
    }
    parts.push_back(error_to_json(make_error(
        "mode", message("request.training_mode_question",
                        "\"{mode}\" is a training mode; the question \"{question}\" answers inference only",
                        {arg::text("mode", t.grpo ? std::string_view("grpo") : training_mode_name(t.mode)),
                         arg::text("question", question_name(q.question))}))));
  }
  return answers_to_json(parts);
}

std::string answer_on(const Catalog& catalog, const ParsedRequest& request);
std::string answer_with_wired_limit(const Catalog& catalog, const ParsedRequest& request);

}  // namespace

std::string answer(const Catalog& catalog, const ParsedRequest& request) {
  // A card described by its figures joins the catalog first, so that the questions (and a wired limit) find it.
  const CustomGpuInputs& described = request.training ? request.training->custom_gpu : request.inference.custom_gpu;
  const std::string& named = request.training ? request.training->gpu : request.inference.gpu;
  const std::vector<std::string>& devices = request.inference.devices;
  const bool first_device = !request.training && named.empty() && !devices.empty();
  if (described.any() || is_custom_gpu_name(named) || (first_device && is_custom_gpu_name(devices.front()))) {
    ParsedRequest local = request;
    std::string& gpu = local.training ? local.training->gpu : local.inference.gpu;
    // Among several cards the one described is the first (CUDA0), as the page lists its own card before a second.
    if (first_device) gpu = devices.front();
    auto with_card = with_custom_gpu(catalog, gpu, described);
    if (!with_card) return error_to_json(with_card.error());
    if (first_device) {
      for (std::string& d : local.inference.devices)
        if (lookup_key(d) == lookup_key(devices.front())) d = gpu;
      gpu.clear();
    }
    return answer_with_wired_limit(with_card.value(), local);
  }
  return answer_with_wired_limit(catalog, request);
}

namespace {

// A Mac's wired limit changes what its GPU may use for every question asked: the catalog carries it.
std::string answer_with_wired_limit(const Catalog& catalog, const ParsedRequest& request) {
  const std::uint64_t wired = request.training ? request.training->wired_limit_mb : request.inference.wired_limit_mb;
  if (wired == 0) return answer_on(catalog, request);
  const auto local = with_wired_limit(catalog, request.training ? request.training->gpu : request.inference.gpu, wired);
  if (!local) return error_to_json(local.error());
  return answer_on(local.value(), request);
}

std::string answer_on(const Catalog& catalog, const ParsedRequest& request) {
  if (!request.questions.empty())
    return request.training ? answer_training(catalog, request) : answer_inference(catalog, request);
  return answerer(request.question).alone(catalog, request);
}

}  // namespace

std::string answer(const Catalog& catalog, std::string_view request_json, const ModelReads* reads) {
  auto request = parse_request(request_json, reads);
  if (!request) return error_to_json(request.error());
  return answer(catalog, request.value());
}

std::string answer_file(const Catalog& catalog, std::span<const std::byte> prefix, std::uint64_t file_size,
                        std::string_view file_name, std::string_view request_json, const ModelReads* reads) {
  auto request = parse_file_request(request_json, reads);
  if (!request) return error_to_json(request.error());
  auto imported = import_model_header(file_name, prefix, file_size, config_of(request.value()));
  request.value().inference.model_quant = gguf_quant_label(file_name);
  request.value().inference.model_file = std::string(file_name);
  return answer_imported(catalog, std::move(request).value(), std::move(imported), false);
}

std::string answer_shards(const Catalog& catalog, std::span<const SafetensorsFile> files, std::string_view index_json,
                          std::string_view request_json, const ModelReads* reads) {
  auto request = parse_file_request(request_json, reads);
  if (!request) return error_to_json(request.error());
  const bool gguf = !files.empty() && files.front().name.ends_with(".gguf");
  auto imported = gguf ? import_gguf_splits(files) : import_safetensors(files, config_of(request.value()), index_json);
  if (gguf) request.value().inference.model_quant = gguf_quant_label(files.front().name);
  if (gguf) request.value().inference.model_file = files.front().name;
  return answer_imported(catalog, std::move(request).value(), std::move(imported), true);
}

}  // namespace vramfit
