#include "tables.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>    // std::replace, std::max
#include <cmath>        // std::nan
#include <cstdarg>      // va_list
#include <cstdio>       // std::vsnprintf, std::snprintf
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

namespace vramfit::cli {

using nlohmann::json;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// printf onto the end of `out`: the tables keep printf's column formats.
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  char buf[1024];
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string long_line(static_cast<std::size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(long_line.data(), long_line.size(), format, args);
  va_end(args);
  long_line.pop_back();
  out += long_line;
}

// A JSON number as printf takes it; the writer gives null for a non-finite number.
double number(const json& v) { return v.is_number() ? v.get<double>() : std::nan(""); }
unsigned long long whole(const json& v) { return v.is_number() ? v.get<unsigned long long>() : 0; }
std::uint64_t bytes(const json& v) { return v.is_number() ? v.get<std::uint64_t>() : 0; }
// A string, or a message's English ({id, args, text}).
const char* text(const json& v) {
  const json& s = v.is_object() && v.contains("text") ? v.at("text") : v;
  return s.is_string() ? s.get_ref<const std::string&>().c_str() : "";
}

// A verdict as people read it: the JSON's does_not_fit is "does not fit" in a table.
std::string fit_words(const json& fit) {
  std::string words = text(fit);
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}
double gib(const json& v) { return number(v) / kGiB; }
// What people read beside the headline: GB (10^9 B), as the headline and the page write it; GiB only where an engine
// prints GiB and the line says so.
double gb(const json& v) { return number(v) / 1e9; }

// {"low", "high"} as "low–high" with `decimals` after the point; one figure when both ends print the same.
std::string range_text(const json& r, int decimals) {
  std::string low, high;
  appendf(low, "%.*f", decimals, number(r.at("low")));
  appendf(high, "%.*f", decimals, number(r.at("high")));
  return low == high ? low : low + "–" + high;
}

// Dollars as the notes and the page write them: thousands grouped with commas ("$3,998", "$1,250.50").
std::string dollars(double usd, int decimals) {
  std::string digits;
  appendf(digits, "%.*f", decimals, usd);
  const std::size_t sign = digits.starts_with('-') ? 1 : 0;
  const std::size_t point = std::min(digits.find('.'), digits.size());
  for (std::size_t at = point; at > sign + 3; at -= 3) digits.insert(at - 3, ",");
  return digits.insert(sign, "$");
}

// A range of dollars ("$0.12–0.35"), grouped as dollars() groups them; one figure when both ends print the same.
std::string dollar_range(const json& r, int decimals) {
  const std::string low = dollars(number(r.at("low")), decimals), high = dollars(number(r.at("high")), decimals);
  return low == high ? low : low + "–" + high.substr(1);
}

std::string money(const json& usd) {
  if (usd.is_null()) return "no price";
  return dollars(number(usd), 2);
}

std::string gpu_name(const json& catalog, const json& id) {
  for (const json& g : catalog.at("gpus"))
    if (g.at("id") == id) return g.at("name").get<std::string>();
  return id.is_string() ? id.get<std::string>() : std::string();
}

// A GPU of the answer: its own list first, where a card described by its figures is (the catalog has no such card).
std::string gpu_name(const json& answer, const json& catalog, const json& id) {
  for (const json& g : answer.value("gpus", json::array()))
    if (g.is_object() && g.value("id", json()) == id && g.contains("name")) return g.at("name").get<std::string>();
  return gpu_name(catalog, id);
}

// The headline sentence the page shows, above the GPU table it sums up, and why it is not certain where it is not.
void append_headline(std::string& out, const json& a) {
  const json& v = a.at("verdict");
  appendf(out, "%s\n", verdict_text(v).c_str());
  if (const auto reasons = v.find("certainty_reasons"); reasons != v.end())
    for (const json& reason : *reasons) appendf(out, "  why not certain: %s\n", text(reason));
}

void append_notes(std::string& out, const json& notes, const char* indent) {
  for (const json& note : notes) appendf(out, "%snote: %s\n", indent, text(note));
}

std::string speed_and_cost(const json& a, const json& gpu) {
  std::string out;
  if (a.contains("per_gpu"))
    appendf(out, "\n  Speed on %llu × %s:\n", whole(a.at("per_gpu").at("gpus")), text(gpu.at("name")));
  else
    appendf(out, "\n  Speed on one %s:\n", text(gpu.at("name")));
  const json& sp = a.at("speed");
  if (sp.is_null()) {
    appendf(out, "    not estimated: %s\n", text(a.at("speed_unavailable")));
  } else {
    appendf(out, "    decode   %s tokens/s (%s per sequence)%s\n",
            range_text(sp.at("decode_tokens_per_second"), 1).c_str(),
            range_text(sp.at("decode_tokens_per_second_per_sequence"), 1).c_str(),
            sp.at("compute_bound").get<bool>() ? ", compute-bound" : "");
    if (sp.contains("draft")) {
      const json& d = sp.at("draft");
      appendf(out, "    draft    %s tokens/s per sequence with %llu draft tokens a step, acceptance %s\n",
              range_text(d.at("decode_tokens_per_second_per_sequence"), 1).c_str(), whole(d.at("draft_tokens")),
              d.at("acceptance_given").get<bool>()
                  ? range_text(json{{"low", d.at("acceptance_low")}, {"high", d.at("acceptance_low")}}, 2).c_str()
                  : (range_text(json{{"low", d.at("acceptance_low")}, {"high", d.at("acceptance_high")}}, 2) +
                     " (assumed)").c_str());
    }
    if (!sp.at("prefill_tokens_per_second").is_null()) {
      appendf(out, "    prefill  %s tokens/s for a %llu-token prompt (%s path)\n",
              range_text(sp.at("prefill_tokens_per_second"), 0).c_str(), whole(sp.at("prompt_tokens")),
              text(sp.at("compute_path")));
      // Below a second in milliseconds: a short prompt's first token comes in a few of them.
      const json& ttft = sp.at("time_to_first_token_seconds");
      const double low = number(ttft.at("low")), high = number(ttft.at("high"));
      if (high < 1) appendf(out, "    first token after %.0f–%.0f ms\n", low * 1e3, high * 1e3);
      else appendf(out, "    first token after %s s\n", range_text(ttft, high < 10 ? 2 : 1).c_str());
      appendf(out, "    prefill how: %s\n", text(sp.at("prefill_explanation")));
    } else
      appendf(out, "    prefill  not estimated: %s\n", text(sp.at("prefill_unavailable")));
    appendf(out, "    how: %s\n", text(sp.at("explanation")));
    if (!sp.at("note").is_null()) appendf(out, "    note: %s\n", text(sp.at("note")));
  }
  const json& c = a.at("cost");
  if (!c.at("usd_per_hour").is_null()) {
    appendf(out, "  Cost: %s/hour (%s, %s)", dollars(number(c.at("usd_per_hour")), 2).c_str(), text(c.at("price_date")),
            text(c.at("price_source")));
    if (!c.at("usd_per_million_tokens").is_null())
      appendf(out, "; %s per 1M output tokens", dollar_range(c.at("usd_per_million_tokens"), 2).c_str());
    out += "\n";
  } else {
    appendf(out, "  Cost: no cloud price for %s in the catalog\n", text(gpu.at("name")));
  }
  if (const json& e = c.at("energy"); !e.is_null()) {
    appendf(out, "  Energy: %.3f kWh/hour at %.0f W board power = %s/hour", number(e.at("kwh_per_hour")),
            number(e.at("tdp_w")), dollars(number(e.at("usd_per_hour")), 3).c_str());
    if (!e.at("usd_per_million_tokens").is_null())
      appendf(out, "; %s per 1M tokens", dollar_range(e.at("usd_per_million_tokens"), 3).c_str());
    out += " (upper bound: full TDP, host not counted)\n";
  } else if (!c.at("energy_unavailable").is_null()) {
    appendf(out, "  Energy: not estimated: %s\n", text(c.at("energy_unavailable")));
  }
  return out;
}

// How many whole sequences a KV pool holds at once; none: the engine refuses to start.
std::string sequences(const json& count, const json& length) {
  const unsigned long long n = whole(count), tokens = whole(length);
  std::string out;
  if (n == 0) appendf(out, "less than one sequence of %llu tokens: the engine would not start", tokens);
  else if (n == 1) appendf(out, "1 sequence of %llu tokens at a time", tokens);
  else appendf(out, "%llu concurrent sequences of %llu tokens", n, tokens);
  return out;
}

// The engine's own figures: vLLM's KV capacity, SGLang's pool, MLX's cache and chunk, llama.cpp's host RAM.
void append_engine(std::string& out, const json& a) {
  if (const json& v = a.at("vllm"); !v.is_null() && bytes(v.at("budget_bytes")) != 0)
    appendf(out, "  vLLM KV capacity %.2f GiB = %llu tokens = %s\n", gib(v.at("kv_capacity_bytes")),
            whole(v.at("kv_capacity_tokens")), sequences(v.at("max_concurrency"), v.at("sequence_tokens")).c_str());
  if (const auto sg = a.find("sglang"); sg != a.end() && bytes(sg->at("driver_total_bytes")) != 0)
    appendf(out, "  SGLang KV pool %.2f GiB = %llu tokens (max_total_num_tokens) = %s, mem_fraction_static %.3f\n",
            gib(sg->at("kv_capacity_bytes")), whole(sg->at("max_total_num_tokens")),
            sequences(sg->at("max_concurrency"), sg->at("context_len")).c_str(),
            sg->at("mem_fraction_static").get<double>());
  if (const auto mx = a.find("mlx"); mx != a.end())
    appendf(out, "  MLX cache %llu tokens (256-token steps), prefill chunk %llu tokens, attention %s\n",
            whole(mx->at("cache_tokens")), whole(mx->at("chunk_tokens")),
            mx->at("fused_attention").get<bool>() ? "fused (no score matrix)" : "unfused (scores materialized)");
  // Ollama's estimator (up to 0.11.10) with a GPU; from 0.30 the "ollama" object holds the version alone.
  if (const auto ol = a.find("ollama"); ol != a.end() && ol->value("planned", false))
    appendf(out, "  Ollama offloads %llu/%llu layers to the GPU: %.2f GiB there (memory.required.partial), %.2f GiB in "
                 "system RAM; num_ctx %llu, KV %.2f GiB, graph %.2f GiB full / %.2f GiB partial\n",
            whole(ol->at("layers_offload")), whole(ol->at("layers_model")), gib(ol->at("required_partial_bytes")),
            gib(ol->at("system_ram_bytes")), whole(ol->at("num_ctx")), gib(ol->at("kv_bytes")),
            gib(ol->at("graph_full_bytes")), gib(ol->at("graph_partial_bytes")));
  // Where --fit moves experts or layers off the GPU, system RAM holds what its placement left there.
  // The breakdown's system RAM line says it where the placement keeps part of the model there.
  if (const json& l = a.at("llamacpp"); !l.is_null() && bytes(a.at("breakdown").at("system_ram")) == 0) {
    const json& f = a.at("llamacpp_fit");
    const std::string step = f.is_null() ? "" : text(f.at("step"));
    const bool moved = step == "experts" || step == "layers";
    appendf(out, "  %-12s %s (system RAM%s)\n", "host RAM",
            gb_and_gib(bytes(moved ? f.at("host_ram_bytes") : l.at("host_ram_bytes"))).c_str(),
            moved ? ", as --fit places the model" : "");
  }
}

// llama.cpp's --fit on the request's GPU: what it changed, in its own order (context, experts, layers).
void append_llamacpp_fit(std::string& out, const json& a) {
  const json& f = a.at("llamacpp_fit");
  if (f.is_null()) return;
  const std::string step = text(f.at("step"));
  std::string changes;
  const auto add = [&changes](const std::string& part) { changes += (changes.empty() ? " " : ", ") + part; };
  if (step == "none") add("fits as it is, context " + std::to_string(whole(f.at("context"))));
  if (whole(f.at("context")) != whole(f.at("context_start")))
    add("context " + std::to_string(whole(f.at("context_start"))) + " -> " + std::to_string(whole(f.at("context"))));
  if (step == "experts" && whole(f.at("cpu_expert_layers")) == 0)
    add("every layer on the GPU, the output layer in system RAM (-ngl " + std::to_string(whole(f.at("gpu_layers"))) +
        ")");
  else if (step == "experts")
    add("experts of layers " + std::to_string(whole(f.at("first_cpu_expert_layer"))) + "-" +
        std::to_string(whole(f.at("total_layers")) - 1) + " in system RAM (--n-cpu-moe " +
        std::to_string(whole(f.at("n_cpu_moe"))) + ")");
  if (step == "layers")
    add(std::to_string(whole(f.at("gpu_layers"))) + " of " + std::to_string(whole(f.at("total_layers"))) +
        " layers on the GPU" + (whole(f.at("expert_layers")) ? " with their experts in system RAM" : ""));
  if (!f.at("fits").get<bool>()) add("does not fit even so");
  appendf(out, "  llama.cpp --fit, %.2f GiB free less a %.0f MiB margin:%s\n", gib(f.at("free_bytes")),
          number(f.at("margin_bytes")) / 1048576.0, changes.c_str());
  // A vision projector llama-server loads beside the plan (Ollama's --mmproj) is in the GPU's bytes too.
  const double projector = f.contains("projector_bytes") ? gib(f.at("projector_bytes")) : 0.0;
  char projector_part[48] = "";
  if (projector > 0) std::snprintf(projector_part, sizeof projector_part, " + projector %.2f", projector);
  appendf(out, "    GPU %s = model %.2f + context %.2f + compute %.2f%s GiB; system RAM %s\n",
          gb_and_gib(bytes(f.at("gpu_bytes"))).c_str(), gib(f.at("gpu_model_bytes")), gib(f.at("gpu_context_bytes")),
          gib(f.at("gpu_compute_bytes")), projector_part,
          gb_and_gib(bytes(f.at("host_ram_bytes"))).c_str());
}

// The engine's command line, or why there is none.
void append_command(std::string& out, const json& a) {
  const json& c = a.at("command");
  if (text(c.at("text"))[0] == '\0') appendf(out, "  %-12s none: %s\n", "command", text(c.at("note")));
  else appendf(out, "  %-12s %s\n", "command", text(c.at("text")));
}

void append_pick(std::string& out, const char* label, const json& ranking, const json& pick) {
  if (pick.is_null()) {
    appendf(out, "  %-24s none\n", label);
    return;
  }
  const json& c = ranking.at(pick.at("index").get<std::size_t>());
  appendf(out, "  %-24s %llu × %s: %s/h, %s tokens/s", label, whole(c.at("count")), text(c.at("name")),
          money(c.at("usd_per_hour")).c_str(),
          c.at("tokens_per_second").is_null() ? "?" : range_text(c.at("tokens_per_second"), 0).c_str());
  if (!c.at("usd_per_million_tokens").is_null())
    appendf(out, ", %s per 1M tokens", dollar_range(c.at("usd_per_million_tokens"), 2).c_str());
  out += "\n";
}

// The cheapest configuration to buy: its street price and that price's date (the break-even is in the notes).
void append_buy_pick(std::string& out, const json& ranking, const json& pick) {
  if (pick.is_null()) {
    appendf(out, "  %-24s none (no street price for what fits)\n", "Cheapest to buy:");
    return;
  }
  const json& c = ranking.at(pick.at("index").get<std::size_t>());
  appendf(out, "  %-24s %llu × %s: about %s (price of %s)\n", "Cheapest to buy:", whole(c.at("count")),
          text(c.at("name")), dollars(number(c.at("purchase_usd")), 0).c_str(), text(c.at("purchase_date")));
}

// A configuration's purchase price, whole dollars; "unknown" without a street price.
std::string buy_price(const json& usd) {
  if (usd.is_null()) return "unknown";
  return dollars(number(usd), 0);
}

// The configurations that fit, cheapest per 1M tokens first, as many as a screen shows.
void append_fitting(std::string& out, const json& ranking, std::size_t fitting) {
  constexpr std::size_t kShown = 25;
  appendf(out, "\nFits, cheapest per 1M tokens first (%zu):\n", fitting);
  if (fitting)
    appendf(out, "  %3s  %-34s %5s %10s %13s %9s %13s %8s\n", "#", "GPU", "count", "free/GPU", "tokens/s", "$/hour",
            "$/1M tokens", "buy");
  std::size_t shown = 0;
  for (const json& c : ranking) {
    if (shown == kShown) break;
    if (!c.at("fits").get<bool>()) continue;
    ++shown;
    const std::string note = c.at("note").is_null() ? "" : "  (" + std::string(text(c.at("note"))) + ")";
    appendf(out, "  %3zu  %-34.34s %5llu %+7.1f GB %13s %9s %13s %8s%s%s\n", shown, text(c.at("name")),
            whole(c.at("count")), gb(c.at("free_bytes")),
            c.at("tokens_per_second").is_null() ? "?" : range_text(c.at("tokens_per_second"), 0).c_str(),
            money(c.at("usd_per_hour")).c_str(),
            c.at("usd_per_million_tokens").is_null() ? "-" : range_text(c.at("usd_per_million_tokens"), 2).c_str(),
            buy_price(c.at("purchase_usd")).c_str(),
            c.at("within_budget").get<bool>() ? "" : "  over budget", note.c_str());
  }
  if (fitting > shown) appendf(out, "  ... %zu more (--json lists all)\n", fitting - shown);
}

// The configurations that do not fit, closest first, and why.
void append_misses(std::string& out, const json& ranking, std::size_t misses) {
  constexpr std::size_t kShown = 8;
  appendf(out, "\nDoes not fit, closest first (%zu):\n", misses);
  std::size_t shown = 0;
  for (const json& c : ranking) {
    if (c.at("fits").get<bool>() || shown == kShown) continue;
    ++shown;
    std::string why;
    if (c.at("fit") == "tight")
      appendf(why, "fits only without the headroom (%.1f GB free per GPU)", gb(c.at("free_bytes")));
    else
      appendf(why, "short by %.1f GB per GPU", -gb(c.at("free_bytes")));
    appendf(out, "  %-34.34s x%-3llu %s\n", text(c.at("name")), whole(c.at("count")),
            c.at("note").is_null() ? why.c_str() : text(c.at("note")));
  }
  if (misses > shown) appendf(out, "  ... %zu more\n", misses - shown);
}

}  // namespace

std::string gb_and_gib(std::uint64_t b) {
  std::string out;
  appendf(out, "%9.2f GB %9.2f GiB", static_cast<double>(b) / 1e9, static_cast<double>(b) / kGiB);
  return out;
}

// How the GPUs share the model, in words: per_gpu's "how".
std::string split_words(const json& how) {
  const std::string_view h = text(how);
  if (h == "layer_split") return "layers split across GPUs (llama.cpp --tensor-split)";
  if (h == "device_map") return "whole layers on each GPU (transformers device_map=\"auto\")";
  if (h == "tensor_parallel") return "every layer split across GPUs (tensor parallel)";
  if (h == "pipeline_parallel") return "consecutive layers on each GPU (pipeline parallel)";
  return std::string(h);
}

// Over several GPUs: how they share the model and each one's part (vLLM's ranks are alike: one line).
void append_per_gpu(std::string& out, const json& a) {
  if (!a.contains("per_gpu")) return;
  const json& g = a.at("per_gpu");
  appendf(out, "  per GPU      %llu GPUs, %s; the fullest decides:\n", whole(g.at("gpus")), split_words(g.at("how")).c_str());
  const json& devices = g.at("devices");
  if (devices.empty()) {
    appendf(out, "    each       %s\n", gb_and_gib(bytes(g.at("total"))).c_str());
    return;
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const json& d = devices[i];
    std::string layers;
    if (whole(d.at("layers")) > 0)
      layers = "layers " + std::to_string(whole(d.at("first_layer"))) + "-" +
               std::to_string(whole(d.at("first_layer")) + whole(d.at("layers")) - 1);
    if (d.at("output") == true) layers += layers.empty() ? "output" : " + output";
    appendf(out, "    GPU %-6zu %s  %s\n", i + 1, gb_and_gib(bytes(d.at("total"))).c_str(), layers.c_str());
  }
}

namespace {

// The model's line, its engine and formats, and over more than one kind of layer the counts by kind.
void append_model_lines(std::string& out, const json& a) {
  const json& in = a.at("inputs");
  const json& m = a.at("model");
  const std::uint64_t params = bytes(m.at("params_total"));
  const double billions = static_cast<double>(params) / 1e9;
  // Mixture of experts: the active count as model cards give it (without the input embedding a token looks up).
  std::string active;
  if (bytes(m.at("params_active")) != params)
    appendf(active, ", %.3g B active (as model cards count)", static_cast<double>(bytes(m.at("params_active_excl_embedding"))) / 1e9);
  if (billions >= 0.01)
    appendf(out, "%s: %.3g B parameters%s, context %llu, batch %llu\n", text(m.at("name")), billions, active.c_str(),
            whole(in.at("context")), whole(in.at("batch")));
  else
    appendf(out, "%s: %llu parameters, context %llu, batch %llu\n", text(m.at("name")),
            static_cast<unsigned long long>(params), whole(in.at("context")), whole(in.at("batch")));
  appendf(out, "  engine %s, %s weights, %s KV cache\n", text(in.at("engine")), text(in.at("weights")),
          text(in.at("kv_dtype")));
  // Models with more than one kind of layer: the core's counts by token mixer and by MLP.
  const json& mixers = m.at("layer_mixers");
  const json& mlps = m.at("layer_mlps");
  if (mixers.size() > 1 || mlps.size() > 1) {
    const auto list = [](const json& counts, const char* key) {
      std::string joined;
      for (const json& c : counts)
        joined += (joined.empty() ? "" : ", ") + std::to_string(whole(c.at("count"))) + " " + text(c.at(key));
      return joined;
    };
    appendf(out, "  layers: %s; MLP: %s\n", list(mixers, "mixer").c_str(), list(mlps, "mlp").c_str());
  }
}

// The other models loaded first, in load order, each {name, context, bytes}; none without any.
const json& other_models(const json& a) {
  static const json kNone = json::array();
  const auto it = a.find("other_models");
  return it == a.end() ? kNone : *it;
}

// The breakdown's lines, each other model's just above the total.
void append_breakdown(std::string& out, const json& b, const json& others, int width) {
  // Where the engine keeps part of the model in system RAM the lines above it are the GPU's share.
  const std::pair<const char*, const char*> lines[] = {
      {"weights", "weights"},   {"vision", "vision_encoder"},       {"KV cache", "kv_cache"},
      {"activations", "activations"},
      {"overhead", "overhead"}, {"allocator", "allocator_reserve"}, {"draft model", "draft"},
      {"system RAM", "system_ram"}, {"in use", "in_use"}, {"total", "total"}};
  for (const auto& [label, key] : lines) {
    // Lines only some answers have: system RAM where the engine keeps part there, memory other programs hold, a
    // vision encoder, a draft model.
    const std::string_view k = key;
    if ((k == "system_ram" || k == "in_use" || k == "vision_encoder") && (!b.contains(key) || bytes(b.at(key)) == 0))
      continue;
    if (k == "draft" && !b.contains(key)) continue;
    if (k == "total")
      for (const json& other : others)
        appendf(out, "  %-*s %s  (%llu tokens)\n", width, ("+ " + other.at("name").get<std::string>()).c_str(),
                gb_and_gib(bytes(other.at("bytes"))).c_str(), whole(other.at("context")));
    appendf(out, "  %-*s %s\n", width, label, gb_and_gib(bytes(b.at(key))).c_str());
    // Linear-attention and Mamba layers keep a fixed state per sequence beside the per-token KV cache.
    if (std::string_view(key) == "kv_cache" && b.contains("state_cache") && bytes(b.at("state_cache")) != 0)
      appendf(out, "  %-*s %s (per sequence, fixed in context)\n", width, "state",
              gb_and_gib(bytes(b.at("state_cache"))).c_str());
  }
}

void append_range(std::string& out, const json& a, int width) {
  const json& range = a.at("range");
  const std::string low = gb_and_gib(bytes(range.at("low"))), high = gb_and_gib(bytes(range.at("high")));
  if (low == high)
    appendf(out, "  %-*s %s\n", width, "range", low.c_str());
  else
    appendf(out, "  %-*s %s  to %s\n", width, "range", low.c_str(), high.c_str());
  for (const json& d : range.at("drivers")) appendf(out, "    driver: %s\n", text(d));
}

// Each GPU's row: its verdict and the memory left free on it.
void append_gpu_rows(std::string& out, const json& a) {
  // Over several of one card each row is that card's share; a list of different cards has a row for each card.
  const bool each = a.contains("per_gpu") && a.at("gpus").size() != whole(a.at("per_gpu").at("gpus"));
  const char* free = each ? "GB free each" : "GB free";
  const json& v = a.at("verdict");
  if (const json& p = v.at("placement"); !p.is_null())
    appendf(out, "  as the engine places it: %s on the %s, %s in system RAM\n", gb_and_gib(bytes(p.at("gpu_bytes"))).c_str(),
            whole(p.at("gpus")) > 1 ? (std::to_string(whole(p.at("gpus"))) + " GPUs").c_str() : "GPU",
            gb_and_gib(bytes(p.at("ram_bytes"))).c_str());
  for (const json& f : a.at("gpus")) {
    std::string verdict = fit_words(f.at("fit"));
    // The headline's GPU runs the model where its fit alone says it does not (part of it in system RAM).
    if (!v.at("label").is_null() && f.at("id") == v.at("gpu")) verdict = text(v.at("label"));
    else if (f.at("fit") == "does_not_fit" && whole(f.at("gpus_needed")) > 1)
      verdict += ", needs " + std::to_string(whole(f.at("gpus_needed"))) + " GPUs";
    // A Mac has one GPU: several of it is not a setup to judge.
    if (f.value("one_per_machine", false)) {
      appendf(out, "  %-34s %s\n", text(f.at("name")), "one per machine: not judged for several");
      continue;
    }
    appendf(out, "  %-34s %-28s %+8.1f %s\n", text(f.at("name")), verdict.c_str(), gb(f.at("free_bytes")), free);
  }
}

}  // namespace

std::string estimate_table(const json& a) {
  std::string out;
  append_model_lines(out, a);
  const json& b = a.at("breakdown");
  const json& others = other_models(a);
  // The label column fits the longest label.
  int width = 12;
  for (const json& other : others) width = std::max(width, static_cast<int>(other.at("name").get<std::string>().size()) + 2);
  append_breakdown(out, b, others, width);
  append_range(out, a, width);
  append_engine(out, a);
  append_llamacpp_fit(out, a);
  append_per_gpu(out, a);
  append_command(out, a);
  append_notes(out, a.at("notes"), "  ");
  out += "\n";
  append_headline(out, a);
  append_gpu_rows(out, a);
  if (!a.at("cost").is_null()) out += speed_and_cost(a, a.at("gpus").at(0));
  return out;
}

std::string training_table(const json& a, const json& catalog) {
  std::string out;
  const json& in = a.at("inputs");
  appendf(out, "%s: %s, %.3g B parameters (%llu trainable), %s, %s\n", text(a.at("model").at("name")),
          text(a.at("mode")), number(a.at("model").at("params_total")) / 1e9, whole(a.at("trainable_params")),
          text(in.at("precision")), text(in.at("optimizer")));
  appendf(out,
          "  sequence %llu × micro-batch %llu, accumulation %llu, global batch %llu; %llu GPU(s): tp %llu pp %llu dp "
          "%llu, ZeRO %s, offload %s\n",
          whole(in.at("sequence")), whole(in.at("micro_batch")), whole(in.at("grad_accum")),
          whole(in.at("global_batch")), whole(in.at("gpus")), whole(in.at("tp")), whole(in.at("pp")),
          whole(in.at("dp")), text(in.at("zero")), text(in.at("offload")));
  if (const auto g = a.find("grpo"); g != a.end())
    appendf(out, "  GRPO: prompt %llu + completion %llu tokens, %llu generations per prompt, %llu generated at once "
                 "by %s, beta %.3g, policy %s\n",
            whole(in.at("prompt_tokens")), whole(in.at("completion_tokens")), whole(in.at("num_generations")),
            whole(g->at("generation_batch")), text(in.at("sampler")), number(in.at("beta")), text(in.at("policy")));
  appendf(out, "  per GPU (%s):\n", text(a.at("breakdown_role")));
  const json& b = a.at("breakdown");
  for (const char* key : {"weights", "gradients", "optimizer", "activations", "temporary", "reference_model",
                          "sampling", "overhead", "total"})
    if (b.contains(key))  // GRPO's longer line names widen the column
      appendf(out, "    %-*s %s\n", b.contains("sampling") ? 15 : 12, key, gb_and_gib(bytes(b.at(key))).c_str());
  if (a.at("ranks").size() > 1)
    for (const json& rank : a.at("ranks"))
      appendf(out, "    rank: %s total %s\n", text(rank.at("role")), gb_and_gib(bytes(rank.at("total"))).c_str());
  if (const auto host = bytes(a.at("host_ram_bytes"))) appendf(out, "  host RAM     %s\n", gb_and_gib(host).c_str());
  if (const auto nvme = bytes(a.at("nvme_bytes"))) appendf(out, "  NVMe         %s\n", gb_and_gib(nvme).c_str());
  if (const json& s = a.at("slowdown"); number(s.at("max")) > 1)
    appendf(out, "  offload slowdown ×%.2g–%.2g\n", number(s.at("min")), number(s.at("max")));
  if (const json& t = a.at("time"); !t.is_null()) {
    const double seconds = number(t.at("seconds"));
    appendf(out, "  time on %llu × %s (%.4g TFLOPS %s, MFU %.2g): %.4g h", whole(in.at("gpus")),
            gpu_name(a, catalog, t.at("gpu")).c_str(), number(t.at("peak_tflops")), text(t.at("peak_dtype")),
            number(t.at("mfu")), seconds / 3600);
    if (number(t.at("seconds_max")) > seconds) appendf(out, "–%.4g h", number(t.at("seconds_max")) / 3600);
    appendf(out, ", %.4g GPU-hours", number(t.at("gpu_hours")));
    if (const json& usd = t.at("usd"); !usd.is_null()) {
      appendf(out, ", %.2f", number(usd));
      if (const json& most = t.at("usd_max"); !most.is_null() && number(most) > number(usd))
        appendf(out, "–%.2f", number(most));
      out += " USD";
    }
    out += "\n";
  }
  append_notes(out, a.at("notes"), "  ");
  out += "\n";
  append_headline(out, a);
  for (const json& f : a.at("gpus"))
    appendf(out, "  %-34s %-14s %+8.1f GB free\n", text(f.at("name")), fit_words(f.at("fit")).c_str(), gb(f.at("free_bytes")));
  return out;
}

std::string gpu_ranking_table(const json& a) {
  std::string out;
  const json& in = a.at("inputs");
  const json& need = a.at("memory");
  appendf(out, "%s, %s weights, %s, context %llu, batch %llu: %.1f GB (%.1f GB split across GPUs + %.1f GB on each)\n",
          text(a.at("model").at("name")), text(in.at("weights")), text(in.at("engine")), whole(in.at("context")),
          whole(in.at("batch")), number(need.at("total_bytes")) / 1e9, number(need.at("shardable_bytes")) / 1e9,
          number(need.at("per_gpu_bytes")) / 1e9);
  if (!in.at("budget_per_hour").is_null())
    appendf(out, "Budget: %s/hour for the whole configuration\n", dollars(number(in.at("budget_per_hour")), 2).c_str());
  const json& ranking = a.at("ranking");
  std::size_t fitting = 0;
  for (const json& c : ranking) fitting += c.at("fits").get<bool>();
  append_fitting(out, ranking, fitting);
  out += "\n";
  append_pick(out, "Cheapest per hour:", ranking, a.at("cheapest_per_hour"));
  append_pick(out, "Cheapest per 1M tokens:", ranking, a.at("cheapest_per_million_tokens"));
  append_pick(out, "Fastest:", ranking, a.at("fastest"));
  append_buy_pick(out, ranking, a.at("cheapest_to_buy"));
  if (const std::size_t misses = ranking.size() - fitting) append_misses(out, ranking, misses);
  append_notes(out, a.at("notes"), "");
  return out;
}

std::string biggest_model_table(const json& a) {
  std::string out;
  const json& gpu = a.at("gpu");
  appendf(out, "On %s (%.1f GB usable, %.0f %% headroom), %s, context %llu, batch %llu:\n", text(gpu.at("name")),
          gb(gpu.at("usable_bytes")), number(a.at("headroom")) * 100, text(a.at("engine")), whole(a.at("context")),
          whole(a.at("batch")));
  const auto line = [&](const char* label, const json& c) {
    appendf(out, "  %-10s %-16s %-14s %6.1f B params, %5.2f bits/weight, %s, %+.1f GB free\n", label,
            text(c.at("model")), text(c.at("weights")), number(c.at("params")) / 1e9, number(c.at("bits_per_weight")),
            gb_and_gib(bytes(c.at("total_bytes"))).c_str(), gb(c.at("free_bytes")));
  };
  if (!a.at("biggest").is_null()) line("biggest:", a.at("biggest"));
  for (const json& c : a.at("by_format")) line("per format:", c);
  append_notes(out, a.at("notes"), "");
  return out;
}

// A remedy's verdict afterwards in a table's words: the headline's kind where it says more than the fit's colour.
std::string remedy_verdict_words(const json& r) {
  const json& verdict = r.value("verdict", json());
  if (verdict == "runs_split") return "runs, part in system RAM";
  if (verdict == "refuses") return "would not start";
  return fit_words(r.at("fit"));
}

std::string remedies_table(const json& a, const json& catalog) {
  std::string out;
  const bool on_gpu = !a.at("gpu").is_null();
  std::string ram;
  if (bytes(a.at("host_ram_bytes")) > 0) ram = " and " + gb_and_gib(bytes(a.at("host_ram_bytes"))) + " in system RAM";
  appendf(out, "What would help (%s, %s on the busiest GPU%s%s%s):\n", text(a.at("mode")),
          gb_and_gib(bytes(a.at("bytes"))).c_str(), ram.c_str(), on_gpu ? ", on " : "",
          on_gpu ? (a.value("gpu_name", json()).is_string() ? text(a.at("gpu_name"))
                                                            : gpu_name(catalog, a.at("gpu")).c_str())
                 : "");
  if (a.at("remedies").empty()) out += "  nothing this calculator knows saves memory here\n";
  else if (!a.at("summary").is_null()) appendf(out, "  %s\n", text(a.at("summary")));
  int width = 18;  // the id column: as wide as the longest id (two changes: "weights-4bit+offload")
  for (const json& r : a.at("remedies")) width = std::max(width, static_cast<int>(r.at("id").get_ref<const std::string&>().size()));
  for (const json& r : a.at("remedies")) {
    // A negative saving prints as its 64-bit wrap, as an unsigned byte count does.
    const auto saved = static_cast<std::uint64_t>(r.at("saved_bytes").get<std::int64_t>());
    const bool fit = !r.at("fit").is_null();
    const std::string verdict = fit ? "  " + remedy_verdict_words(r) : "";
    // A Mac's raised wired limit saves nothing: it gives the GPU more of the RAM.
    if (r.contains("usable_bytes"))
      appendf(out, "  %-*s GPU may use %-10s%s\n", width, text(r.at("id")), gb_and_gib(bytes(r.at("usable_bytes"))).c_str(),
              verdict.c_str());
    else if (a.at("mode") == "inference" && !r.at("host_ram_bytes").is_null())
      // With part of the model in system RAM: the GPU's part and the rest, which together are what it needs.
      appendf(out, "  %-*s saves %-10s -> %-10s on the GPU + %s in system RAM%s\n", width, text(r.at("id")),
              gb_and_gib(saved).c_str(), gb_and_gib(bytes(r.at("bytes"))).c_str(),
              gb_and_gib(bytes(r.at("host_ram_bytes"))).c_str(), verdict.c_str());
    else
      appendf(out, "  %-*s saves %-10s -> %-10s%s\n", width, text(r.at("id")), gb_and_gib(saved).c_str(),
              gb_and_gib(bytes(r.at("bytes"))).c_str(), verdict.c_str());
    if (!r.at("headline").is_null()) appendf(out, "  %-*s then: %s\n", width, "", text(r.at("headline")));
    appendf(out, "  %-*s cost: %s (%s)\n", width, "", text(r.at("cost")), text(r.at("source")));
  }
  return out;
}

std::string limits_table(const json& a) {
  std::string out;
  appendf(out, "On %s (budget %s): largest context %llu tokens, largest batch %llu\n", text(a.at("gpu")),
          gb_and_gib(bytes(a.at("budget_bytes"))).c_str(), whole(a.at("max_context")), whole(a.at("max_batch")));
  for (const json& note : a.value("notes", json::array())) appendf(out, "  %s\n", text(note));
  return out;
}

std::string models_list(const json& catalog) {
  std::string out;
  for (const json& m : catalog.at("models")) {
    std::string tags;  // --model takes these as well
    for (const json& tag : m.value("ollama", json::array())) tags += (tags.empty() ? "  ollama: " : ", ") + tag.get<std::string>();
    appendf(out, "%-30s %s%s\n", text(m.at("id")), text(m.at("name")), tags.c_str());
  }
  return out;
}

std::string gpus_list(const json& catalog) {
  std::string out;
  for (const json& g : catalog.at("gpus"))
    appendf(out, "%-24s %-36s %6.0f GiB\n", text(g.at("id")), text(g.at("name")), gib(g.at("memory_bytes")));
  return out;
}

std::string question_table(Question question, const json& answer, const json& catalog) {
  switch (question) {
    case Question::gpu_ranking: return gpu_ranking_table(answer);
    case Question::biggest_model: return biggest_model_table(answer);
    case Question::remedies: return remedies_table(answer, catalog);
    case Question::limits: return limits_table(answer);
    case Question::estimate:
    case Question::curve: break;
  }
  return answer.contains("mode") ? training_table(answer, catalog) : estimate_table(answer);
}

std::string message_text(const json& message) { return text(message); }

std::string verdict_text(const json& verdict) {
  return std::string(text(verdict.value("lead", json()))) + text(verdict.at("message")) + text(verdict.value("wired", json()));
}

}  // namespace vramfit::cli
