#include "cli_args.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>   // std::filesystem::exists
#include <optional>     // std::optional
#include <system_error> // std::error_code
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <utility>      // std::move

#include "vramfit/inputs.hpp"
#include "vramfit/lookup.hpp"     // names_a_path
#include "vramfit/questions.hpp"  // Question, question_name

namespace vramfit::cli {

namespace {

// The CLI's own flags: what to ask, and how to answer. Every other flag is an input of the request.
struct Command {
  std::string_view flag;
  std::optional<Question> question;  // the request's "question"; none for the flags that are no question
  Action action;
  std::string_view help;
};

constexpr Command kQuestions[] = {
    {"--rank-gpus", Question::gpu_ranking, Action::answer,
     "rank GPU type x count (1, 2, 4, 8) by price and speed for this scenario"},
    {"--biggest", Question::biggest_model, Action::answer,
     "the biggest preset and weight format that fits --gpu at --context (default 4096)"},
    {"--remedies", Question::remedies, Action::answer,
     "what would help: ways to save memory (8/4-bit, FP8 KV, offload, checkpointing, LoRA, ZeRO, ...), "
     "what fits --gpu first, with the memory each saves and what it costs"},
    {"--max-context", Question::limits, Action::answer, "print the largest context and batch that fit --gpu"},
    {"--max-batch", Question::limits, Action::answer, "same as --max-context (both limits are printed)"},
};
constexpr Command kOutputs[] = {
    {"--json", std::nullopt, Action::answer, "print the result as JSON, byte counts as integers"},
    {"--command", std::nullopt, Action::answer,
     "print only the engine's command line for this scenario (vllm serve ..., python -m sglang.launch_server ..., "
     "llama-server ..., OLLAMA_CONTEXT_LENGTH=... ollama serve, mlx_lm.generate ...)"},
    {"--check", std::nullopt, Action::answer,
     "a preflight for scripts and CI: print the verdict in one line and exit 0 when it runs on the GPU (fits, or "
     "fits with less than the headroom free), 1 when it does not (too big, the engine would not start, or only "
     "with part of it in system RAM), 2 when an input is wrong"},
    {"--offline", std::nullopt, Action::answer,
     "a Hub or Ollama model from what an earlier lookup read (HF_HUB_OFFLINE=1)"},
    {"--list-models", std::nullopt, Action::list_models, "list the model presets"},
    {"--list-gpus", std::nullopt, Action::list_gpus, "list the GPU catalog"},
    {"--help", std::nullopt, Action::help, "show this help"},
    {"--version", std::nullopt, Action::version, "show the version"},
};

const Command* command_by_flag(std::string_view flag) noexcept {
  for (const auto table : {std::span<const Command>(kQuestions), std::span<const Command>(kOutputs)})
    for (const Command& c : table)
      if (c.flag == flag) return &c;
  return nullptr;
}


// --flash-attention on|off (the flag alone: on) names an attention implementation, sdpa or eager: one setting
// with --attn-implementation, spelled as people toggle it.
constexpr std::string_view kFlashAlias = "--flash-attention";
// The Hub revision of a looked-up model: read by the CLI, which fetches, not by the core's request.
constexpr std::string_view kRevision = "--revision";

std::optional<std::string_view> flash_alias_value(std::string_view toggle) {
  for (std::string_view on : {"on", "true", "yes", "1"})
    if (toggle == on) return "sdpa";
  for (std::string_view off : {"off", "false", "no", "0"})
    if (toggle == off) return "eager";
  return std::nullopt;
}

// The flag in a column of 28, its help wrapped at spaces to lines of at most 100 columns (a terminal's width with
// room to spare), the continuation under the help's first word.
std::string help_line(std::string_view flag, std::string_view value_name, std::string_view help) {
  constexpr std::size_t kColumn = 28, kWidth = 100;
  std::string out = "  " + std::string(flag) + (value_name.empty() ? "" : " " + std::string(value_name));
  if (out.size() < kColumn) out.resize(kColumn, ' ');
  else out += "  ";
  std::size_t line_start = 0;
  while (!help.empty()) {
    const std::size_t room = kWidth - (out.size() - line_start);
    std::size_t cut = help.size();
    if (help.size() > room) {
      cut = help.rfind(' ', room);
      if (cut == std::string_view::npos || cut == 0) cut = help.find(' ');
      if (cut == std::string_view::npos) cut = help.size();
    }
    out += help.substr(0, cut);
    help.remove_prefix(cut);
    while (!help.empty() && help.front() == ' ') help.remove_prefix(1);
    if (!help.empty()) {
      out += "\n";
      line_start = out.size();
      out += std::string(kColumn, ' ');
    }
  }
  return out + "\n";
}

// Applies one of the CLI's own flags; a second, different question is refused rather than one silently winning.
std::optional<Error> apply(const Command& c, Options& o, nlohmann::json& request) {
  if (c.flag == "--json") o.json = true;
  if (c.flag == "--command") o.command = true;
  if (c.flag == "--check") o.check = true;
  if (c.flag == "--offline") o.offline = true;
  if (c.action != Action::answer) o.action = c.action;
  if (!c.question) return std::nullopt;
  const std::string question(question_name(*c.question));
  if (request.contains("question") && request["question"] != question)
    return Error{std::string(c.flag), "asks another question than " + o.question_flag + "; give one"};
  request["question"] = question;
  o.question = question;
  o.question_flag = c.flag;
  return std::nullopt;
}

}  // namespace

bool names_a_file(std::string_view value) {
  if (names_a_path(value)) return true;  // the core's rule, the page's too
  if (value.find('/') == std::string_view::npos) return false;
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(std::string(value)), ec);
}

std::string help_text() {
  std::string out =
      "vramfit: how much GPU memory a model needs, and which GPUs it fits.\n\n"
      "Usage: vramfit (--model ID|PATH | --params N) [options]\n"
      "       vramfit mcp   (a Model Context Protocol server on stdin/stdout, for an assistant to call)\n\n";
  const auto training_only = [](const Input& in) { return !used_by(in, InputUse::inference | InputUse::gpu_ranking); };
  for (const Input& in : inputs())
    if (!in.flag.empty() && !training_only(in)) out += help_line(in.flag, in.value_name, in.help);
  for (const auto table : {std::span<const Command>(kQuestions), std::span<const Command>(kOutputs)})
    for (const Command& c : table) out += help_line(c.flag, "", c.help);
  out += help_line(kRevision, "REV", "the Hub branch, tag or commit of --model owner/name (default: main)");
  out +=
      "\nA --model that is no preset is looked up: owner/name, a huggingface.co link or owner/name-GGUF:QUANT\n"
      "on the Hugging Face Hub (HF_ENDPOINT; HF_TOKEN for gated models, sent only there; HF_HUB_OFFLINE=1;\n"
      "HF_HUB_DOWNLOAD_TIMEOUT seconds), or an Ollama name (phi4, qwen3:32b) in Ollama's registry. Only\n"
      "JSON and file headers are read, never weights; what was read is kept under $XDG_CACHE_HOME/vramfit\n"
      "for --offline.\n";
  out += "\nTraining (--mode train|lora|qlora|grpo; --context and --batch set --seq and --micro-batch):\n";
  for (const Input& in : inputs())
    if (!in.flag.empty() && training_only(in)) out += help_line(in.flag, in.value_name, in.help);
  out +=
      "Example: vramfit --mode qlora --model llama-2-7b --gpu rtx-4090 --seq 2048 --micro-batch 4\n"
      "Example: vramfit --mode grpo --policy lora --model qwen2.5-7b --completion 1024 --num-generations 8\n"
      "\nExample: vramfit --model llama-3.1-8b --weights bf16 --context 8192 --batch 1 --json\n"
      "Exit status: 0 on success, 2 when an input is wrong (one line on stderr names it); with --check,\n"
      "1 when it does not run on the GPU, 3 when whether it runs is unknown (the lines after say which\n"
      "input decides it).\n";
  return out;
}

ParsedArgs parse_args(const std::vector<std::string>& args) {
  auto refuse = [](std::string flag, std::string message) {
    return ParsedArgs{{}, Error{std::move(flag), std::move(message)}};
  };
  Options o;
  nlohmann::json request = nlohmann::json::object();
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> inline_value;  // --flag=value
    if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (const Command* command = command_by_flag(name)) {
      if (inline_value) return refuse(name, "takes no value");
      if (auto conflict = apply(*command, o, request)) return {{}, std::move(conflict)};
      continue;
    }
    if (name == kFlashAlias) {
      std::string toggle = "on";
      if (inline_value) toggle = *inline_value;
      else if (i + 1 < args.size() && !args[i + 1].starts_with("--")) toggle = args[++i];
      const auto implementation = flash_alias_value(toggle);
      if (!implementation) return refuse(name, "expected on or off (--attn-implementation sdpa or eager), got \"" + toggle + "\"");
      if (request.contains("attn_implementation"))
        return refuse(name, "sets --attn-implementation, which is given already; give one");
      request["attn_implementation"] = *implementation;
      continue;
    }
    if (name == kRevision) {
      std::string value = inline_value ? *inline_value : (i + 1 < args.size() ? args[++i] : "");
      if (value.empty()) return refuse(name, "needs a value: a branch, tag or commit of the model's Hub repository");
      if (!o.revision.empty()) return refuse(name, "given twice; give it once");
      o.revision = std::move(value);
      continue;
    }
    const Input* input = input_by_flag(name);
    if (!input) return refuse(name, "unknown flag; run vramfit --help for the list");
    // A flag is given once: twice is a typo more often than an override, so say so rather than pick one. --also
    // names one other model each time: repeated, they join as its comma-separated list.
    const bool repeats = input->key == "also" && request.contains("also");
    if ((request.contains(input->key) && !repeats) || (input->key == "model" && !o.model_path.empty()) ||
        (input->key == "quant_config" && !o.quant_config_path.empty()))
      return refuse(name, "given twice; give it once");
    nlohmann::json value = true;  // a toggle's flag alone (--sp); --sp=off still says what it means
    if (inline_value) value = *inline_value;
    else if (!input->value_name.empty() && i + 1 < args.size()) value = args[++i];
    else if (!input->value_name.empty()) value = "";
    if (value == "") {
      const std::string_view placeholder = input->value_name;
      return refuse(name, "needs a value" + (placeholder.empty() ? "" : ": " + std::string(placeholder)));
    }
    if (input->key == "model" && names_a_file(value.get<std::string>())) o.model_path = value.get<std::string>();
    else if (input->key == "quant_config") o.quant_config_path = value.get<std::string>();
    else if (repeats) request["also"] = request["also"].get<std::string>() + "," + value.get<std::string>();
    else request[std::string(input->key)] = std::move(value);
  }
  if (o.check && (o.json || o.command)) return refuse("--check", "prints one line; give it without --json or --command");
  // Training stores weights by --precision (QLoRA: NF4): a --weights there would be silently ignored. The
  // request itself accepts it, since the page sends its whole state.
  if (const auto mode = request.find("mode"); mode != request.end() && mode->is_string() && request.contains("weights")) {
    const std::string m = mode->get<std::string>();
    if (m == "train" || m == "full" || m == "lora" || m == "qlora" || m == "grpo")
      return refuse("--weights", "training keeps its weights by --precision (fp32, mixed-fp16, mixed-bf16, bf16; "
                                 "qlora: NF4); give --precision instead");
  }
  // Invalid UTF-8 in an argument becomes U+FFFD: the core then names the value it cannot match.
  o.request = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return {std::move(o), std::nullopt};
}

// A file's error (its header, its shards) is the --model's, whether it named the file or a model whose file was fetched.
bool model_given(const Options& o) {
  if (!o.model_path.empty()) return true;
  const nlohmann::json request = nlohmann::json::parse(o.request, nullptr, false);
  return request.is_object() && request.contains("model");
}

Error with_flag_name(Error e, const Options& o) {
  if (e.field == "question" && !o.question_flag.empty()) e.field = o.question_flag;
  else if (e.field == "file" && model_given(o)) e.field = "--model";
  else if (const Input* input = input_by_key(e.field); input && !input->flag.empty()) e.field = input->flag;
  return e;
}

}  // namespace vramfit::cli
