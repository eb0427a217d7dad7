#include "cli_args.hpp"

#include <cmath>    // std::isfinite, std::llround
#include <cstdlib>  // std::strtod

namespace vramfit::cli {

namespace {

struct Flag {
  const char* name;
  const char* value;  // nullptr: takes no value
  const char* help;
};

constexpr Flag kFlags[] = {
    {"--model", "ID|PATH", "model preset id (see --list-models) or a path to a Hugging Face config.json"},
    {"--params", "N", "bare parameter count instead of a model: 7e9, 7B, 1.5T, 500M"},
    {"--weights", "DTYPE", "weight precision: fp32, fp16, bf16, fp8, int8, int4 (default bf16)"},
    {"--kv-dtype", "DTYPE", "KV cache precision: fp32, fp16, bf16, fp8 (default: the compute precision)"},
    {"--context", "TOKENS", "context length in tokens, e.g. 8192 or 8k (default: the model's usual context)"},
    {"--batch", "N", "concurrent sequences (default 1)"},
    {"--gpu", "NAME", "report the fit on this GPU only (see --list-gpus)"},
    {"--headroom", "FRACTION", "share of GPU memory kept free, 0 to 0.9 (default 0.1)"},
    {"--json", nullptr, "print the result as JSON, byte counts as integers"},
    {"--list-models", nullptr, "list the model presets"},
    {"--list-gpus", nullptr, "list the GPU catalog"},
    {"--help", nullptr, "show this help"},
    {"--version", nullptr, "show the version"},
};

Error bad_value(const std::string& flag, const std::string& value, const std::string& allowed) {
  return make_error(flag, "invalid value \"" + value + "\"; expected " + allowed);
}

std::optional<double> parse_scaled(const std::string& text, double k, double m, double g, double t) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  char* end = nullptr;
  const double base = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  std::string suffix(end);
  double scale = 1;
  if (suffix == "k" || suffix == "K") scale = k;
  else if (suffix == "m" || suffix == "M") scale = m;
  else if (suffix == "b" || suffix == "B" || suffix == "g" || suffix == "G") scale = g;
  else if (suffix == "t" || suffix == "T") scale = t;
  else if (!suffix.empty()) return std::nullopt;
  const double value = base * scale;
  if (!std::isfinite(value) || value < 1 || value > 1e18) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint64_t> parse_count(const std::string& text) {
  const auto v = parse_scaled(text, 1e3, 1e6, 1e9, 1e12);
  if (!v) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(*v));
}

std::optional<std::uint64_t> parse_tokens(const std::string& text) {
  // Context lengths are powers of two in practice: 8k means 8192, as model cards use it.
  const auto v = parse_scaled(text, 1024, 1024.0 * 1024, -1, -1);
  if (!v || *v != std::floor(*v)) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

std::string help_text() {
  std::string out =
      "vramfit: how much GPU memory a model needs, and which GPUs it fits.\n\n"
      "Usage: vramfit (--model ID|PATH | --params N) [options]\n\n";
  for (const auto& f : kFlags) {
    std::string left = std::string("  ") + f.name + (f.value ? std::string(" ") + f.value : "");
    if (left.size() < 28) left.resize(28, ' ');
    else left += "  ";
    out += left + f.help + "\n";
  }
  out +=
      "\nExample: vramfit --model llama-3.1-8b --weights bf16 --context 8192 --batch 1 --json\n"
      "Exit status: 0 on success, 2 when an input is wrong (one line on stderr names it).\n";
  return out;
}

Result<Options> parse_args(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Flag* flag = nullptr;
    for (const auto& f : kFlags)
      if (name == f.name) flag = &f;
    if (!flag) return make_error(name, "unknown flag; run vramfit --help for the list");
    std::string value;
    if (flag->value) {
      if (inline_value) value = *inline_value;
      else if (i + 1 < args.size()) value = args[++i];
      else return make_error(name, std::string("needs a value: ") + flag->value);
    } else if (inline_value) {
      return make_error(name, "takes no value");
    }

    if (name == "--model") {
      const bool looks_like_path = value.find('/') != std::string::npos ||
                                   (value.size() > 5 && value.compare(value.size() - 5, 5, ".json") == 0);
      (looks_like_path ? o.model_path : o.request.model) = value;
    } else if (name == "--params") {
      const auto count = parse_count(value);
      if (!count) return bad_value(name, value, "a positive parameter count such as 7e9 or 7B");
      o.request.params = *count;
    } else if (name == "--weights") {
      o.request.weights = value;
    } else if (name == "--kv-dtype") {
      o.request.kv_dtype = value;
    } else if (name == "--context") {
      const auto tokens = parse_tokens(value);
      if (!tokens) return bad_value(name, value, "a whole number of tokens such as 8192 or 8k");
      o.request.context = *tokens;
    } else if (name == "--batch") {
      const auto batch = parse_count(value);
      if (!batch || value.find_first_not_of("0123456789") != std::string::npos)
        return bad_value(name, value, "a whole number of at least 1");
      o.request.batch = *batch;
    } else if (name == "--gpu") {
      o.request.gpu = value;
    } else if (name == "--headroom") {
      char* end = nullptr;
      const double h = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(h >= 0 && h <= 0.9))
        return bad_value(name, value, "a fraction between 0 and 0.9");
      o.request.headroom = h;
    } else if (name == "--json") {
      o.json = true;
    } else if (name == "--list-models") {
      o.action = Action::list_models;
    } else if (name == "--list-gpus") {
      o.action = Action::list_gpus;
    } else if (name == "--help") {
      o.action = Action::help;
    } else if (name == "--version") {
      o.action = Action::version;
    }
  }
  return o;
}

}  // namespace vramfit::cli
