// One dispatcher: every question's answer is its own writer's text, for a request and for a model file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <span>    // std::span
#include <string>  // std::string

#include "../file_builders.hpp"
#include "../test_support.hpp"
#include "json/answer.hpp"
#include "json/report_writer.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

Request inference(const char* text) {
  auto r = request_from_json(text);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().field + ": " + r.error().message.text));
  return r.value();
}

}  // namespace

TEST_CASE("answer writes what each question's own writer writes") {
  const Catalog& c = test::catalog();
  const char* scenario = R"({"model":"llama-3.1-8b","gpu":"rtx-4090"})";
  const Request r = inference(scenario);
  auto with = [&](const char* question) {
    return answer(c, std::string(R"({"question":")") + question + R"(",)" + std::string(scenario).substr(1));
  };
  CHECK(answer(c, scenario) == report_to_json(evaluate(c, r).value()));
  CHECK(with("estimate") == report_to_json(evaluate(c, r).value()));
  CHECK(with("limits") == limits_to_json(solve_limits(c, r).value()));
  CHECK(with("gpu_ranking") == gpu_ranking_report_to_json(rank_gpus_for(c, r).value()));
  CHECK(with("biggest_model") == biggest_report_to_json(biggest_for(c, r).value()));
  CHECK(with("remedies") == remedies_report_to_json(remedies_for(c, r).value()));
  CHECK(answer(c, R"({"question":"curve","model":"llama-3.1-8b","axis":"batch","points":4})") ==
        curve_to_json(memory_curve(c, inference(R"({"model":"llama-3.1-8b"})"), CurveAxis::batch, 4).value()));
  const TrainingRequest lora = training_request_from_json(R"({"mode":"lora","model":"llama-2-7b"})").value();
  CHECK(answer(c, R"({"mode":"lora","model":"llama-2-7b"})") ==
        training_report_to_json(evaluate_training(c, lora).value()));
  CHECK(answer(c, R"({"question":"remedies","mode":"lora","model":"llama-2-7b"})") ==
        remedies_report_to_json(remedies_for(c, lora).value()));
}

TEST_CASE("a question's error is the error answer, naming the field") {
  const Catalog& c = test::catalog();
  CHECK(answer(c, R"({"question":"limits","model":"llama-3.1-8b"})") ==
        error_to_json(solve_limits(c, inference(R"({"model":"llama-3.1-8b"})")).error()));
  CHECK(answer(c, "{not json") == R"({"error":{"field":"request","message":{"args":{},"id":"json.invalid","text":"is not valid JSON"}},"ok":false})");
}

TEST_CASE("a model file answers every question that takes a model, through the same dispatcher") {
  const Catalog& c = test::catalog();
  const test::Bytes file = test::tiny_llama_gguf().build();
  auto ask = [&](std::size_t prefix, const char* request) {
    return answer_file(c, std::span<const std::byte>(file.data(), prefix), file.size(), "tiny.gguf", request);
  };
  // 16 bytes hold the magic, the version and the counts, not the metadata: the answer asks for more.
  const json need = json::parse(ask(16, "{}"));
  CHECK(need["ok"] == true);
  CHECK(need["need_prefix_bytes"].get<std::uint64_t>() > 16);
  CHECK(need.size() == 2);

  const json estimate = json::parse(ask(file.size(), R"({"context":512})"));
  REQUIRE(estimate["ok"] == true);
  CHECK(estimate["model"]["name"] == "tiny llama");
  const json curve = json::parse(ask(file.size(), R"({"question":"curve","values":[64,512]})"));
  REQUIRE(curve["ok"] == true);
  CHECK(curve["totals"][1] == estimate["breakdown"]["total"]);
  CHECK(json::parse(ask(file.size(), R"({"question":"limits","gpu":"rtx-4090"})"))["ok"] == true);
  CHECK(json::parse(ask(file.size(), R"({"question":"gpu_ranking","gpus":["rtx-4090"]})"))["ok"] == true);
  CHECK(json::parse(ask(file.size(), R"({"question":"remedies"})"))["mode"] == "inference");
  CHECK(json::parse(ask(file.size(), R"({"mode":"lora"})"))["mode"] == "lora");
  // The biggest model is chosen among the catalog's presets: a file has no part in it.
  CHECK(json::parse(ask(file.size(), R"({"question":"biggest_model","gpu":"rtx-4090"})"))["error"]["field"] ==
        "question");
}

TEST_CASE("a sharded checkpoint asks for the shard whose header runs past its prefix") {
  const Catalog& c = test::catalog();
  const test::Bytes shard = test::build_safetensors({{"a.weight", "BF16", {4, 4}, 32}});
  const SafetensorsFile files[] = {{"model.safetensors",
                                    std::span<const std::byte>(shard.data(), 8), shard.size()}};
  const json need = json::parse(answer_shards(c, files, "", "{}"));
  CHECK(need["ok"] == true);
  CHECK(need["need_file"] == 0);
  CHECK(need["need_prefix_bytes"].get<std::uint64_t>() > 8);
  const SafetensorsFile whole[] = {{files[0].name, std::span<const std::byte>(shard), shard.size()}};
  const json r = json::parse(answer_shards(c, whole, "", R"({"question":"estimate"})"));
  REQUIRE(r["ok"] == true);
  CHECK(r["breakdown"]["weights"] == 32);  // 16 BF16 parameters × 2 B
}

namespace {

// The answers to several questions about `scenario` (a JSON object's members, without braces).
json several(const std::string& questions, const std::string& scenario) {
  json j = json::parse(answer(test::catalog(), "{\"questions\":" + questions + "," + scenario + "}"));
  REQUIRE_MESSAGE(j["ok"] == true, j.dump());
  return j["answers"];
}

json alone(const std::string& question, const std::string& scenario) {
  return json::parse(answer(test::catalog(), "{" + question + "," + scenario + "}"));
}

}  // namespace

TEST_CASE("several questions about one scenario answer what each asked alone answers") {
  const std::string questions =
      R"(["estimate",{"question":"estimate","every_gpu":true},"gpu_ranking","remedies","limits",)"
      R"({"question":"curve","axis":"context","points":8},{"question":"curve","axis":"batch","values":[1,3,9]},)"
      R"({"question":"gpu_ranking","every_gpu":true}])";
  for (const std::string scenario :
       {R"("model":"llama-3.1-8b","gpu":"rtx-4090")", R"("model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm")",
        R"("model":"qwen2.5-7b","weights":"q4_k_m","engine":"llamacpp","gpu":"rtx-3060-8gb","context":32768)",
        R"("model":"llama-2-13b","engine":"vllm","gpu":"a100-40gb-sxm","gpu_util":0.8)"}) {
    CAPTURE(scenario);
    const json parts = several(questions, scenario);
    REQUIRE(parts.size() == 8);
    CHECK(parts[0] == alone(R"("question":"estimate")", scenario));
    const std::string without_gpu = scenario.substr(0, scenario.find(",\"gpu\":")) +
                                    scenario.substr(scenario.find('"', scenario.find(",\"gpu\":") + 8) + 1);
    CHECK(parts[1] == alone(R"("question":"estimate")", without_gpu));
    CHECK(parts[2] == alone(R"("question":"gpu_ranking")", scenario));
    CHECK(parts[3] == alone(R"("question":"remedies")", scenario));
    CHECK(parts[4] == alone(R"("question":"limits")", scenario));
    CHECK(parts[5] == alone(R"("question":"curve","axis":"context","points":8)", scenario));
    CHECK(parts[6] == alone(R"("question":"curve","axis":"batch","values":[1,3,9])", scenario));
    CHECK(parts[7] == alone(R"("question":"gpu_ranking")", without_gpu));
  }
}

TEST_CASE("several questions about a training scenario: estimate, curves and remedies; the others name the mode") {
  const std::string scenario = R"("mode":"lora","model":"llama-2-7b","gpu":"rtx-4090","tokens":1000000)";
  const json parts = several(
      R"(["estimate",{"question":"estimate","every_gpu":true},"remedies",{"question":"curve","axis":"batch","points":4},"gpu_ranking"])",
      scenario);
  CHECK(parts[0] == alone(R"("question":"estimate")", scenario));
  CHECK(parts[1] == alone(R"("question":"estimate")", R"("mode":"lora","model":"llama-2-7b","tokens":1000000)"));
  CHECK(parts[2] == alone(R"("question":"remedies")", scenario));
  CHECK(parts[3] == alone(R"("question":"curve","axis":"batch","points":4)", scenario));
  CHECK(parts[3]["lines"][0]["key"] == "weights");
  CHECK(parts[4]["error"]["field"] == "mode");
}

TEST_CASE("several questions: a wrong scenario is one error, a wrong question names its entry") {
  const Catalog& c = test::catalog();
  CHECK(json::parse(answer(c, R"({"questions":["estimate"],"model":"nope"})"))["error"]["field"] == "model");
  CHECK(json::parse(answer(c, R"({"questions":[],"model":"llama-3.1-8b"})"))["error"]["field"] == "questions");
  CHECK(json::parse(answer(c, R"({"questions":["estimate","guess"],"model":"llama-3.1-8b"})"))["error"]["field"] ==
        "questions[1].question");
  CHECK(json::parse(answer(c, R"({"questions":[{"question":"curve","axis":"width"}],"model":"llama-3.1-8b"})"))
            ["error"]["field"] == "questions[0].axis");
  CHECK(json::parse(answer(c, R"({"questions":[{"question":"curve","context":5}],"model":"llama-3.1-8b"})"))
            ["error"]["field"] == "questions[0].context");
  CHECK(json::parse(answer(c, R"({"questions":["biggest_model"],"gpu":"rtx-4090"})"))["error"]["field"] ==
        "questions[0]");
  CHECK(json::parse(answer(c, R"({"question":"estimate","questions":["estimate"],"model":"llama-3.1-8b"})"))
            ["error"]["field"] == "question");
  // The GPU ranking's own inputs are read when it is asked, and only then.
  CHECK(json::parse(answer(c, R"({"questions":["estimate"],"model":"llama-3.1-8b","budget_per_hour":5})"))
            ["error"]["field"] == "budget_per_hour");
  // A question the scenario cannot answer is that part's error; the others still answer.
  const json parts = several(R"(["limits","estimate"])", R"("model":"llama-3.1-8b")");
  CHECK(parts[0]["error"]["field"] == "gpu");
  CHECK(parts[1]["ok"] == true);
}

TEST_CASE("several questions about a model file: the curves of a training scenario come from its header") {
  const Catalog& c = test::catalog();
  const test::Bytes file = test::tiny_llama_gguf().build();
  const std::string text = answer_file(c, std::span<const std::byte>(file), file.size(), "tiny.gguf",
                                       R"({"questions":["estimate",{"question":"curve","values":[64,128]}],)"
                                       R"("mode":"lora","context":128})");
  const json j = json::parse(text);
  REQUIRE(j["ok"] == true);
  CHECK(j["answers"][0]["mode"] == "lora");
  CHECK(j["answers"][1]["totals"][1] == j["answers"][0]["breakdown"]["total"]);
}

TEST_CASE("a Mac's wired limit (sudo sysctl iogpu.wired_limit_mb) is what every question judges its GPU by") {
  const Catalog& c = test::catalog();
  const json base = json::parse(answer(c, R"({"model":"llama-3.1-8b","gpu":"apple-m3-max-36gb"})"));
  REQUIRE(base.at("ok") == true);
  CHECK(base.at("gpus").at(0).at("usable_bytes") == 27ull << 30);  // 36 GiB × 3/4, macOS's default
  CHECK(base.at("gpus").at(0).at("wired_limit") == "macos_default");
  // The verdict says what it counted, and that macOS 26's larger default is not modelled.
  const std::string notes = base.at("notes").dump();
  CHECK(notes.find("may use 27.00 GiB of its 36 GiB of RAM: macOS's default") != std::string::npos);
  CHECK(notes.find("macOS 26 allows more") != std::string::npos);
  const json set = json::parse(answer(c, R"({"model":"llama-3.1-8b","gpu":"apple-m3-max-36gb","wired_limit_mb":32768})"));
  REQUIRE(set.at("ok") == true);
  CHECK(set.at("gpus").at(0).at("usable_bytes") == 32ull << 30);  // 32,768 MiB
  CHECK(set.at("gpus").at(0).at("wired_limit") == "set");
  CHECK(set.at("notes").dump().find("may use 32.00 GiB of its 36 GiB of RAM: the wired limit given") != std::string::npos);
  CHECK(set.at("command").at("text") == "");  // transformers has no command line to set the limit before
  const json served = json::parse(answer(
      c, R"({"model":"llama-3.1-8b","engine":"llamacpp","gpu":"apple-m3-max-36gb","wired_limit_mb":32768})"));
  CHECK(served.at("command").at("text").get<std::string>().starts_with("sudo sysctl iogpu.wired_limit_mb=32768\nllama-server "));
  // The GPU table of every GPU judges that Mac by it too; the other Macs keep macOS's default.
  const json every = json::parse(answer(
      c, R"({"questions":[{"question":"estimate","every_gpu":true}],"model":"llama-3.1-8b","gpu":"apple-m3-max-36gb","wired_limit_mb":32768})"));
  for (const json& g : every.at("answers").at(0).at("gpus")) {
    if (g.at("id") == "apple-m3-max-36gb") CHECK(g.at("usable_bytes") == 32ull << 30);
    if (g.at("id") == "apple-m3-pro-36gb") CHECK(g.at("usable_bytes") == 27ull << 30);
  }
  const json training = json::parse(
      answer(c, R"({"mode":"lora","model":"llama-3.1-8b","gpu":"apple-m3-max-36gb","wired_limit_mb":30720})"));
  REQUIRE(training.at("ok") == true);
  CHECK(training.at("gpus").at(0).at("usable_bytes") == 30ull << 30);
}

TEST_CASE("a wired limit without a Mac, on a discrete card or above the Mac's RAM is refused, naming the field") {
  const Catalog& c = test::catalog();
  for (const char* request : {R"({"model":"llama-3.1-8b","wired_limit_mb":32768})",
                              R"({"model":"llama-3.1-8b","gpu":"rtx-4090","wired_limit_mb":20000})",
                              R"({"model":"llama-3.1-8b","gpu":"apple-m3-max-36gb","wired_limit_mb":40000})"}) {
    CAPTURE(request);
    const json out = json::parse(answer(c, request));
    CHECK(out.at("ok") == false);
    CHECK(out.at("error").at("field") == "wired_limit_mb");
  }
  // Asked of evaluate() directly, the limit is refused rather than ignored: answer() puts it into the catalog.
  const auto direct = evaluate(c, inference(R"({"model":"llama-3.1-8b","gpu":"apple-m3-max-36gb","wired_limit_mb":32768})"));
  REQUIRE_FALSE(direct.ok());
  CHECK(direct.error().field == "wired_limit_mb");
}

TEST_CASE("what would help on a Mac too small by its default share: raise iogpu.wired_limit_mb, with its risk") {
  const Catalog& c = test::catalog();
  // Llama-3.1-70B in q4_k_m at 16k on a 64 GB M2 Max: above the default 48 GiB, within the 56 GiB macOS's reserve
  // of 8 GiB allows.
  const char* scenario =
      R"({"question":"remedies","model":"llama-3.1-70b","engine":"llamacpp","weights":"q4_k_m","context":16384,"gpu":"apple-m2-max-64gb"})";
  const json out = json::parse(answer(c, scenario));
  REQUIRE(out.at("ok") == true);
  REQUIRE(out.at("fit") != "fits");
  const json* wired = nullptr;
  for (const json& r : out.at("remedies"))
    if (r.at("id") == "wired-limit") wired = &r;
  REQUIRE(wired != nullptr);
  const std::uint64_t bytes = out.at("bytes"), limit = wired->at("inputs").at("wired_limit_mb");
  // By hand: the smallest whole GiB at or above bytes / 0.9, in MiB.
  const std::uint64_t gib = static_cast<std::uint64_t>(static_cast<double>(bytes) / 0.9 / (1ull << 30)) + 1;
  CHECK(limit == gib * 1024);
  CHECK(limit <= 56u * 1024);
  CHECK(wired->at("fit") == "fits");
  CHECK(wired->at("usable_bytes") == limit << 20);
  CHECK(wired->at("saved_bytes") == 0);
  const std::string cost = wired->at("cost").at("text");
  CHECK(cost.find("sudo sysctl iogpu.wired_limit_mb=" + std::to_string(limit)) != std::string::npos);
  CHECK(cost.find("freeze or restart") != std::string::npos);
  // Applied, the same scenario fits.
  std::string applied = std::string(scenario);
  applied.replace(applied.find(R"("question":"remedies",)"), 22, "\"wired_limit_mb\":" + std::to_string(limit) + ",");
  const json after = json::parse(answer(c, applied));
  REQUIRE(after.at("ok") == true);
  CHECK(after.at("gpus").at(0).at("fit") == "fits");
}

TEST_CASE("what would help on a Strix Halo too small by Linux's default share: ttm.pages_limit in 4 KiB pages") {
  const Catalog& c = test::catalog();
  // Llama 3.3 70B in Q8_0 (about 70 GiB of weights) at 8192 tokens: above the 64 GiB Linux gives a 128 GB Strix
  // Halo's GPU by default, within the 120 GiB an 8 GiB system reserve allows.
  const char* scenario =
      R"({"question":"remedies","model":"llama-3.3-70b","engine":"llamacpp","weights":"q8_0","context":8192,"gpu":"ryzen-ai-max-395-128gb"})";
  const json out = json::parse(answer(c, scenario));
  REQUIRE(out.at("ok") == true);
  REQUIRE(out.at("fit") != "fits");
  const json* share = nullptr;
  for (const json& r : out.at("remedies"))
    if (r.at("id") == "wired-limit") share = &r;
  REQUIRE(share != nullptr);
  // The estimate as asked with all of it on the GPU (llama.cpp's --fit put part in system RAM before).
  const std::uint64_t bytes = share->at("bytes"), limit = share->at("inputs").at("wired_limit_mb");
  CHECK(bytes > 64ull << 30);
  // By hand: the smallest whole GiB at or above bytes / 0.9, in MiB; 1 GiB is 262,144 pages of 4 KiB.
  const std::uint64_t gib = static_cast<std::uint64_t>(static_cast<double>(bytes) / 0.9 / (1ull << 30)) + 1;
  CHECK(limit == gib * 1024);
  CHECK(limit <= 120u * 1024);
  CHECK(share->at("fit") == "fits");
  CHECK(share->at("usable_bytes") == limit << 20);
  const std::string cost = share->at("cost").at("text");
  CHECK(cost.find("ttm.pages_limit=" + std::to_string(gib * 262144) + " ") != std::string::npos);
  CHECK(cost.find("sysctl") == std::string::npos);
  CHECK(share->at("cost").at("id") == "remedy.gtt_limit");
  CHECK(share->at("source").at("id") == "remedy.source.gtt");
  // Applied, the same scenario fits.
  std::string applied = std::string(scenario);
  applied.replace(applied.find(R"("question":"remedies",)"), 22, "\"wired_limit_mb\":" + std::to_string(limit) + ",");
  const json after = json::parse(answer(c, applied));
  REQUIRE(after.at("ok") == true);
  CHECK(after.at("gpus").at(0).at("fit") == "fits");
  // A DGX Spark has no share to set: CUDA takes what is free, so no such remedy.
  const json spark = json::parse(answer(
      c, R"({"question":"remedies","params":70e9,"weights":"bf16","gpu":"dgx-spark"})"));
  REQUIRE(spark.at("ok") == true);
  for (const json& r : spark.at("remedies")) CHECK(r.at("id") != "wired-limit");
}

TEST_CASE("what would help on an MI300A too small by ROCm's default share: amdttm's pages_limit for the node") {
  // 50 B parameters in bf16 (100 GB of weights) under transformers: above the 96 GiB × 0.9 ROCm allows by default.
  const json out = json::parse(answer(
      test::catalog(), R"({"question":"remedies","params":50e9,"weights":"bf16","context":2048,"gpu":"mi300a"})"));
  REQUIRE(out.at("ok") == true);
  const json* share = nullptr;
  for (const json& r : out.at("remedies"))
    if (r.at("id") == "wired-limit") share = &r;
  REQUIRE(share != nullptr);
  const std::uint64_t bytes = out.at("bytes");
  const std::uint64_t gib = static_cast<std::uint64_t>(static_cast<double>(bytes) / 0.9 / (1ull << 30)) + 1;
  CHECK(share->at("inputs").at("wired_limit_mb") == gib * 1024);
  // ROCm/amdgpu-docs mi300a.rst: pages_limit counts 4 KiB pages for all the node's APUs (33554432 × 4 for four).
  const std::string cost = share->at("cost").at("text");
  CHECK(cost.find("of " + std::to_string(gib * 262144 * 4) + " ") != std::string::npos);
  CHECK(share->at("cost").at("id") == "remedy.amdttm_limit");
}

TEST_CASE("a LoRA job too big for a Mac's default share is offered the wired limit that holds it") {
  // Qwen3-14B LoRA at 8192 tokens on a 64 GB M2 Max: above the default 48 GiB × 0.9.
  const json out = json::parse(answer(
      test::catalog(), R"({"question":"remedies","mode":"lora","model":"qwen3-14b","sequence":8192,"gpu":"apple-m2-max-64gb"})"));
  REQUIRE(out.at("ok") == true);
  const json* wired = nullptr;
  for (const json& r : out.at("remedies"))
    if (r.at("id") == "wired-limit") wired = &r;
  REQUIRE(wired != nullptr);
  const std::uint64_t bytes = out.at("bytes");
  const std::uint64_t gib = static_cast<std::uint64_t>(static_cast<double>(bytes) / 0.9 / (1ull << 30)) + 1;
  CHECK(wired->at("inputs").at("wired_limit_mb") == gib * 1024);  // by hand: whole GiB at or above bytes / 0.9
  CHECK(wired->at("fit") == "fits");
}
