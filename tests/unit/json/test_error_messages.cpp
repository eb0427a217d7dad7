// The errors a person on the page can cause carry a message id and its values beside the English, so the page says
// them in its language: every input's refusal, a config.json or model file that cannot be read, an unknown name.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstddef>  // std::byte
#include <limits>   // std::numeric_limits
#include <string>   // std::string

#include "../test_support.hpp"
#include "json/answer.hpp"
#include "json/inputs.hpp"
#include "json/request.hpp"  // parse_request
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

// A request giving `key` the JSON `given`, with what makes the key apply (a training mode, the GPU ranking).
std::string request_with(const Input& in, const std::string& given) {
  const std::string value = "\"" + std::string(in.key) + "\":" + given;
  if (used_by(in, InputUse::training) && !used_by(in, InputUse::inference)) return "{\"mode\":\"train\"," + value + "}";
  if (used_by(in, InputUse::gpu_ranking) && !used_by(in, InputUse::inference))
    return "{\"question\":\"gpu_ranking\"," + value + "}";
  return "{" + value + "}";
}

// A value no input kind takes ([1]: not a text, a number, a toggle nor a list of names).
std::string refused_request(const Input& in) { return request_with(in, "[1]"); }

// The refusal's id an input's kind and form of range call for: "input.<kind>", with "_range" (from a minimum to a
// maximum), "_above_max" (above the minimum, at most the maximum) or "_above" (no maximum) for numbers.
std::string refusal_id(const Input& in) {
  const bool bounded = in.max < std::numeric_limits<double>::infinity();
  const std::string form = !bounded ? "_above" : in.above_min ? "_above_max" : "_range";
  switch (in.kind) {
    case InputKind::text: return "input.text";
    case InputKind::config: return "input.config";
    case InputKind::choice: return "input.choice";
    case InputKind::toggle: return "input.toggle";
    case InputKind::list: return "input.list";
    case InputKind::count: return "input.count" + form;
    case InputKind::tokens: return "input.tokens" + form;
    case InputKind::quantity: return "input.quantity" + form;
    case InputKind::number: return "input.number" + form;
    case InputKind::fraction: return "input.fraction" + form;
    case InputKind::size: return "input.size" + form;
  }
  return "";
}

}  // namespace

TEST_CASE("every input's refusal carries its kind's and range's own id, the value as JSON shows it, and the English") {
  for (const Input& in : inputs()) {
    const json a = ask(refused_request(in));
    CAPTURE(in.key);
    REQUIRE(a["ok"] == false);
    CHECK(a["error"]["field"] == in.key);
    // One wording per kind and form of range: a refusal worded any other way (a general sentence) fails here.
    CHECK(a["error"]["message"]["id"] == refusal_id(in));
    // An array is "[…]" in any language; the English sentence words it.
    CHECK(a["error"]["message"]["args"]["given"] == "[…]");
    CHECK(a["error"]["message"]["text"].get<std::string>().ends_with("; got an array"));
  }
}

TEST_CASE("every name a choice's table row accepts is read by the request's parser of that input") {
  // A name the row accepts that the reader's parser refuses is an error of vramfit's, said as input.choice_unread.
  for (const Input& in : inputs()) {
    if (in.kind != InputKind::choice) continue;
    const std::string names = allowed_values(in);
    for (std::size_t from = 0; from < names.size();) {
      const std::size_t comma = names.find(", ", from);
      const std::string name = names.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
      from = comma == std::string::npos ? names.size() : comma + 2;
      CAPTURE(in.key);
      CAPTURE(name);
      const auto parsed = parse_request(request_with(in, "\"" + name + "\""));
      if (!parsed) CHECK(parsed.error().message.id != "input.choice_unread");
    }
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
