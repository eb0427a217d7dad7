#include "mcp.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>      // std::size_t
#include <istream>      // std::getline
#include <ostream>      // std::ostream
#include <string_view>  // std::string_view

#include "tables.hpp"  // message_text
#include "vramfit/inputs.hpp"
#include "vramfit/questions.hpp"  // Question, question_name, kQuestions

namespace vramfit::cli {

namespace {

using nlohmann::json;

// The protocol revisions this server speaks (modelcontextprotocol.io/specification, "Lifecycle": the server answers
// the client's version when it supports it, else its own latest).
constexpr std::string_view kVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

// One tool per question but the curve, named as the question (vramfit/questions.hpp, whose row says whether it reads
// the training inputs too).
struct Tool {
  Question question;
  std::string_view description;
};

constexpr Tool kTools[] = {
    {Question::estimate,
     "GPU memory a model needs to run (or to fine-tune or train, with mode) and whether it fits a GPU: the memory "
     "breakdown with each line's formula and source, the verdict for the GPU given (gpu, gpus), speed and cost. "
     "model is a preset id, a Hugging Face id (owner/name, owner/name-GGUF:QUANT) or an Ollama name (qwen3:32b)."},
    {Question::limits, "The longest context and the largest batch that fit a GPU for a model and engine."},
    {Question::gpu_ranking,
     "Which GPU and how many run a model: every GPU type × count (1, 2, 4, 8) that fits, by price per million "
     "tokens and speed, within an optional budget per hour."},
    {Question::remedies,
     "What would make a model fit a GPU: 8- or 4-bit weights, an FP8 KV cache, offloading layers to system RAM, a "
     "shorter context, LoRA or ZeRO for training; each with the memory it saves and what it costs."},
    {Question::biggest_model, "The biggest preset model and weight format that fits a GPU at a context."},
};

// An input's JSON Schema, from the catalog's inputs table: what a request may give for it.
json input_schema(const json& input) {
  const std::string kind = input.at("kind").get<std::string>();
  json s;
  if (kind == "toggle") {
    s["type"] = "boolean";
  } else if (kind == "choice") {
    s["type"] = "string";
    if (input.contains("values")) s["enum"] = input.at("values");
  } else if (kind == "list") {
    s["type"] = json::array({"array", "string"});
    s["items"] = {{"type", "string"}};
  } else if (kind == "config") {
    s["type"] = json::array({"object", "string"});
  } else if (kind == "text") {
    s["type"] = "string";
  } else {
    // Whole numbers and quantities may come as text: "8k" tokens (k = 1,024), "7B" parameters, "40%".
    s["type"] = json::array({kind == "number" || kind == "fraction" ? "number" : "integer", "string"});
    if (input.contains("min") && !input.value("above_min", false)) s["minimum"] = input.at("min");
    if (input.contains("min") && input.value("above_min", false)) s["exclusiveMinimum"] = input.at("min");
    if (input.contains("max") && !input.at("max").is_null()) s["maximum"] = input.at("max");
  }
  // The CLI's help line says what the input means; "gpus" is a count of `gpu` or the cards one has, by name.
  const std::string key = input.at("key").get<std::string>();
  if (key == "gpus") s["type"] = json::array({"integer", "array", "string"});
  const InputUse use = input.at("use") == "training" ? InputUse::training
                       : input.at("use") == "gpu_ranking" ? InputUse::gpu_ranking
                                                          : InputUse::inference;
  const Input* described = input_by_key(key, use);
  s["description"] = described && !described->help.empty() ? std::string(described->help) : kind;
  return s;
}

json tool_list(const Catalog& catalog) {
  const json inputs = json::parse(catalog_to_json(catalog)).at("inputs");
  json tools = json::array();
  for (const Tool& t : kTools) {
    const bool training = kQuestions[static_cast<std::size_t>(t.question)].trains;
    const bool ranking = t.question == Question::gpu_ranking;
    json properties = json::object();
    for (const json& in : inputs) {
      const std::string use = in.at("use").get<std::string>();
      if ((use == "training" && !training) || (use == "gpu_ranking" && !ranking)) continue;
      // "gpus": a GPU count for the estimate, a list of GPU ids for the ranking.
      if (properties.contains(in.at("key").get<std::string>())) continue;
      properties[in.at("key").get<std::string>()] = input_schema(in);
    }
    tools.push_back({{"name", std::string(question_name(t.question))},
                     {"description", t.description},
                     {"inputSchema", {{"type", "object"}, {"properties", properties}}}});
  }
  return tools;
}

json rpc_error(const json& id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json rpc_result(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

// A tool's answer: the core's JSON as text and as structured content; a wrong input is a tool error naming the field
// (the protocol's "tool execution error", which the assistant reads), not a protocol error.
json call_tool(const Catalog& catalog, const Tool& tool, json arguments, const LookupSettings& lookup) {
  if (tool.question != Question::estimate) arguments["question"] = std::string(question_name(tool.question));
  // A draft or other model named as a model is (a Hub repository, an Ollama model, a file) is read first.
  std::string request = arguments.dump();
  if (auto error = with_named_models(catalog, request, lookup))
    return {{"content", json::array({{{"type", "text"}, {"text", error->field + ": " + error->message}}})},
            {"isError", true}};
  arguments = json::parse(request);
  std::string text;
  if (const auto model = arguments.find("model"); model != arguments.end() && model->is_string()) {
    const std::string name = model->get<std::string>();
    arguments.erase("model");
    const FileAnswer named = answer_about_name(catalog, name, arguments.dump(), lookup);
    if (named.error)
      return {{"content", json::array({{{"type", "text"}, {"text", named.error->field + ": " + named.error->message}}})},
              {"isError", true}};
    text = named.json;
  } else {
    text = answer(catalog, arguments.dump());
  }
  json answer_json = json::parse(text, nullptr, false);
  if (answer_json.is_discarded()) answer_json = json::object();
  const bool ok = answer_json.value("ok", false);
  if (!ok) {
    const json& e = answer_json.contains("error") ? answer_json.at("error") : json::object();
    text = e.value("field", std::string("request")) + ": " +
           (e.contains("message") ? message_text(e.at("message")) : std::string("not answered"));
  }
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})},
          {"structuredContent", answer_json},
          {"isError", !ok}};
}

json initialize_result(const json& params) {
  std::string version(kVersions[0]);
  if (params.is_object() && params.contains("protocolVersion") && params.at("protocolVersion").is_string())
    for (std::string_view v : kVersions)
      if (params.at("protocolVersion").get<std::string>() == v) version = v;
  return {{"protocolVersion", version},
          {"capabilities", {{"tools", json::object()}}},
          {"serverInfo", {{"name", "vramfit"}, {"version", VRAMFIT_VERSION}}},
          {"instructions",
           "GPU memory for AI models: call estimate with a model and a gpu for the verdict and the breakdown; "
           "figures are bytes, each line explained with its formula and source."}};
}

json reply_to(const Catalog& catalog, const json& message, const LookupSettings& lookup) {
  const json id = message.contains("id") ? message.at("id") : json(nullptr);
  const std::string method = message.value("method", std::string());
  const json params = message.contains("params") ? message.at("params") : json::object();
  if (method == "initialize") return rpc_result(id, initialize_result(params));
  if (method == "ping") return rpc_result(id, json::object());
  if (method == "tools/list") return rpc_result(id, {{"tools", tool_list(catalog)}});
  if (method == "tools/call") {
    const std::string name = params.is_object() ? params.value("name", std::string()) : std::string();
    for (const Tool& t : kTools) {
      if (question_name(t.question) != name) continue;
      json arguments = params.contains("arguments") ? params.at("arguments") : json::object();
      if (!arguments.is_object()) return rpc_error(id, -32602, "arguments must be an object");
      return rpc_result(id, call_tool(catalog, t, std::move(arguments), lookup));
    }
    return rpc_error(id, -32602, "unknown tool \"" + name + "\"; tools/list names them");
  }
  return rpc_error(id, -32601, "method not found: " + method);
}

}  // namespace

std::string mcp_reply(const Catalog& catalog, const std::string& message, const LookupSettings& lookup) {
  const json m = json::parse(message, nullptr, false);
  if (m.is_discarded()) return rpc_error(nullptr, -32700, "parse error: not JSON").dump();
  if (!m.is_object() || m.value("jsonrpc", std::string()) != "2.0" || !m.contains("method") ||
      !m.at("method").is_string())
    return rpc_error(m.is_object() && m.contains("id") ? m.at("id") : json(nullptr), -32600,
                     "invalid request: a JSON-RPC 2.0 object with a method")
        .dump();
  if (!m.contains("id")) return "";  // a notification (notifications/initialized, cancelled): no reply
  return reply_to(catalog, m, lookup).dump(-1, ' ', false, json::error_handler_t::replace);
}

void serve_mcp(const Catalog& catalog, std::istream& in, std::ostream& out, const LookupSettings& lookup) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string reply = mcp_reply(catalog, line, lookup);
    if (!reply.empty()) out << reply << '\n' << std::flush;
  }
}

}  // namespace vramfit::cli
