#include "cli_args.hpp"

#include "training_flags.hpp"
#include "util/text.hpp"  // split_list

#include <algorithm>  // std::find
#include <cmath>    // std::isfinite
#include <cstdlib>  // std::strtod

namespace vramfit::cli {

namespace {

struct Flag {
  const char* name;
  const char* value;  // nullptr: takes no value
  const char* help;
};

constexpr Flag kFlags[] = {
    {"--model", "ID|PATH", "model preset id (see --list-models), or a path to a config.json, .gguf or .safetensors"},
    {"--params", "N", "bare parameter count instead of a model: 7e9, 7B, 1.5T, 500M"},
    {"--weights", "FORMAT", "weight format: fp32 fp16 bf16 fp8 int8 int4 nf4 nf4-no-dq bnb-int8 gptq-4bit-128g "
                            "awq-4bit-64g q4_k_m q8_0 gguf-iq2_xxs ... (default: the config's quantization, else bf16)"},
    {"--kv-dtype", "DTYPE", "KV cache precision: fp32, fp16, bf16, fp8, q8_0, q4_0 (default: the engine's)"},
    {"--context", "TOKENS", "context length in tokens, e.g. 8192 or 8k (default: the engine's default context)"},
    {"--batch", "N", "concurrent sequences (default 1)"},
    {"--engine", "NAME", "transformers, vllm or llamacpp (default transformers)"},
    {"--attention", "KIND", "sdpa or eager (transformers); llama.cpp: sdpa = -fa on, eager = -fa off (default sdpa)"},
    {"--kv-allocation", "KIND", "static (reserve the full context) or paged (blocks of 16) (default: the engine's)"},
    {"--avg-tokens", "TOKENS", "average actual tokens per sequence, for the paged-allocation cost"},
    {"--expandable-segments", nullptr, "PyTorch allocator with expandable_segments:True (no fragmentation reserve)"},
    {"--gpu", "NAME", "report the fit, speed and cost on this GPU only (see --list-gpus); vLLM needs it for the KV capacity"},
    {"--gpu-util", "FRACTION", "vLLM gpu_memory_utilization, above 0 up to 1 (default 0.9)"},
    {"--max-num-batched-tokens", "N", "vLLM max_num_batched_tokens (default 8192; 16384 on >= 70 GiB non-A100)"},
    {"--max-num-seqs", "N", "vLLM max_num_seqs (default 256; 1024 on >= 70 GiB non-A100)"},
    {"--ngl", "N", "llama.cpp -ngl: layers on the GPU (default: all and the output layer)"},
    {"--headroom", "FRACTION", "share of GPU memory kept free, 0 to 0.9 (default 0.1)"},
    {"--system-bandwidth", "GB/S", "system RAM bandwidth for llama.cpp layers left on the CPU (default 60)"},
    {"--prompt", "TOKENS", "prompt length for the prefill speed, e.g. 512 or 4k (default 512)"},
    {"--usd-per-kwh", "USD", "electricity price: adds the energy cost of running the --gpu you own"},
    {"--rank-gpus", nullptr, "rank GPU type x count (1, 2, 4, 8) by price and speed for this scenario"},
    {"--gpus", "LIST", "--rank-gpus: only these GPUs, comma-separated ids or names (default: all)"},
    {"--budget-per-hour", "USD", "--rank-gpus: the most a whole configuration may cost per hour"},
    {"--biggest", nullptr, "the biggest preset and weight format that fits --gpu at --context (default 4096)"},
    {"--remedies", nullptr, "what would help: the source article's strategies (8/4-bit, FP8 KV, checkpointing, LoRA, ZeRO, offload, ...) applied one at a time, with the memory each saves and what it costs"},
    {"--max-context", nullptr, "print the largest context and batch that fit --gpu"},
    {"--max-batch", nullptr, "same as --max-context (both limits are printed)"},
    {"--json", nullptr, "print the result as JSON, byte counts as integers"},
    {"--list-models", nullptr, "list the model presets"},
    {"--list-gpus", nullptr, "list the GPU catalog"},
    {"--help", nullptr, "show this help"},
    {"--version", nullptr, "show the version"},
};

Error bad_value(const std::string& flag, const std::string& value, const std::string& allowed) {
  return make_error(flag, "invalid value \"" + value + "\"; expected " + allowed);
}

}  // namespace

std::optional<std::uint64_t> whole_number(std::string_view value, std::uint64_t lo) {
  if (value.empty() || value.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  const auto v = parse_count(value);
  if (!v || *v < lo) return std::nullopt;
  return v;
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
      "\n" + training_help_text() +
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
    if (is_training_flag(name)) {
      const bool takes_value = training_flag_takes_value(name);
      std::string value;
      if (takes_value) {
        if (inline_value) value = *inline_value;
        else if (i + 1 < args.size()) value = args[i + 1];
        else return make_error(name, "needs a value");
      } else if (inline_value) {
        return make_error(name, "takes no value");
      }
      // --gpus is shared: a count for a training job, a list of GPU ids for --rank-gpus.
      const bool gpu_list = name == "--gpus" && value.find_first_not_of("0123456789") != std::string::npos;
      if (!gpu_list) {
        if (takes_value && !inline_value) ++i;
        auto applied = apply_training_flag(o.training, name, value);
        if (!applied) return applied.error();
        if (name != "--mode") o.training_flags.push_back(name);
        continue;
      }
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

    // A flag given twice is a typo more often than an override: say so rather than pick one.
    if (flag->value && name != "--gpus" && std::find(o.seen.begin(), o.seen.end(), name) != o.seen.end())
      return make_error(name, "given twice; give it once");
    o.seen.push_back(name);
    if (flag->value && value.empty() && name != "--gpus") return make_error(name, std::string("needs a non-empty value: ") + flag->value);
    if (name == "--model") {
      const bool looks_like_path = value.find('/') != std::string::npos || value.ends_with(".json") ||
                                   value.ends_with(".gguf") || value.ends_with(".safetensors");
      (looks_like_path ? o.model_path : o.request.model) = value;
    } else if (name == "--params") {
      const auto count = parse_count(value);
      if (!count) return bad_value(name, value, "a positive parameter count such as 7e9 or 7B");
      o.request.params = *count;
    } else if (name == "--weights") {
      o.request.weights = value;
    } else if (name == "--kv-dtype") {
      if (!parse_kv_dtype(value)) return bad_value(name, value, "one of " + kv_dtype_names());
      o.request.kv_dtype = value;
    } else if (name == "--engine") {
      if (!parse_engine(value)) return bad_value(name, value, "one of " + std::string(kEngineNames));
      o.request.engine = value;
    } else if (name == "--attention") {
      if (!parse_attention(value)) return bad_value(name, value, "one of " + std::string(kAttentionNames));
      o.request.attention = value;
    } else if (name == "--kv-allocation") {
      if (!parse_kv_allocation(value)) return bad_value(name, value, "one of " + std::string(kKvAllocationNames));
      o.request.kv_allocation = value;
    } else if (name == "--avg-tokens") {
      const auto tokens = parse_tokens(value);
      if (!tokens) return bad_value(name, value, "a whole number of tokens, at least 1, such as 2000 or 2k");
      o.request.avg_tokens = *tokens;
    } else if (name == "--expandable-segments") {
      o.request.expandable_segments = true;
    } else if (name == "--gpu-util") {
      char* end = nullptr;
      const double u = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(u > 0 && u <= 1)) return bad_value(name, value, "a fraction above 0 and at most 1");
      o.request.gpu_util = u;
    } else if (name == "--max-num-batched-tokens" || name == "--max-num-seqs" || name == "--ngl") {
      const auto v = whole_number(value, name == "--ngl" ? 0 : 1);
      if (!v && !(name == "--ngl" && value == "0")) return bad_value(name, value, "a whole number");
      const std::uint64_t n = v.value_or(0);
      if (name == "--ngl") o.request.gpu_layers = n;
      else if (name == "--max-num-seqs") o.request.max_num_seqs = n;
      else o.request.max_num_batched_tokens = n;
    } else if (name == "--max-context" || name == "--max-batch") {
      o.action = Action::limits;
    } else if (name == "--context") {
      const auto tokens = parse_tokens(value);
      if (!tokens) return bad_value(name, value, "a whole number of tokens, at least 1, such as 8192 or 8k");
      o.request.context = *tokens;
    } else if (name == "--batch") {
      const auto batch = parse_count(value);
      if (!batch || value.find_first_not_of("0123456789") != std::string::npos)
        return bad_value(name, value, "a whole number of at least 1");
      o.request.batch = *batch;
    } else if (name == "--gpu") {
      o.request.gpu = value;
    } else if (name == "--system-bandwidth" || name == "--budget-per-hour" || name == "--usd-per-kwh") {
      char* end = nullptr;
      const double x = std::strtod(value.c_str(), &end);
      const bool ok = !value.empty() && *end == '\0' && std::isfinite(x);
      if (name == "--system-bandwidth") {
        if (!ok || !(x > 0 && x <= 10'000)) return bad_value(name, value, "a positive number of GB/s up to 10000");
        o.request.serving.system_bandwidth_gb_s = x;
      } else if (name == "--budget-per-hour") {
        if (!ok || !(x > 0)) return bad_value(name, value, "a positive number of dollars per hour");
        o.request.budget_per_hour = x;
      } else {
        if (!ok || !(x >= 0 && x <= 100)) return bad_value(name, value, "a price per kWh between 0 and 100 dollars");
        o.request.serving.usd_per_kwh = x;
      }
    } else if (name == "--prompt") {
      const auto tokens = parse_tokens(value);
      if (!tokens) return bad_value(name, value, "a whole number of tokens, at least 1, such as 512 or 4k");
      o.request.serving.prompt_tokens = *tokens;
    } else if (name == "--gpus") {
      o.request.gpus = split_list(value);
      if (o.request.gpus.empty()) return bad_value(name, value, "comma-separated GPU ids such as h100-sxm,l40s");
    } else if (name == "--rank-gpus") {
      o.action = Action::gpu_ranking;
    } else if (name == "--biggest") {
      o.action = Action::biggest;
    } else if (name == "--remedies") {
      o.action = Action::remedies;
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
