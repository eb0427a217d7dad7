// vramfit CLI: flags in, the core's report out (a table for people, --json for scripts).
#include <algorithm> // std::min
#include <cmath>     // std::abs
#include <cstddef>   // std::byte
#include <cstdio>    // std::printf, std::fprintf
#include <filesystem> // std::filesystem::is_regular_file
#include <fstream>   // std::ifstream
#include <iterator>  // std::istreambuf_iterator
#include <optional>  // std::optional
#include <sstream>   // std::ostringstream
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "cli_args.hpp"
#include "print_training.hpp"
#include "vramfit/builtin_data.hpp"
#include "questions/gpu_ranking.hpp"
#include "questions/remedies.hpp"
#include "formats/model_file.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"
#include "questions/evaluate.hpp"
#include "questions/limits.hpp"
#include "util/units.hpp"

namespace {

using namespace vramfit;

int fail(const Error& e) {
  // The core's messages serve the page too; the hint at the flag that lists the catalog is the CLI's own.
  const bool unknown_gpu = e.message.rfind("unknown GPU", 0) == 0;
  std::fprintf(stderr, "vramfit: %s: %s%s\n", e.field.c_str(), e.message.c_str(),
               unknown_gpu ? "; list them with --list-gpus" : "");
  return 2;
}

void print_serving(const ServingEstimate& s, const Gpu& gpu);

void print_table(const Report& r) {
  const auto& e = r.estimate;
  const double billions = static_cast<double>(e.params.total) / 1e9;
  if (billions >= 0.01)
    std::printf("%s: %.3g B parameters, context %llu, batch %llu\n", r.model.name.c_str(), billions,
                static_cast<unsigned long long>(e.context_tokens), static_cast<unsigned long long>(e.batch));
  else
    std::printf("%s: %llu parameters, context %llu, batch %llu\n", r.model.name.c_str(),
                static_cast<unsigned long long>(e.params.total), static_cast<unsigned long long>(e.context_tokens),
                static_cast<unsigned long long>(e.batch));
  std::printf("  engine %s, %s weights, %s KV cache\n", std::string(engine_name(e.engine)).c_str(),
              e.weights_format.c_str(), std::string(kv_dtype_info(e.kv_dtype).name).c_str());
  const std::pair<const char*, std::uint64_t> lines[] = {{"weights", e.weights},
                                                         {"KV cache", e.kv_cache},
                                                         {"activations", e.activations},
                                                         {"overhead", e.overhead},
                                                         {"allocator", e.allocator_reserve},
                                                         {"total", e.total}};
  for (const auto& [label, bytes] : lines) std::printf("  %-12s %s\n", label, gb_and_gib(bytes).c_str());
  std::printf("  %-12s %s  to %s\n", "range", gb_and_gib(e.range.low).c_str(), gb_and_gib(e.range.high).c_str());
  for (const auto& d : e.range.drivers) std::printf("    driver: %s\n", d.c_str());
  if (e.vllm && e.vllm->budget_bytes)
    std::printf("  vLLM KV capacity %.2f GiB = %llu tokens = %llu concurrent sequences of %llu tokens\n",
                static_cast<double>(e.vllm->kv_capacity_bytes) / static_cast<double>(kGiB),
                static_cast<unsigned long long>(e.vllm->kv_capacity_tokens),
                static_cast<unsigned long long>(e.vllm->max_concurrency),
                static_cast<unsigned long long>(e.vllm->sequence_tokens));
  if (e.llamacpp) std::printf("  %-12s %s (system RAM)\n", "host RAM", gb_and_gib(e.llamacpp->host_ram_bytes).c_str());
  for (const auto& note : e.notes) std::printf("  note: %s\n", note.c_str());
  std::printf("\n");
  for (const auto& f : r.gpus) {
    const double free_gib = static_cast<double>(f.free_bytes) / static_cast<double>(kGiB);
    std::string verdict(fit_name(f.fit));
    if (f.fit == Fit::does_not_fit && f.gpus_needed > 1)
      verdict += ", needs " + std::to_string(f.gpus_needed) + " GPUs";
    std::printf("  %-34s %-28s %+8.1f GiB free\n", f.gpu->name.c_str(), verdict.c_str(), free_gib);
  }
  if (r.serving && !r.gpus.empty()) print_serving(*r.serving, *r.gpus.front().gpu);
}

std::string range_text(const Range& r, int decimals) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*f–%.*f", decimals, r.low, decimals, r.high);
  return buf;
}

void print_serving(const ServingEstimate& s, const Gpu& gpu) {
  std::printf("\n  Speed on one %s:\n", gpu.name.c_str());
  if (!s.speed) {
    std::printf("    not estimated: %s\n", s.speed_unavailable.c_str());
  } else {
    const ServingSpeed& sp = *s.speed;
    std::printf("    decode   %s tokens/s (%s per sequence)%s\n", range_text(sp.decode.tokens_per_second, 1).c_str(),
                range_text(sp.decode.tokens_per_second_per_sequence, 1).c_str(),
                sp.decode.compute_bound ? ", compute-bound" : "");
    if (sp.prefill)
      std::printf("    prefill  %s tokens/s for a %llu-token prompt (%s path)\n",
                  range_text(sp.prefill->tokens_per_second, 0).c_str(),
                  static_cast<unsigned long long>(sp.prompt_tokens), std::string(compute_path_name(sp.compute)).c_str());
    else
      std::printf("    prefill  not estimated: %s\n", sp.prefill_unavailable.c_str());
    std::printf("    how: %s\n", sp.decode.explanation.c_str());
    if (!sp.note.empty()) std::printf("    note: %s\n", sp.note.c_str());
  }
  const ServingCost& c = s.cost;
  if (c.usd_per_hour) {
    std::printf("  Cost: $%.2f/hour (%s, %s)", *c.usd_per_hour, gpu.cloud_usd_per_hour->date.c_str(),
                gpu.cloud_usd_per_hour->source.c_str());
    if (c.usd_per_million_tokens) std::printf("; $%s per 1M output tokens", range_text(*c.usd_per_million_tokens, 2).c_str());
    std::printf("\n");
  } else {
    std::printf("  Cost: no cloud price for %s in the catalog\n", gpu.name.c_str());
  }
  if (c.energy) {
    std::printf("  Energy: %.3f kWh/hour at %.0f W board power = $%.3f/hour", c.energy->kwh_per_hour, c.energy->tdp_w,
                c.energy->usd_per_hour);
    if (c.energy->usd_per_million_tokens)
      std::printf("; $%s per 1M tokens", range_text(*c.energy->usd_per_million_tokens, 3).c_str());
    std::printf(" (upper bound: full TDP, host not counted)\n");
  } else if (!c.energy_unavailable.empty()) {
    std::printf("  Energy: not estimated: %s\n", c.energy_unavailable.c_str());
  }
}

std::string optional_money(const std::optional<double>& usd) {
  if (!usd) return "no price";
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", *usd);
  return buf;
}

void print_pick(const char* label, const GpuRanking& rec, const std::optional<std::size_t>& index) {
  if (!index) {
    std::printf("  %-24s none\n", label);
    return;
  }
  const RankedConfig& c = rec.configs[*index];
  std::printf("  %-24s %llu × %s: %s/h, %s tokens/s", label, static_cast<unsigned long long>(c.count), c.gpu->name.c_str(),
              optional_money(c.usd_per_hour).c_str(),
              c.tokens_per_second ? range_text(*c.tokens_per_second, 0).c_str() : "?");
  if (c.usd_per_million_tokens) std::printf(", $%s per 1M tokens", range_text(*c.usd_per_million_tokens, 2).c_str());
  std::printf("\n");
}

void print_gpu_ranking(const GpuRankingReport& r) {
  const InferenceEstimate& e = r.estimate;
  const GpuRanking& rec = r.ranking;
  std::printf("%s, %s weights, %s, context %llu, batch %llu: %.1f GB (%.1f GB split across GPUs + %.1f GB on each)\n",
              r.model_name.c_str(), e.weights_format.c_str(), std::string(engine_name(e.engine)).c_str(),
              static_cast<unsigned long long>(e.context_tokens), static_cast<unsigned long long>(e.batch),
              static_cast<double>(e.total) / 1e9, static_cast<double>(r.need.shardable_bytes) / 1e9,
              static_cast<double>(r.need.per_gpu_bytes) / 1e9);
  if (r.options.max_usd_per_hour) std::printf("Budget: $%.2f/hour for the whole configuration\n", *r.options.max_usd_per_hour);
  constexpr std::size_t kShowFitting = 25, kShowMisses = 8;
  std::size_t fitting = 0, misses = 0;
  for (const RankedConfig& c : rec.configs) (c.fits ? fitting : misses)++;
  std::printf("\nFits, cheapest per 1M tokens first (%zu):\n", fitting);
  if (fitting) std::printf("  %3s  %-34s %5s %10s %13s %9s %13s\n", "#", "GPU", "count", "free/GPU", "tokens/s", "$/hour", "$/1M tokens");
  std::size_t shown = 0;
  for (std::size_t i = 0; i < rec.configs.size() && shown < kShowFitting; ++i) {
    const RankedConfig& c = rec.configs[i];
    if (!c.fits) continue;
    ++shown;
    std::printf("  %3zu  %-34.34s %5llu %+6.1f GiB %13s %9s %13s%s%s\n", shown, c.gpu->name.c_str(),
                static_cast<unsigned long long>(c.count), static_cast<double>(c.free_bytes) / static_cast<double>(kGiB),
                c.tokens_per_second ? range_text(*c.tokens_per_second, 0).c_str() : "?",
                optional_money(c.usd_per_hour).c_str(),
                c.usd_per_million_tokens ? range_text(*c.usd_per_million_tokens, 2).c_str() : "-",
                c.within_budget ? "" : "  over budget", c.note.empty() ? "" : ("  (" + c.note + ")").c_str());
  }
  if (fitting > shown) std::printf("  ... %zu more (--json lists all)\n", fitting - shown);
  std::printf("\n");
  print_pick("Cheapest per hour:", rec, rec.cheapest_per_hour);
  print_pick("Cheapest per 1M tokens:", rec, rec.cheapest_per_million_tokens);
  print_pick("Fastest:", rec, rec.fastest);
  if (misses) {
    std::printf("\nDoes not fit, closest first (%zu):\n", misses);
    shown = 0;
    for (const RankedConfig& c : rec.configs) {
      if (c.fits || shown == kShowMisses) continue;
      ++shown;
      char why[96];
      if (c.fit == Fit::tight)
        std::snprintf(why, sizeof why, "fits only without the headroom (%.1f GiB free per GPU)",
                      static_cast<double>(c.free_bytes) / static_cast<double>(kGiB));
      else
        std::snprintf(why, sizeof why, "short by %.1f GiB per GPU", static_cast<double>(-c.free_bytes) / static_cast<double>(kGiB));
      std::printf("  %-34.34s x%-3llu %s\n", c.gpu->name.c_str(), static_cast<unsigned long long>(c.count),
                  c.note.empty() ? why : c.note.c_str());
    }
    if (misses > shown) std::printf("  ... %zu more\n", misses - shown);
  }
  for (const auto& note : r.notes) std::printf("note: %s\n", note.c_str());
}

void print_biggest(const BiggestReport& r) {
  std::printf("On %s (%.1f GiB usable, %.0f %% headroom), %s, context %llu, batch %llu:\n", r.gpu->name.c_str(),
              static_cast<double>(r.gpu->usable_bytes()) / static_cast<double>(kGiB), r.headroom * 100, r.engine.c_str(),
              static_cast<unsigned long long>(r.context), static_cast<unsigned long long>(r.batch));
  auto line = [&](const char* label, std::size_t i) {
    const ModelCandidate& c = r.candidates[i];
    std::printf("  %-10s %-16s %-14s %6.1f B params, %5.2f bits/weight, %s, %+.1f GiB free\n", label, c.model.c_str(),
                c.format.c_str(), static_cast<double>(c.params) / 1e9, c.bits_per_weight,
                gb_and_gib(c.total_bytes).c_str(), static_cast<double>(r.free_bytes[i]) / static_cast<double>(kGiB));
  };
  if (r.biggest) line("biggest:", *r.biggest);
  for (std::size_t i : r.by_format) line("per format:", i);
  for (const auto& note : r.notes) std::printf("note: %s\n", note.c_str());
}

void print_remedies(const RemediesReport& r) {
  std::printf("What would help (%s, %s on the busiest GPU%s%s):\n", r.mode.c_str(), gb_and_gib(r.bytes).c_str(),
              r.gpu ? ", on " : "", r.gpu ? r.gpu->name.c_str() : "");
  if (r.remedies.empty()) std::printf("  nothing this calculator knows saves memory here\n");
  for (const Remedy& m : r.remedies) {
    std::printf("  %-18s saves %-10s -> %-10s%s%s\n", m.id.c_str(), gb_and_gib(static_cast<std::uint64_t>(m.saved_bytes)).c_str(),
                gb_and_gib(m.bytes).c_str(), m.fit ? "  " : "", m.fit ? std::string(fit_name(*m.fit)).c_str() : "");
    std::printf("  %-18s cost: %s (%s)\n", "", m.cost.c_str(), m.source.c_str());
  }
}

// Only regular files: a device or FIFO (/dev/zero) reports size 0 and would be read forever.
bool is_regular(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::optional<std::string> read_file(const std::string& path);

// Reads only the header of a .gguf or .safetensors file: start with 1 MiB, and read the longer prefix the
// parser asks for (need_prefix_bytes) until it has the whole header. Never the tensor data.
Result<ImportedModel> import_model_file(const std::string& path) {
  if (!is_regular(path)) return make_error("--model", "\"" + path + "\" is not a regular file");
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
    // A safetensors shard takes its architecture from the config.json beside it (else a bare count).
    std::string config;
    if (path.ends_with(".safetensors")) {
      const auto slash = path.find_last_of('/');
      config = read_file((slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/config.json").value_or("");
    }
    auto imported = import_model_header(path, prefix, file_size, config);
    if (!imported) {
      Error e = imported.error();
      if (e.field == "file") e.field = "--model";
      return e;
    }
    const auto need = imported.value().need_prefix_bytes;
    if (need == 0) return imported;
    if (need > file_size || need <= want) return make_error("--model", "header of \"" + path + "\" is inconsistent");
    want = need;
  }
  return make_error("--model", "header of \"" + path + "\" is too long");
}

std::optional<std::string> read_file(const std::string& path) {
  if (!is_regular(path)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Config files are small; refuse anything absurd rather than reading gigabytes.
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0 || size > 16 * 1024 * 1024) return std::nullopt;
  in.seekg(0);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The file --model names, read into the parsed request: a config.json's text, or a model file's header.
std::optional<Error> attach_model_file(const std::string& path, ParsedRequest& request) {
  auto attach = [&](auto& r) -> std::optional<Error> {
    if (path.ends_with(".gguf") || path.ends_with(".safetensors")) {
      auto imported = import_model_file(path);
      if (!imported) return imported.error();
      r.imported = std::move(imported).value();
      return std::nullopt;
    }
    auto text = read_file(path);
    if (!text) return make_error("--model", "cannot read \"" + path + "\" (a config.json up to 16 MiB)");
    r.config_json = std::move(*text);
    return std::nullopt;
  };
  return request.training ? attach(*request.training) : attach(request.inference);
}

void print_limits(const Limits& l) {
  std::printf("On %s (budget %s): largest context %llu tokens, largest batch %llu\n", l.gpu.c_str(),
              gb_and_gib(l.budget_bytes).c_str(), static_cast<unsigned long long>(l.max_context),
              static_cast<unsigned long long>(l.max_batch));
}

void print_training(const TrainingReport& report) { std::fputs(cli::training_table(report).c_str(), stdout); }

// Asks the request's question: the error naming the flag, or the JSON, or the table.
int answer_question(const Catalog& catalog, const ParsedRequest& request, const cli::Options& options) {
  auto print = [&](const auto& result, auto to_json, auto to_table) {
    if (!result) return fail(cli::with_flag_name(result.error(), options));
    if (options.json) std::printf("%s\n", to_json(result.value()).c_str());
    else to_table(result.value());
    return 0;
  };
  const Request& r = request.inference;
  switch (request.question) {
    case Question::estimate:
      if (request.training)
        return print(evaluate_training(catalog, *request.training), training_report_to_json, print_training);
      return print(evaluate(catalog, r), report_to_json, print_table);
    case Question::remedies:
      if (request.training)
        return print(remedies_for(catalog, *request.training), remedies_report_to_json, print_remedies);
      return print(remedies_for(catalog, r), remedies_report_to_json, print_remedies);
    case Question::gpu_ranking:
      return print(rank_gpus_for(catalog, r), gpu_ranking_report_to_json, print_gpu_ranking);
    case Question::biggest_model:
      return print(biggest_for(catalog, r), biggest_report_to_json, print_biggest);
    case Question::limits:
      return print(solve_limits(catalog, r), limits_to_json, print_limits);
    case Question::curve:
      break;  // no flag asks it: the page draws curves
  }
  return fail(make_error("question", "the CLI draws no memory curve"));
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = cli::parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed) return fail(parsed.error());
  const cli::Options& options = parsed.value();

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
      for (const auto& p : catalog.value().models) {
        std::string tags;  // --model takes these as well
        for (const auto& tag : p.ollama) tags += (tags.empty() ? "  ollama: " : ", ") + tag;
        std::printf("%-30s %s%s\n", p.spec.id.c_str(), p.spec.name.c_str(), tags.c_str());
      }
    } else {
      for (const auto& g : catalog.value().gpus)
        std::printf("%-24s %-36s %6.0f GiB\n", g.id.c_str(), g.name.c_str(),
                    static_cast<double>(g.memory_bytes) / static_cast<double>(kGiB));
    }
    return 0;
  }

  auto request = parse_request(options.request);
  if (!request) return fail(cli::with_flag_name(request.error(), options));
  // "Qwen/Qwen3-30B-A3B" reads like a path; with no such file it names a preset by its Hugging Face repo.
  if (!options.model_path.empty() && !is_regular(options.model_path) &&
      find_model(catalog.value().models, options.model_path) != nullptr) {
    auto name_preset = [&](auto& r) { r.model = options.model_path; };
    request.value().training ? name_preset(*request.value().training) : name_preset(request.value().inference);
  } else if (!options.model_path.empty()) {
    if (auto error = attach_model_file(options.model_path, request.value())) return fail(*error);
  }
  return answer_question(catalog.value(), request.value(), options);
}
