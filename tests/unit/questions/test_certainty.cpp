// "Unknown" as an answer: where an input the verdict depends on is not known, each value it may take is
// estimated, and the verdict says how sure it is: certain, likely (each value runs, or none does, but the headroom
// differs) or unknown (the margin is smaller than the spread the input causes, so the verdict flips). One case of
// each kind, with the spread worked by hand.
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream
#include <string>      // std::string

#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "json/answer.hpp"
#include "questions/verdict.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

const std::filesystem::path kConfigs = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "configs";

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json ask(json request) {
  const json answer = json::parse(vramfit::answer(test::catalog(), request.dump()));
  REQUIRE_MESSAGE(answer.value("ok", false), answer.dump().substr(0, 300));
  return answer;
}

// NVIDIA's Llama-3.1-70B-Instruct-FP8: its config.json names no quantization; hf_quant_config.json says FP8.
json llama70_fp8(json extra, bool with_quant_file) {
  const std::string name = "nvidia--Llama-3.1-70B-Instruct-FP8";
  json request = {{"config", text_of(kConfigs / (name + "_config.json"))}, {"config_name", name + "_config.json"}};
  if (with_quant_file) request["quant_config"] = text_of(kConfigs / (name + "_hf_quant_config.json"));
  request.update(extra);
  return ask(request);
}

bool has_reason(const json& verdict, std::string_view id) {
  for (const json& r : verdict.at("certainty_reasons"))
    if (r.at("id") == id) return true;
  return false;
}

}  // namespace

TEST_CASE("certainty_of: the same verdict at every value is certain, the same side likely, a flip unknown") {
  using K = VerdictKind;
  CHECK(certainty_of(K::fits, {}) == Certainty::certain);
  CHECK(certainty_of(K::fits, {K::fits, K::fits}) == Certainty::certain);
  CHECK(certainty_of(K::tight, {K::fits}) == Certainty::likely);
  CHECK(certainty_of(K::runs_split, {K::fits}) == Certainty::likely);
  CHECK(certainty_of(K::does_not_fit, {K::refuses}) == Certainty::likely);
  CHECK(certainty_of(K::does_not_fit, {K::fits}) == Certainty::unknown);
  CHECK(certainty_of(K::refuses, {K::refuses, K::tight}) == Certainty::unknown);
  CHECK(certainty_name(Certainty::unknown) == "unknown");
}

TEST_CASE("a checkpoint without its hf_quant_config.json: unknown where the margin is smaller than the spread") {
  // The spread by hand: FP8 stores each linear weight in 1 B instead of bf16's 2 B. Llama-3.1-70B's linear weights:
  // 80 layers × (8192 × (8192 + 1024 + 1024 + 8192) + 3 × 8192 × 28672) = 80 × 855,638,016 = 68,451,041,280, so the
  // weights are at least 68.45 GB smaller as FP8.
  constexpr std::int64_t kSpread = 68'451'041'280;
  // On a 96 GB RTX PRO 6000 Blackwell, counted as bf16 (70,553,706,496 × 2 B = 141.1 GB of weights) it does not fit;
  // the shortfall is less than the spread, so the format decides.
  const json bf16 = llama70_fp8({{"gpu", "rtx-pro-6000-blackwell"}, {"context", 8192}}, false);
  const json& v = bf16.at("verdict");
  CHECK(v.at("kind") == "does_not_fit");
  const std::int64_t margin = bf16.at("gpus").at(0).at("free_bytes").get<std::int64_t>();
  CHECK(margin < 0);
  CHECK(-margin < kSpread);
  CHECK(v.at("certainty") == "unknown");
  CHECK(has_reason(v, "certainty.quant_file"));
  CHECK(v.at("lead").at("text") == "Unknown: ");
  CHECK(v.at("lead").at("id") == "headline.lead_unknown");
  CHECK(!v.at("message").at("text").get<std::string>().starts_with("Unknown: "));  // the lead is a key of its own
  // With the file read the format is known: certain.
  const json whole = llama70_fp8({{"gpu", "rtx-pro-6000-blackwell"}, {"context", 8192}}, true);
  CHECK(whole.at("verdict").at("certainty") == "certain");
  CHECK(whole.at("verdict").at("certainty_reasons").empty());
  CHECK(whole.at("verdict").at("lead").is_null());
  CHECK(whole.at("verdict").at("lead").is_null());
  // On one B200 it fits as bf16, and a smaller format only frees more: certain, though the file is unread.
  const json roomy = llama70_fp8({{"gpu", "b200"}, {"context", 8192}}, false);
  CHECK(roomy.at("verdict").at("kind") == "fits");
  CHECK(roomy.at("verdict").at("certainty") == "certain");
}

TEST_CASE("under vLLM the unread file may also set the KV cache to fp8: both values are weighed") {
  // vLLM's kv_cache_dtype "auto" takes the file's kv_cache_quant_algo: the FP8 weights with a bf16 and with an fp8
  // KV cache are the two other values. As bf16 the 141.1 GB of weights leave no pool on one 96 GB card.
  const json a = llama70_fp8({{"gpu", "rtx-pro-6000-blackwell"}, {"engine", "vllm"}, {"context", 8192}}, false);
  const json& v = a.at("verdict");
  CHECK(v.at("kind") != "fits");
  CHECK(v.at("certainty") == "unknown");
  CHECK(has_reason(v, "certainty.quant_file"));
  CHECK(has_reason(v, "certainty.quant_file_kv"));
}

TEST_CASE("a bare parameter count: its weights alone decide a no; a yes is unknown without the architecture") {
  // 70e9 × 2 B = 140,000,000,000 B of weights against a 24 GiB (25,769,803,776 B) RTX 4090: short whatever the KV
  // cache and activations, which only add.
  const json big = ask({{"params", 70e9}, {"weights", "fp16"}, {"gpu", "rtx-4090"}});
  CHECK(big.at("verdict").at("kind") == "does_not_fit");
  CHECK(big.at("verdict").at("certainty") == "certain");
  // 7e9 × 2 B = 14 GB fits, but the KV cache and activations are not counted (no layers, heads or hidden size): how
  // much they take has no bound but the context, so the answer is unknown, and the reason says what is left for them.
  const json small = ask({{"params", 7e9}, {"weights", "fp16"}, {"gpu", "rtx-4090"}});
  const json& v = small.at("verdict");
  CHECK(v.at("kind") == "fits");
  CHECK(v.at("certainty") == "unknown");
  REQUIRE(has_reason(v, "certainty.bare"));
  CHECK(v.at("certainty_reasons").at(0).at("args").at("free_bytes").get<std::int64_t>() ==
        small.at("gpus").at(0).at("free_bytes").get<std::int64_t>());
}
