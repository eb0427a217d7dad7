// Request JSON → the questions' inputs: one parse, "question" and "mode" routing, each question's own keys.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cctype>       // std::isdigit
#include <string_view>  // std::string_view

#include "../test_support.hpp"
#include "json/answer.hpp"  // answer
#include "json/inputs.hpp"
#include "json/request.hpp"
#include "util/text.hpp"  // split_list
#include "memory/engines/llamacpp.hpp"  // kLlamaCppBuildModelled, llamacpp_version_name
#include "memory/engines/mlx.hpp"       // kMlxVersionModelled
#include "memory/engines/ollama.hpp"    // kOllamaVersionModelled
#include "memory/engines/sglang.hpp"    // kSglangVersionPrefillGraphs
#include "memory/engines/vllm.hpp"      // kVllmVersionModelled, parse_vllm_version

using namespace vramfit;
using nlohmann::json;

TEST_CASE("a request without a question asks for the estimate") {
  auto r = parse_request(R"({"model":"llama-3.1-8b","context":8192})");
  REQUIRE(r.ok());
  CHECK(r.value().question == Question::estimate);
  CHECK(r.value().inference.model == "llama-3.1-8b");
  CHECK(*r.value().inference.context == 8192);
  CHECK_FALSE(r.value().training.has_value());
  CHECK(parse_request(R"({"question":"estimate"})").value().question == Question::estimate);
}

TEST_CASE("an unknown question names the key and lists the questions") {
  auto r = parse_request(R"({"question":"cost","model":"llama-3.1-8b"})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "question");
  CHECK(r.error().message.text == "unknown question \"cost\"; allowed: estimate, limits, curve, gpu_ranking, biggest_model, remedies");
  CHECK(parse_request(R"({"question":3})").error().field == "question");
  CHECK(parse_request("[1]").error().field == "request");
}

TEST_CASE("each question reads back by its name, and reads the training inputs where the table says it trains") {
  for (const QuestionInfo& q : questions()) {
    CAPTURE(q.name);
    CHECK(parse_question(q.name) == q.question);
    CHECK(question_name(q.question) == q.name);
    const std::string asked = std::string(R"({"question":")") + std::string(q.name) + "\"" +
                              (q.question == Question::curve ? R"(,"axis":"batch","values":[1,2])" : "");
    CHECK(parse_request(asked + "}").value().question == q.question);
    // A training mode: read as training where the question answers it, refused naming "mode" where it does not.
    const auto lora = parse_request(asked + R"(,"mode":"lora"})");
    if (q.trains) {
      REQUIRE(lora.ok());
      CHECK(lora.value().training.has_value());
    } else {
      REQUIRE_FALSE(lora.ok());
      CHECK(lora.error().field == "mode");
    }
  }
  CHECK_FALSE(parse_question("cost"));
}

TEST_CASE("answer() answers a training scenario for each question the table says trains, and refuses the others") {
  for (const QuestionInfo& q : questions()) {
    CAPTURE(q.name);
    const std::string asked = std::string(R"({"model":"llama-3.1-8b","gpu":"h100-sxm","mode":"lora","question":")") +
                              std::string(q.name) + "\"" +
                              (q.question == Question::curve ? R"(,"axis":"batch","values":[1,2])" : "") + "}";
    const json a = json::parse(answer(test::catalog(), asked));
    if (q.trains) {
      CHECK(a["ok"] == true);
    } else {
      REQUIRE(a["ok"] == false);
      CHECK(a["error"]["field"] == "mode");
    }
  }
}

TEST_CASE("the curve's own keys are read beside the inputs and kept out of them") {
  auto r = parse_request(R"({"question":"curve","model":"gemma-2-9b","axis":"batch","values":[1,2,8],"gpu":"l40s"})");
  REQUIRE(r.ok());
  const ParsedRequest& p = r.value();
  CHECK(p.question == Question::curve);
  CHECK(p.curve.axis == CurveAxis::batch);
  CHECK(p.curve.values == std::vector<std::uint64_t>{1, 2, 8});
  CHECK(p.curve.points == 256);
  CHECK(p.inference.model == "gemma-2-9b");
  CHECK(p.inference.gpu == "l40s");
  CHECK(parse_request(R"({"question":"curve","model":"gemma-2-9b","axis":"width"})").error().field == "axis");
  // Another question has no axis: the key is refused like any unknown input.
  CHECK(parse_request(R"({"question":"limits","model":"gemma-2-9b","axis":"batch"})").error().field == "axis");
}

TEST_CASE("training goes by mode for the estimate, the curve and the remedies; the other questions answer inference only") {
  for (const char* question : {"estimate", "curve", "remedies"}) {
    auto r = parse_request(std::string(R"({"question":")") + question + R"(","mode":"lora","model":"llama-2-7b","batch":2})");
    REQUIRE(r.ok());
    REQUIRE(r.value().training.has_value());
    CHECK(r.value().training->mode == TrainingMode::lora);
    CHECK(r.value().training->micro_batch == 2);
  }
  for (const char* question : {"limits", "gpu_ranking", "biggest_model"}) {
    auto r = parse_request(std::string(R"({"question":")") + question + R"(","mode":"train","model":"llama-2-7b"})");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "mode");
  }
  CHECK_FALSE(parse_request(R"({"mode":"inference","model":"llama-2-7b"})").value().training.has_value());
}

// Each kind of input has one wording: the key (the error's field), what is allowed, and the value as given.
namespace {

Error refused(const char* request) {
  auto r = parse_request(request);
  REQUIRE_MESSAGE(!r.ok(), request);
  return r.error();
}

}  // namespace

TEST_CASE("tokens: a whole number of tokens, typed as 8192, 8k or 1.5M") {
  const Error e = refused(R"({"model":"llama-3.1-8b","context":"0"})");
  CHECK(e.field == "context");
  CHECK(e.message.text == "expected a whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got \"0\"");
  CHECK(refused(R"({"model":"llama-3.1-8b","context":0})").message.text ==
        "expected a whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got 0");
  CHECK(*parse_request(R"({"context":"8k"})").value().inference.context == 8192);
  CHECK(*parse_request(R"({"context":"1.5M"})").value().inference.context == 1'572'864);  // 1.5 × 1024²
  CHECK(*parse_request(R"({"context":8192})").value().inference.context == 8192);
  CHECK(*parse_request(R"({"mode":"train","sequence":"4k"})").value().training->sequence == 4096);
}

TEST_CASE("quantity: a whole number, typed as 7e9, 300B or 1.5T") {
  const Error e = refused(R"({"params":"seven"})");
  CHECK(e.field == "params");
  CHECK(e.message.text == "expected a whole number from 1 to 1e14, such as 7e9, 300B or 1.5T; got \"seven\"");
  CHECK(parse_request(R"({"params":"7B"})").value().inference.params == 7'000'000'000ULL);
  CHECK(*parse_request(R"({"mode":"train","tokens":"300B"})").value().training->tokens == 3e11);
  CHECK(refused(R"({"mode":"train","tokens":0})").message.text ==
        "expected a whole number from 1 to 1e18, such as 7e9, 300B or 1.5T; got 0");
}

TEST_CASE("count: a whole number in digits") {
  const Error e = refused(R"({"batch":"2.5"})");
  CHECK(e.field == "batch");
  CHECK(e.message.text == "expected a whole number from 1 to 1,000,000; got \"2.5\"");
  CHECK(refused(R"({"batch":"8k"})").message.text == "expected a whole number from 1 to 1,000,000; got \"8k\"");
  CHECK(refused(R"({"gpu_layers":-1})").message.text == "expected a whole number from 0 to 1,000,000; got -1");
  CHECK(parse_request(R"({"batch":"8"})").value().inference.batch == 8);
  CHECK(parse_request(R"({"batch":8.0})").value().inference.batch == 8);
}

TEST_CASE("number: a finite number in its range, above its minimum where zero means nothing") {
  const Error e = refused(R"({"usd_per_kwh":"cheap"})");
  CHECK(e.field == "usd_per_kwh");
  CHECK(e.message.text == "expected a number from 0 to 100; got \"cheap\"");
  CHECK(refused(R"({"system_bandwidth":"0"})").message.text == "expected a number above 0 and at most 10,000; got \"0\"");
  CHECK(refused(R"({"question":"gpu_ranking","budget_per_hour":-1})").message.text == "expected a number above 0; got -1");
  CHECK(refused(R"({"usd_per_kwh":"0x10"})").field == "usd_per_kwh");
  CHECK(refused(R"({"usd_per_kwh":"inf"})").field == "usd_per_kwh");
  CHECK(*parse_request(R"({"usd_per_kwh":"0.3"})").value().inference.serving.usd_per_kwh == 0.3);
}

TEST_CASE("fraction: a number in its range, or a percentage") {
  const Error e = refused(R"({"gpu_util":"1.5"})");
  CHECK(e.field == "gpu_util");
  CHECK(e.message.text == "expected a fraction above 0 and at most 1, such as 0.4 or 40%; got \"1.5\"");
  CHECK(refused(R"({"headroom":0.95})").message.text == "expected a fraction from 0 to 0.9, such as 0.4 or 40%; got 0.95");
  CHECK(parse_request(R"({"gpu_util":"85%"})").value().inference.gpu_util.value_or(0) == doctest::Approx(0.85));
  CHECK(*parse_request(R"({"mode":"train","mfu":"35%"})").value().training->mfu == doctest::Approx(0.35));
  CHECK(refused(R"({"mode":"train","mfu":"35"})").field == "mfu");  // 35 is no fraction; 35% is
}

TEST_CASE("toggle: true or false, typed as on/off, yes/no or 1/0 in any case") {
  const Error e = refused(R"({"mode":"train","sp":"maybe"})");
  CHECK(e.field == "sp");
  CHECK(e.message.text == "expected true or false (or on/off, yes/no, 1/0); got \"maybe\"");
  for (const char* off : {"false", "OFF", "no", "0"})
    CHECK_FALSE(parse_request(std::string(R"({"mode":"train","sp":")") + off + "\"}").value().training->sp);
  for (const char* on : {"true", "On", "yes", "1"})
    CHECK(parse_request(std::string(R"({"mode":"train","sp":")") + on + "\"}").value().training->sp);
  CHECK(parse_request(R"({"expandable_segments":true})").value().inference.expandable_segments);
}

TEST_CASE("choice: one of the allowed values, or an alias its parser knows") {
  const Error e = refused(R"({"engine":"tgi"})");
  CHECK(e.field == "engine");
  CHECK(e.message.text == "expected one of transformers, vllm, llamacpp, sglang, ollama, mlx; got \"tgi\"");
  CHECK(refused(R"({"mode":"pretrain"})").message.text == "expected one of inference, train, lora, qlora, grpo; got \"pretrain\"");
  CHECK(refused(R"({"mode":"train","zero":7})").message.text ==
        "expected one of 0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD; got 7");
  const Error allocation = refused(R"({"kv_allocation":"dynamic"})");
  CHECK(allocation.field == "kv_allocation");
  CHECK(allocation.message.id == "input.choice");
  CHECK(allocation.message.text == "expected one of static, paged; got \"dynamic\"");
  CHECK(parse_request(R"({"kv_allocation":"Paged"})").value().inference.kv_allocation == KvAllocation::paged);
  CHECK(parse_request(R"({"kv_allocation":"static"})").value().inference.kv_allocation == KvAllocation::static_max);
  // "default" is how an answer names the engine's own choice; a request says it by leaving the key out.
  CHECK(refused(R"({"kv_allocation":"default"})").field == "kv_allocation");
  CHECK(kv_allocation_name(KvAllocation::engine_default) == "default");
  CHECK(kv_allocation_name(KvAllocation::static_max) == "static");
  CHECK(parse_request(R"({"engine":"llama.cpp"})").value().inference.engine == Engine::llamacpp);  // the core's alias
  CHECK(parse_request(R"({"mode":"train","zero":3})").value().training->zero == ZeroStage::parameters);
  // Names in any case, as people write them (vLLM's own docs spell it so).
  CHECK(parse_request(R"({"engine":"vLLM"})").value().inference.engine == Engine::vllm);
  CHECK(parse_request(R"({"kv_dtype":"FP8"})").value().inference.kv_dtype == KvDType::fp8);
  CHECK_FALSE(parse_request(R"({"mode":"INFERENCE"})").value().training.has_value());
  for (const Input& in : inputs()) {
    if (in.kind != InputKind::choice) continue;
    CAPTURE(in.key);
    for (const std::string& value : split_list(allowed_values(in))) CHECK(is_allowed_value(in, value));
  }
}

TEST_CASE("text, config and list: the value's shape") {
  CHECK(refused(R"({"gpu":5})").message.text == "expected a text; got 5");
  CHECK(refused(R"({"config":[1]})").message.text == "expected a config.json object or its text; got an array");
  const Error e = refused(R"({"question":"gpu_ranking","gpus":" , "})");
  CHECK(e.field == "gpus");
  CHECK(e.message.text == "expected GPU ids, as an array or comma-separated text such as h100-sxm,l40s; got \" , \"");
  CHECK(parse_request(R"({"question":"gpu_ranking","gpus":"h100-sxm, l40s"})").value().inference.gpus ==
        std::vector<std::string>{"h100-sxm", "l40s"});
  CHECK(parse_request(R"({"question":"gpu_ranking","gpus":["h100-sxm"]})").value().inference.gpus ==
        std::vector<std::string>{"h100-sxm"});
  // A long value is shown cut, never inside a UTF-8 character.
  CHECK(refused(R"({"engine":"ääääääääääääääääääääääääääääää"})").message.text ==
        "expected one of transformers, vllm, llamacpp, sglang, ollama, mlx; got \"ääääääääääääääääääää…\"");
}

TEST_CASE("a key is refused where no question reads it: unknown keys list the allowed ones") {
  const Error unknown = refused(R"({"model":"llama-3.1-8b","contxt":8192})");
  CHECK(unknown.field == "contxt");
  CHECK(unknown.message.text.starts_with("is not a known input; allowed: model, config, model_name, model_repo, model_revision, model_hf_file, ollama_tag, quant_config, config_name, params, mode, weights, kv_dtype, context"));
  CHECK(unknown.message.text.ends_with(", usd_per_kwh, gpus, tp, pp, question"));
  CHECK(refused(R"({"question":"curve","contxt":1})").message.text.ends_with(", question, axis, points, from, to, spacing, values"));
  CHECK(refused(R"({"model":"llama-3.1-8b","zero":"3"})").message.text == "applies to training; set mode to train, lora or qlora");
  CHECK(refused(R"({"mode":"lora","engine":"vllm"})").message.text == "applies to inference only; training does not use it");
  CHECK(refused(R"({"budget_per_hour":5})").message.text == "applies to the GPU ranking only");
  // gpus is a count in inference as in training: names are the ranking's.
  CHECK(parse_request(R"({"model":"llama-3.1-8b","gpus":"8"})").value().inference.gpu_count == 8);
  CHECK(parse_request(R"({"model":"llama-3.1-8b","gpus":"h100-sxm,l40s"})").value().inference.devices.size() == 2);
  CHECK(refused(R"({"question":"limits","mode":"train"})").message.text ==
        "\"train\" is a training mode; the question \"limits\" answers inference only");
}

namespace {

// Whether `text` names `version` whole: "0.27" in "0.27 (default" but not in "0.27.1" or "10.27".
bool names_version(std::string_view text, std::string_view version) {
  for (std::size_t at = text.find(version); at != std::string_view::npos; at = text.find(version, at + 1)) {
    const bool starts = at == 0 || !(std::isdigit(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '.');
    const std::size_t end = at + version.size();
    const bool digit_after = end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]));
    const bool part_after = end + 1 < text.size() && text[end] == '.' &&
                            std::isdigit(static_cast<unsigned char>(text[end + 1]));
    if (starts && !digit_after && !part_after) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("engine_version's help names each engine's modelled and newest release, and the first vLLM refused") {
  const Input* in = input_by_key("engine_version");
  REQUIRE(in);
  const std::string_view help = in->help;
  CHECK(names_version(help, kVllmVersionModelled));
  CHECK(names_version(help, kSglangVersionPrefillGraphs));
  CHECK(names_version(help, kOllamaVersionModelled));
  CHECK(names_version(help, kMlxVersionModelled));
  CHECK(names_version(help, kLlamaCppVersionModelled));
  CHECK(names_version(help, llamacpp_version_name(kLlamaCppBuildModelled)));
  CHECK(names_version(help, llamacpp_version_name(kLlamaCppOldestBuild)));
  CHECK(names_version(help, llamacpp_version_name(kLlamaCppDraftInFitBuild)));
  // "0.28 and later are refused": the release after the newest modelled, as the parser refuses it.
  CHECK(help.find("0.28 and later are refused") != std::string_view::npos);
  CHECK(vllm_version_after_modelled("0.28"));
  CHECK_FALSE(vllm_version_after_modelled(kVllmVersionModelled));
  CHECK(parse_vllm_version(kVllmVersionModelled) == VllmRule::hybrid_prefix_caching);
}
