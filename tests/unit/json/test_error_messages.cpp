// The errors a person on the page can cause carry a message id and its values beside the English, so the page says
// them in its language: every input's refusal, a config.json or model file that cannot be read, an unknown name.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstddef>  // std::byte
#include <string>   // std::string

#include "../test_support.hpp"
#include "json/answer.hpp"
#include "json/inputs.hpp"
#include "memory/engines/engines.hpp"  // kEngineTable

using namespace vramfit;
using nlohmann::json;

namespace {

json ask(const std::string& request) { return json::parse(answer(test::catalog(), request)); }

// A message without its English, to compare with its id and args.
json without_text(json m) {
  m.erase("text");
  return m;
}

json ask_file(std::string_view bytes, std::string_view name) {
  const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
  return json::parse(answer_file(test::catalog(), std::span<const std::byte>(data, bytes.size()), bytes.size(), name, "{}"));
}

// A request giving `key` a value no input kind takes ([1]: not a text, a number, a toggle nor a list of names),
// with what makes the key apply (a training mode, the GPU ranking).
std::string refused_request(const Input& in) {
  const std::string value = "\"" + std::string(in.key) + "\":[1]";
  if (used_by(in, InputUse::training) && !used_by(in, InputUse::inference)) return "{\"mode\":\"train\"," + value + "}";
  if (used_by(in, InputUse::gpu_ranking) && !used_by(in, InputUse::inference))
    return "{\"question\":\"gpu_ranking\"," + value + "}";
  return "{" + value + "}";
}

}  // namespace

TEST_CASE("every input's refusal carries a message id, the value as JSON shows it, and the English as before") {
  for (const Input& in : inputs()) {
    const json a = ask(refused_request(in));
    CAPTURE(in.key);
    REQUIRE(a["ok"] == false);
    CHECK(a["error"]["field"] == in.key);
    const std::string id = a["error"]["message"]["id"];
    CHECK(id.starts_with("input."));
    // An array is "[…]" in any language; the English sentence words it.
    CHECK(a["error"]["message"]["args"]["given"] == "[…]");
    CHECK(a["error"]["message"]["text"].get<std::string>().ends_with("; got an array"));
  }
}

TEST_CASE("a context out of range names the range and the value in the refusal's id and values") {
  // kMaxContextTokens is 100'000'000 (core/memory/inference.hpp), written out as digits in the English.
  const json a = ask(R"({"model":"llama-3.1-8b","context":"999999999999"})");
  CHECK(a["error"]["field"] == "context");
  CHECK(a["error"]["message"]["text"] ==
        "expected a whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got \"999999999999\"");
  CHECK(without_text(a["error"]["message"]) ==
        json::parse(R"({"id":"input.tokens_range","args":{"min":1,"max":100000000,"given":"\"999999999999\""}})"));
  // gpu_util lies above 0 and at most 1: its own form of range, the bounds as numbers.
  const json u = ask(R"({"model":"llama-3.1-8b","engine":"vllm","gpu_util":1.5})");
  CHECK(u["error"]["message"]["text"] == "expected a fraction above 0 and at most 1, such as 0.4 or 40%; got 1.5");
  CHECK(u["error"]["message"]["id"] == "input.fraction_above_max");
  CHECK(u["error"]["message"]["args"]["max"] == 1);
}

TEST_CASE("a config.json that cannot be read says which field and what it holds, in any language") {
  const json a = ask(R"({"config":{"model_type":"llama","hidden_size":"big"}})");
  CHECK(a["error"]["field"] == "config.hidden_size");
  CHECK(a["error"]["message"]["text"] == "expected a whole number, 0 or more, got the text \"big\"");
  CHECK(without_text(a["error"]["message"]) == json::parse(R"({"id":"json.expected_whole","args":{"got":"\"big\""}})"));
  const json list = ask(R"({"config":"[1, 2]"})");
  CHECK(list["error"]["message"]["id"] == "json.expected_json_object");
  // A size out of the model's range: 0 attention heads, the range written by hand from model_spec.cpp.
  const json heads = ask(R"({"config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
                                       "intermediate_size":11008,"num_attention_heads":0,"vocab_size":32000}})");
  CHECK(heads["error"]["message"]["text"] == "must be between 1 and 100000, got 0");
  CHECK(without_text(heads["error"]["message"]) ==
        json::parse(R"({"id":"model.range","args":{"min":1,"max":100000,"value":0}})"));
}

TEST_CASE("a model file that is not one says so with an id; the English keeps the offset") {
  const json a = ask_file("this is not a GGUF file at all, only text", "model.gguf");
  CHECK(a["error"]["field"] == "header.magic");
  CHECK(a["error"]["message"]["text"] == "at offset 0: not a GGUF file (expected the bytes \"GGUF\")");
  CHECK(a["error"]["message"]["id"] == "gguf.not_gguf");
  // A safetensors file starts with its header's length, then the JSON header: here 8 bytes of length 2, then "[]".
  const std::string st = std::string("\x02\0\0\0\0\0\0\0", 8) + "[]";
  const json s = ask_file(st, "model.safetensors");
  CHECK(s["error"]["message"]["text"] == "at offset 8: the JSON header must start with '{'");
  CHECK(s["error"]["message"]["id"] == "safetensors.header_brace");
}

TEST_CASE("an unknown GPU or model name carries the name given and the closest ones") {
  const json g = ask(R"({"model":"llama-3.1-8b","gpu":"rtx-9999"})");
  CHECK(g["error"]["field"] == "gpu");
  const std::string gid = g["error"]["message"]["id"];
  CHECK((gid == "gpu.unknown" || gid == "gpu.unknown_closest"));
  CHECK(g["error"]["message"]["args"]["given"] == "rtx-9999");
  CHECK(g["error"]["message"]["text"].get<std::string>().starts_with("unknown GPU \"rtx-9999\" (not in the GPU catalog)"));
  const json m = ask(R"({"model":"no-such-model-xyz"})");
  CHECK(m["error"]["field"] == "model");
  const std::string mid = m["error"]["message"]["id"];
  CHECK((mid == "model.unknown" || mid == "model.unknown_closest"));
  CHECK(m["error"]["message"]["args"]["given"] == "no-such-model-xyz");
}

TEST_CASE("a setting of another engine is refused, naming the engines that read it") {
  const json a = ask(R"({"model":"llama-3.1-8b","engine":"llamacpp","max_num_seqs":8})");
  CHECK(a["error"]["field"] == "max_num_seqs");
  CHECK(a["error"]["message"]["text"] == "applies to vLLM only; llama.cpp does not read it");
  CHECK(a["error"]["message"]["id"] == "engine.input_not_read");
  CHECK(a["error"]["message"]["args"]["engines"] == "vLLM");
  CHECK(a["error"]["message"]["args"]["engine"] == "llama.cpp");
  // -ngl is llama.cpp's and Ollama's num_gpu: both are named.
  const json b = ask(R"({"model":"llama-3.1-8b","engine":"vllm","gpu_layers":20})");
  CHECK(b["error"]["message"]["text"] == "applies to llama.cpp / Ollama only; vLLM does not read it");
  // Every input the table gives to some engines is refused by each of the others, under its own key.
  int refusals = 0;
  for (const Input& in : inputs()) {
    if (in.engines == Engines::all || !used_by(in, InputUse::inference)) continue;
    const json value = in.kind == InputKind::toggle ? json(true) : in.kind == InputKind::text ? json("0.11")
                       : in.kind == InputKind::fraction ? json(0.5) : in.kind == InputKind::config ? json::object()
                       : json(1024);
    for (const EngineTraits& engine : kEngineTable) {
      if (read_by_engine(in, static_cast<unsigned>(engine.engine))) continue;
      CAPTURE(in.key);
      CAPTURE(engine.name);
      json request = {{"model", "llama-3.1-8b"}, {"engine", engine.name}};
      request[std::string(in.key)] = value;
      const json answered = ask(request.dump());
      CHECK(answered["error"]["field"] == in.key);
      CHECK(answered["error"]["message"]["id"] == "engine.input_not_read");
      ++refusals;
    }
  }
  // 5 vLLM-only inputs × 5 other engines, 2 SGLang-only × 5, MLX and Ollama one each × 5, -ngl × 4,
  // engine_version × 1 (transformers), expandable_segments (transformers') × 5, mmproj (llama.cpp's) × 5,
  // the draft's five inputs (draft, draft_config, draft_read, draft_tokens, acceptance) × 1 (Ollama).
  CHECK(refusals == 25 + 10 + 10 + 4 + 1 + 5 + 5 + 5);
  // A toggle given as off, in JSON or as text (the CLI sends --enforce-eager=off as "off"), asks nothing of the
  // engine and is not refused; nor is an empty version.
  CHECK_FALSE(ask(R"({"model":"llama-3.1-8b","engine":"llamacpp","enforce_eager":false})").contains("error"));
  CHECK_FALSE(ask(R"({"model":"llama-3.1-8b","engine":"llamacpp","enforce_eager":"off"})").contains("error"));
  CHECK_FALSE(ask(R"({"model":"llama-3.1-8b","engine":"llamacpp","engine_version":""})").contains("error"));
  CHECK(ask(R"({"model":"llama-3.1-8b","engine":"llamacpp","enforce_eager":"on"})")["error"]["field"] == "enforce_eager");
}
