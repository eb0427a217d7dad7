// vramfit CLI: flags in, the core's report out (a table for people, --json for scripts).
#include <algorithm> // std::min
#include <cmath>     // std::abs
#include <cstddef>   // std::byte
#include <cstdio>    // std::printf, std::fprintf
#include <fstream>   // std::ifstream
#include <iterator>  // std::istreambuf_iterator
#include <sstream>   // std::ostringstream
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli_args.hpp"
#include "vramfit/builtin_data.hpp"
#include "vramfit/safetensors.hpp"
#include "vramfit/scenario.hpp"
#include "vramfit/solver.hpp"
#include "vramfit/units.hpp"

namespace {

using namespace vramfit;

int fail(const Error& e) {
  std::fprintf(stderr, "vramfit: %s: %s\n", e.field.c_str(), e.message.c_str());
  return 2;
}

std::string gb(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%9.2f GB %9.2f GiB", static_cast<double>(bytes) / 1e9,
                static_cast<double>(bytes) / static_cast<double>(kGiB));
  return buf;
}

void print_table(const Report& r) {
  const auto& e = r.estimate;
  std::printf("%s: %.3g B parameters, %s weights, context %llu, batch %llu\n", r.model.name.c_str(),
              static_cast<double>(e.params.total) / 1e9, std::string(dtype_info(e.weights_dtype).name).c_str(),
              static_cast<unsigned long long>(e.context_tokens), static_cast<unsigned long long>(e.batch));
  std::printf("  engine %s, %s weights, %s KV cache\n", std::string(engine_name(e.engine)).c_str(),
              e.weights_format.c_str(), std::string(kv_dtype_info(e.kv_dtype).name).c_str());
  const std::pair<const char*, std::uint64_t> lines[] = {{"weights", e.weights},
                                                         {"KV cache", e.kv_cache},
                                                         {"activations", e.activations},
                                                         {"overhead", e.overhead},
                                                         {"allocator", e.allocator_reserve},
                                                         {"total", e.total}};
  for (const auto& [label, bytes] : lines) std::printf("  %-12s %s\n", label, gb(bytes).c_str());
  std::printf("  %-12s %s  to %s\n", "range", gb(e.range.low).c_str(), gb(e.range.high).c_str());
  for (const auto& d : e.range.drivers) std::printf("    driver: %s\n", d.c_str());
  if (e.vllm && e.vllm->budget_bytes)
    std::printf("  vLLM KV capacity %.2f GiB = %llu tokens = %llu concurrent sequences of %llu tokens\n",
                static_cast<double>(e.vllm->kv_capacity_bytes) / static_cast<double>(kGiB),
                static_cast<unsigned long long>(e.vllm->kv_capacity_tokens),
                static_cast<unsigned long long>(e.vllm->max_concurrency),
                static_cast<unsigned long long>(e.vllm->sequence_tokens));
  if (e.llamacpp) std::printf("  %-12s %s (system RAM)\n", "host RAM", gb(e.llamacpp->host_ram_bytes).c_str());
  for (const auto& note : e.notes) std::printf("  note: %s\n", note.c_str());
  std::printf("\n");
  for (const auto& f : r.gpus) {
    const double free_gib = static_cast<double>(f.free_bytes) / static_cast<double>(kGiB);
    std::string verdict(fit_name(f.fit));
    if (f.fit == Fit::does_not_fit && f.gpus_needed > 1)
      verdict += ", needs " + std::to_string(f.gpus_needed) + " GPUs";
    std::printf("  %-34s %-28s %+8.1f GiB free\n", f.gpu->name.c_str(), verdict.c_str(), free_gib);
  }
}

std::optional<std::string> read_file(const std::string& path);

bool ends_with(const std::string& s, const char* suffix) {
  const std::string sfx(suffix);
  return s.size() >= sfx.size() && s.compare(s.size() - sfx.size(), sfx.size(), sfx) == 0;
}

// Reads only the header of a .gguf or .safetensors file: start with 1 MiB, and read the longer prefix the
// parser asks for (need_prefix_bytes) until it has the whole header. Never the tensor data.
Result<ImportedModel> import_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("--model", "cannot read \"" + path + "\"");
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  if (end < 0) return make_error("--model", "cannot size \"" + path + "\"");
  const auto file_size = static_cast<std::uint64_t>(end);
  std::uint64_t want = std::min<std::uint64_t>(file_size, kMiB);
  for (int round = 0; round < 8; ++round) {
    std::vector<std::byte> prefix(static_cast<std::size_t>(want));
    in.clear();
    in.seekg(0);
    in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(want));
    if (static_cast<std::uint64_t>(in.gcount()) != want) return make_error("--model", "short read of \"" + path + "\"");
    Result<ImportedModel> imported = make_error("--model", "");
    if (ends_with(path, ".gguf")) {
      imported = import_gguf(prefix, file_size);
    } else {
      const SafetensorsFile file{path.substr(path.find_last_of('/') + 1), prefix, file_size};
      // config.json beside the shard gives the architecture (else the spec is a bare count).
      const auto dir = path.find_last_of('/') == std::string::npos ? std::string(".") : path.substr(0, path.find_last_of('/'));
      auto config = read_file(dir + "/config.json");
      imported = import_safetensors(std::span<const SafetensorsFile>(&file, 1), config.value_or(""), "");
    }
    if (!imported) return imported.error();
    const auto need = imported.value().need_prefix_bytes;
    if (need == 0) return imported;
    if (need > file_size || need <= want) return make_error("--model", "header of \"" + path + "\" is inconsistent");
    want = need;
  }
  return make_error("--model", "header of \"" + path + "\" is too long");
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Config files are small; refuse anything absurd rather than reading gigabytes.
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0 || size > 16 * 1024 * 1024) return std::nullopt;
  in.seekg(0);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = cli::parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed) return fail(parsed.error());
  auto options = std::move(parsed).value();

  if (options.action == cli::Action::help) {
    std::fputs(cli::help_text().c_str(), stdout);
    return 0;
  }
  if (options.action == cli::Action::version) {
    std::printf("vramfit %s\n", VRAMFIT_VERSION);
    return 0;
  }
  auto catalog = load_catalog(builtin::models_json(), builtin::gpus_json());
  if (!catalog) return fail(catalog.error());  // a broken build; the unit tests catch it first

  if (options.action == cli::Action::list_models || options.action == cli::Action::list_gpus) {
    if (options.json) {
      std::printf("%s\n", catalog_to_json(catalog.value()).c_str());
    } else if (options.action == cli::Action::list_models) {
      for (const auto& p : catalog.value().models) std::printf("%-18s %s\n", p.spec.id.c_str(), p.spec.name.c_str());
    } else {
      for (const auto& g : catalog.value().gpus)
        std::printf("%-24s %-36s %6.0f GiB\n", g.id.c_str(), g.name.c_str(),
                    static_cast<double>(g.memory_bytes) / static_cast<double>(kGiB));
    }
    return 0;
  }

  if (!options.model_path.empty()) {
    if (ends_with(options.model_path, ".gguf") || ends_with(options.model_path, ".safetensors")) {
      auto imported = import_model_file(options.model_path);
      if (!imported) return fail(imported.error());
      options.request.imported = std::move(imported).value();
    } else {
      auto text = read_file(options.model_path);
      if (!text) return fail(make_error("--model", "cannot read \"" + options.model_path + "\" (a config.json up to 16 MiB)"));
      options.request.config_json = std::move(*text);
    }
  }
  // Name the flag the user typed rather than the internal field.
  auto flag_error = [](Error e) {
    for (const char* f : {"model", "params", "weights", "context", "batch", "gpu", "headroom", "engine", "attention"})
      if (e.field == f) e.field = std::string("--") + f;
    if (e.field == "kv_dtype") e.field = "--kv-dtype";
    if (e.field == "kv_allocation") e.field = "--kv-allocation";
    if (e.field == "avg_tokens") e.field = "--avg-tokens";
    if (e.field == "gpu_util") e.field = "--gpu-util";
    return fail(e);
  };
  if (options.action == cli::Action::limits) {
    auto limits = solve_limits(catalog.value(), options.request);
    if (!limits) return flag_error(limits.error());
    const auto& l = limits.value();
    if (options.json) std::printf("%s\n", limits_to_json(l).c_str());
    else
      std::printf("On %s (budget %s): largest context %llu tokens, largest batch %llu\n", l.gpu.c_str(),
                  gb(l.budget_bytes).c_str(), static_cast<unsigned long long>(l.max_context),
                  static_cast<unsigned long long>(l.max_batch));
    return 0;
  }
  auto report = evaluate(catalog.value(), options.request);
  if (!report) return flag_error(report.error());
  if (options.json) std::printf("%s\n", report_to_json(report.value()).c_str());
  else print_table(report.value());
  return 0;
}
