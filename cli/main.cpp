// vramfit CLI: flags in, the core's report out (a table for people, --json for scripts).
#include <cmath>     // std::abs
#include <cstdio>    // std::printf, std::fprintf
#include <fstream>   // std::ifstream
#include <iterator>  // std::istreambuf_iterator
#include <sstream>   // std::ostringstream
#include <string>    // std::string
#include <vector>    // std::vector

#include "cli_args.hpp"
#include "vramfit/builtin_data.hpp"
#include "vramfit/scenario.hpp"
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
  const std::pair<const char*, std::uint64_t> lines[] = {{"weights", e.weights},
                                                         {"KV cache", e.kv_cache},
                                                         {"activations", e.activations},
                                                         {"overhead", e.overhead},
                                                         {"total", e.total}};
  for (const auto& [label, bytes] : lines) std::printf("  %-12s %s\n", label, gb(bytes).c_str());
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
    auto text = read_file(options.model_path);
    if (!text) return fail(make_error("--model", "cannot read \"" + options.model_path + "\" (a config.json up to 16 MiB)"));
    options.request.config_json = std::move(*text);
  }
  auto report = evaluate(catalog.value(), options.request);
  if (!report) {
    Error e = report.error();
    // Name the flag the user typed rather than the internal field.
    if (e.field == "model" || e.field == "params" || e.field == "weights" || e.field == "context" ||
        e.field == "batch" || e.field == "gpu" || e.field == "headroom")
      e.field = "--" + e.field;
    else if (e.field == "kv_dtype")
      e.field = "--kv-dtype";
    return fail(e);
  }
  if (options.json) std::printf("%s\n", report_to_json(report.value()).c_str());
  else print_table(report.value());
  return 0;
}
