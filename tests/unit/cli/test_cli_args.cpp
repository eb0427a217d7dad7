// The CLI as a translator: flags become request keys by the inputs table, values go as typed, the core checks them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>  // std::string
#include <vector>  // std::vector

#include "cli_args.hpp"
#include "vramfit/inputs.hpp"
#include "json/request.hpp"

using namespace vramfit;
using namespace vramfit::cli;
using nlohmann::json;

namespace {

json request_of(const std::vector<std::string>& args) {
  auto o = parse_args(args);
  REQUIRE_MESSAGE(!o.error, (o.error ? o.error->field + ": " + o.error->message : ""));
  return json::parse(o.options.request);
}

}  // namespace

TEST_CASE("flags become their request keys with the values as typed; a toggle's flag alone is true") {
  const json r = request_of({"--model", "llama-3.1-8b", "--context", "8k", "--ngl", "0", "--gpu-util=0.85", "--sp",
                             "--attn-implementation", "eager", "--mode", "train", "--seq", "4k", "--json"});
  CHECK(r == json{{"model", "llama-3.1-8b"}, {"context", "8k"}, {"gpu_layers", "0"}, {"gpu_util", "0.85"},
                  {"sp", true}, {"attn_implementation", "eager"}, {"mode", "train"}, {"sequence", "4k"}});
  CHECK(request_of({"--sp=off"}) == json{{"sp", "off"}});
}

TEST_CASE("--flash-attention is --attn-implementation as a toggle: on is sdpa, off is eager") {
  CHECK(request_of({"--flash-attention", "off"}) == json{{"attn_implementation", "eager"}});
  CHECK(request_of({"--flash-attention=on"}) == json{{"attn_implementation", "sdpa"}});
  CHECK(request_of({"--flash-attention", "--json"}) == json{{"attn_implementation", "sdpa"}});
  const auto twice = parse_args({"--attn-implementation", "eager", "--flash-attention", "on"});
  REQUIRE(twice.error);
  CHECK(twice.error->field == "--flash-attention");
  const auto maybe = parse_args({"--flash-attention", "maybe"});
  REQUIRE(maybe.error);
  CHECK(maybe.error->message.find("sdpa or eager") != std::string::npos);
}

TEST_CASE("every input with a flag reaches its request key") {
  for (const Input& in : inputs()) {
    if (in.flag.empty()) continue;
    CAPTURE(in.flag);
    if (in.key == "quant_config") {  // names a file, which main() reads into the request
      CHECK(parse_args({std::string(in.flag), "x"}).options.quant_config_path == "x");
      continue;
    }
    const std::vector<std::string> args =
        in.value_name.empty() ? std::vector<std::string>{std::string(in.flag)}
                              : std::vector<std::string>{std::string(in.flag), "x"};
    const json r = request_of(args);
    REQUIRE(r.contains(in.key));
    CHECK(r[std::string(in.key)] == (in.value_name.empty() ? json(true) : json("x")));
  }
}

TEST_CASE("the question flags set the request's question; two different questions are refused") {
  CHECK(request_of({"--rank-gpus"})["question"] == "gpu_ranking");
  CHECK(request_of({"--biggest"})["question"] == "biggest_model");
  CHECK(request_of({"--remedies"})["question"] == "remedies");
  CHECK(request_of({"--max-context", "--max-batch"})["question"] == "limits");
  CHECK_FALSE(request_of({"--model", "gpt2"}).contains("question"));
  auto both = parse_args({"--rank-gpus", "--biggest"});
  REQUIRE(both.error);
  CHECK(both.error->field == "--biggest");
  CHECK(both.error->message == "asks another question than --rank-gpus; give one");
  CHECK(parse_args({"--list-gpus", "--json"}).options.action == Action::list_gpus);
  CHECK(parse_args({"--list-gpus", "--json"}).options.json);
}

TEST_CASE("a flag given twice is refused, naming it") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--context", "1", "--context", "2"},
                                                                {"--model", "gpt2", "--model", "./config.json"},
                                                                {"--sp", "--sp"}}) {
    auto o = parse_args(args);
    REQUIRE(o.error);
    CHECK(o.error->field == (args.size() == 2 ? args[0] : args[2]));
    CHECK(o.error->message == "given twice; give it once");
  }
}

TEST_CASE("unknown flags, missing values and values for the CLI's own flags are named") {
  auto o = parse_args({"--modle", "x"});
  REQUIRE(o.error);
  CHECK(o.error->field == "--modle");
  CHECK(o.error->message == "unknown flag; run vramfit --help for the list");
  o = parse_args({"--context"});
  REQUIRE(o.error);
  CHECK(o.error->message == "needs a value: TOKENS");
  CHECK(parse_args({"--gpu="}).error->message == "needs a value: NAME");
  CHECK(parse_args({"--json=yes"}).error->message == "takes no value");
}

TEST_CASE("a --model path is the CLI's to read; a preset id goes into the request") {
  auto o = parse_args({"--model=./config.json", "--params=7e9"});
  REQUIRE(!o.error);
  CHECK(o.options.model_path == "./config.json");
  CHECK(json::parse(o.options.request) == json{{"params", "7e9"}});
  CHECK(parse_args({"--model", "m.gguf"}).options.model_path == "m.gguf");
}

TEST_CASE("one rule says whether --model names a file or a model by name") {
  CHECK(names_a_file("./config.json"));
  CHECK(names_a_file("m.gguf"));
  CHECK(names_a_file("/models/qwen3"));
  CHECK(names_a_file("../checkpoint"));
  CHECK(!names_a_file("phi4"));
  CHECK(!names_a_file("qwen3:32b"));
  CHECK(!names_a_file("Qwen/Qwen3-30B-A3B"));  // no such folder here: a Hub repository
  CHECK(!names_a_file("https://huggingface.co/unsloth/Qwen3-8B-GGUF/blob/main/Qwen3-8B-Q4_K_M.gguf"));
  CHECK(!names_a_file("hf.co/Qwen/Qwen3-8B"));
  CHECK(parse_args({"--model", "Qwen/Qwen3-30B-A3B"}).options.model_path.empty());
}

TEST_CASE("the CLI checks no value: the core refuses it, and the error names the flag the user typed") {
  auto o = parse_args({"--model", "llama-3.1-8b", "--ngl", "banana", "--max-context"});
  REQUIRE(!o.error);
  auto parsed = parse_request(o.options.request);
  REQUIRE_FALSE(parsed.ok());
  const cli::Error e = with_flag_name({parsed.error().field, parsed.error().message.text}, o.options);
  CHECK(e.field == "--ngl");
  CHECK(e.message == "expected a whole number from 0 to 1,000,000; got \"banana\"");
}

TEST_CASE("error fields map to flags by the table; other fields stay") {
  Options ranking;
  ranking.question_flag = "--rank-gpus";
  const auto field_named = [&](const char* field) { return with_flag_name({field, "m"}, ranking).field; };
  CHECK(field_named("gpu_layers") == "--ngl");
  CHECK(field_named("sequence") == "--seq");
  CHECK(field_named("micro_batch") == "--micro-batch");
  CHECK(field_named("gpus") == "--gpus");
  CHECK(field_named("question") == "--rank-gpus");
  CHECK(field_named("config.hidden_size") == "config.hidden_size");
  CHECK(field_named("config") == "config");
  CHECK(field_named("file") == "file");  // no model file given
  ranking.model_path = "m.gguf";
  CHECK(field_named("file") == "--model");
}

TEST_CASE("--help lists every input's flag with its help line, and the CLI's own flags, in lines of 100 at most") {
  const std::string help = help_text();
  // A wrapped help reads as one line again when each break before the 28-column indent is one space.
  const std::string indent = "\n" + std::string(28, ' ');
  std::string unwrapped = help;
  for (auto at = unwrapped.find(indent); at != std::string::npos; at = unwrapped.find(indent, at + 1))
    unwrapped.replace(at, indent.size(), " ");
  for (const Input& in : inputs()) {
    if (in.flag.empty()) continue;
    CAPTURE(in.flag);
    CHECK(help.find("  " + std::string(in.flag)) != std::string::npos);
    CHECK(unwrapped.find(std::string(in.help) + "\n") != std::string::npos);
  }
  for (const char* flag : {"--rank-gpus", "--biggest", "--remedies", "--max-context", "--max-batch", "--json",
                           "--offline", "--revision", "--list-models", "--list-gpus", "--help", "--version"})
    CHECK_MESSAGE(help.find(std::string("  ") + flag) != std::string::npos, flag);
  std::size_t start = 0;
  for (std::size_t end = help.find('\n'); end != std::string::npos; start = end + 1, end = help.find('\n', start))
    CHECK_MESSAGE(end - start <= 100, help.substr(start, end - start));
}
