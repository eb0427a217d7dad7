// A checkpoint is read whole or asked for: an NVIDIA ModelOpt checkpoint's config.json alone, whose format lives
// in the hf_quant_config.json beside it, is counted as bf16 with a note and "missing_files" naming that file; with
// the file the weights are counted in their format. Over every reference config that has its hf_quant_config.json.
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <set>         // std::set
#include <sstream>     // std::ostringstream
#include <string>      // std::string

#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "json/answer.hpp"
#include "model/hf_quantization.hpp"  // read_checkpoint_name

using namespace vramfit;
using nlohmann::json;

namespace {

const std::filesystem::path kConfigs = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "configs";
constexpr std::string_view kAsked = "import.quant_config_missing";

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The estimate for the reference checkpoint `name` (OWNER--REPO): its config.json under its file name, with its
// hf_quant_config.json when `whole`.
json estimate(const std::string& name, bool whole) {
  json request = {{"config", text_of(kConfigs / (name + "_config.json"))}, {"config_name", name + "_config.json"}};
  if (whole) request["quant_config"] = text_of(kConfigs / (name + "_hf_quant_config.json"));
  const json answer = json::parse(vramfit::answer(test::catalog(), request.dump()));
  REQUIRE_MESSAGE(answer.value("ok", false), name << ": " << answer.dump().substr(0, 300));
  return answer;
}

bool asks(const json& answer) {
  for (const auto& note : answer["notes"])
    if (note["id"] == kAsked) return true;
  return false;
}

std::uint64_t weight_bytes(const json& answer) { return answer["breakdown"]["weights"].get<std::uint64_t>(); }

}  // namespace

TEST_CASE("every NVIDIA checkpoint's config.json alone is counted as its format, or asks for its hf_quant_config.json") {
  // The reference configs whose config.json names no quantization at all (no quantization_config): only the
  // name says FP8 or NVFP4, and only the hf_quant_config.json beside it says how the weights are stored.
  const std::set<std::string> name_only{
      "nvidia--DeepSeek-V3.1-NVFP4",
      "nvidia--DeepSeek-V3.2-NVFP4",
      "nvidia--GLM-5-NVFP4",
      "nvidia--Llama-3.1-70B-Instruct-FP8",
      "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
      "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8",
      "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4",
      "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8",
      "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4",
      "nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4",
      "nvidia--Qwen3-235B-A22B-NVFP4",
  };
  int pairs = 0, asked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kConfigs)) {
    const std::string file = entry.path().filename().string();
    constexpr std::string_view kTwin = "_hf_quant_config.json";
    if (!file.ends_with(kTwin)) continue;
    const std::string name = file.substr(0, file.size() - kTwin.size());
    CAPTURE(name);
    ++pairs;
    const json alone = estimate(name, false);
    const json whole = estimate(name, true);
    // With its hf_quant_config.json nothing is asked, and the weights are counted in the checkpoint's format.
    CHECK_FALSE(asks(whole));
    CHECK(whole["missing_files"] == json::array());
    CHECK(whole["weights"]["format"] != "bf16");
    if (name_only.contains(name)) {
      ++asked;
      CHECK(asks(alone));
      CHECK(alone["missing_files"] == json::array({"hf_quant_config.json"}));
      // Alone: every tensor in bf16, 2 B per parameter.
      CHECK(alone["weights"]["format"] == "bf16");
      CHECK(weight_bytes(alone) == 2 * alone["model"]["params_total"].get<std::uint64_t>());
      // FP8 halves that, NVFP4 (4.5 bits a weight, some modules kept in 16 bits) takes about a quarter to a third.
      CHECK(weight_bytes(alone) > weight_bytes(whole) * 18 / 10);
    } else {
      // The config.json names ModelOpt's quantization itself (quant_method "modelopt" or its producer): it says
      // what the hf_quant_config.json says, and nothing is asked.
      CHECK_FALSE(asks(alone));
      CHECK(alone["missing_files"] == json::array());
      CHECK(weight_bytes(alone) == weight_bytes(whole));
    }
  }
  // tests/data/configs holds 26 of the 27 reference pairs (not nvidia/MiniMax-M3-NVFP4's 3 MB one).
  CHECK(pairs == 26);
  CHECK(asked == 11);
}

TEST_CASE("the weights of an NVIDIA checkpoint match its published files once its hf_quant_config.json is read") {
  // Alone, nvidia/Llama-3.1-70B-Instruct-FP8's config.json counts Llama 3.1 70B in bf16: 70,553,706,496 parameters
  // (HF Hub API safetensors.total of meta-llama/Llama-3.3-70B-Instruct, the same architecture) × 2 B.
  CHECK(weight_bytes(estimate("nvidia--Llama-3.1-70B-Instruct-FP8", false)) == 141'107'412'992ULL);
  // With its hf_quant_config.json (FP8, lm_head excluded): the repo's files, 72.7 GB (the shard sizes of
  // neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8, whose copy context-labs/neuralmagic-llama-3.1-70b-instruct-FP8
  // lists 72.7 GB in all, its 9 MB tokenizer included).
  CHECK(static_cast<double>(weight_bytes(estimate("nvidia--Llama-3.1-70B-Instruct-FP8", true))) ==
        doctest::Approx(72.7e9).epsilon(0.02));
  // nvidia/Qwen3-235B-A22B-NVFP4 alone: Qwen3-235B-A22B in bf16, 235,093,634,560 parameters (keras-hub
  // qwen3_moe_presets.py, commit 71453d08) × 2 B; with its hf_quant_config.json (NVFP4, group 16): "The complete
  // 134 GB model" (ytworks/kairyu docs/design/g4-mid-moe.md, D2).
  CHECK(weight_bytes(estimate("nvidia--Qwen3-235B-A22B-NVFP4", false)) == 470'187'269'120ULL);
  CHECK(static_cast<double>(weight_bytes(estimate("nvidia--Qwen3-235B-A22B-NVFP4", true))) ==
        doctest::Approx(134e9).epsilon(0.02));
}

TEST_CASE("only a name that says FP8 or NVFP4 over a config.json naming no quantization asks for the file") {
  const Catalog& c = test::catalog();
  auto asked_for = [&](const std::string& file, const std::string& config_name, const char* extra = "") {
    json request = json::parse(std::string("{") + extra + "}");
    request["config"] = text_of(kConfigs / file);
    if (!config_name.empty()) request["config_name"] = config_name;
    const json answer = json::parse(vramfit::answer(c, request.dump()));
    REQUIRE(answer.value("ok", false));
    CHECK(asks(answer) == !answer["missing_files"].empty());
    return !answer["missing_files"].empty();
  };
  const std::string fp8 = "nvidia--Llama-3.1-70B-Instruct-FP8_config.json";
  CHECK(asked_for(fp8, fp8));
  // A dropped config.json says nothing of its checkpoint: without a name there is nothing to go on.
  CHECK_FALSE(asked_for(fp8, ""));
  // A repository's id works as well (the page and the CLI show a looked-up model by it), beside a file name that
  // says nothing.
  CHECK(asked_for(fp8, "", R"("model_name": "nvidia/Llama-3.1-70B-Instruct-FP8")"));
  CHECK(asked_for(fp8, "config.json", R"("model_name": "nvidia/Llama-3.1-70B-Instruct-FP8")"));
  // A weight format chosen replaces the checkpoint's: nothing to ask.
  CHECK_FALSE(asked_for(fp8, fp8, R"("weights": "fp8")"));
  // NVIDIA publishes bf16 checkpoints too: the owner alone says nothing.
  CHECK_FALSE(asked_for("nvidia--Nemotron-H-56B-Base-8K_config.json", "nvidia/Nemotron-H-56B-Base-8K"));
  CHECK_FALSE(asked_for("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16_config.json",
                        "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16_config.json"));
  // Qwen's FP8 checkpoints name their quantization in config.json (quant_method "fp8"): read, not asked.
  CHECK_FALSE(asked_for("Qwen--Qwen3-32B-FP8_config.json", "Qwen/Qwen3-32B-FP8"));
  // Training keeps its weights by its precision, not the checkpoint's format: nothing to ask.
  const json lora = json::parse(vramfit::answer(
      c, json{{"mode", "lora"}, {"config", text_of(kConfigs / fp8)}, {"config_name", fp8}}.dump()));
  REQUIRE(lora.value("ok", false));
  CHECK_FALSE(asks(lora));
}

TEST_CASE("a checkpoint's name says its format as one word of it") {
  CHECK(read_checkpoint_name("nvidia--GLM-5-NVFP4_config.json").name == "nvidia--GLM-5-NVFP4");
  CHECK(read_checkpoint_name("nvidia--GLM-5-NVFP4_config.json").format == "NVFP4");
  CHECK(read_checkpoint_name("nvidia/Llama-3.1-70B-Instruct-FP8").format == "FP8");
  CHECK(read_checkpoint_name("Qwen3-32B-fp8-static").format == "FP8");
  CHECK(read_checkpoint_name("my-fp4-config.json").name == "my-fp4");
  CHECK(read_checkpoint_name("my-fp4-config.json").format == "FP4");
  CHECK(read_checkpoint_name("config.json").name.empty());
  // Inside a longer word it is no format: "FP8E4M3" or "NVFP4X" are other names.
  CHECK(read_checkpoint_name("Llama-FP8E4M3").format.empty());
  CHECK(read_checkpoint_name("Nemotron-H-56B-Base-8K").format.empty());
}
