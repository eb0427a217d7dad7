#pragma once
// Writing helpers shared by the report writers (json/write_*.cpp).
// Keys go in byte order within each object (see json_writer.hpp).
#include <algorithm>    // std::max, std::find_if
#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "util/json_writer.hpp"
#include "util/explanation.hpp"
#include "model/model_spec.hpp"      // ModelSpec, ParamCounts
#include "hardware/fit.hpp"  // Fit, Gpu
#include "hardware/speed.hpp"           // Range
#include "questions/verdict.hpp"         // Verdict

namespace vramfit::detail {

inline void write_range(JsonWriter& w, const char* key, const Range& r) {
  w.begin_object(key);
  w.field("high", r.high);
  w.field("low", r.low);
  w.end_object();
}

// null when absent: the page tests for null, never for a missing key.
inline void write_range(JsonWriter& w, const char* key, const std::optional<Range>& r) {
  if (r) write_range(w, key, *r);
  else w.field(key, nullptr);
}
inline void write_text_or_null(JsonWriter& w, const char* key, const std::string& s) {
  if (s.empty()) w.field(key, nullptr);
  else w.field(key, s);
}

// A text for people as {id, args, text}, or null where there is none.
inline void write_message_or_null(JsonWriter& w, const char* key, const Message& m) {
  if (m.empty()) w.field(key, nullptr);
  else w.message_id(key, m);
}

// The "model" object every report carries (inference and training alike).
// The shape of the model's first attention layer (zeros without one): heads, KV heads, head_dim.
struct AttentionSummary {
  std::uint64_t heads = 0, kv_heads = 0, head_dim = 0, window = 0;
};
inline AttentionSummary attention_summary(const ModelSpec& m) {
  AttentionSummary out;
  for (const auto& run : m.layers) {
    out.window = std::max(out.window, run.mixer == MixerKind::attention ? run.attention.window : 0);
    if (out.heads || !run.keeps_tokens()) continue;
    if (run.mixer == MixerKind::attention) {
      out = {run.attention.heads, run.attention.kv_heads, run.attention.head_dim, out.window};
    } else {
      const auto& l = run.latent;
      out = {l.heads, l.heads, l.qk_nope_head_dim + l.qk_rope_head_dim, out.window};
    }
  }
  return out;
}

inline const char* mlp_kind_name(MlpKind kind) {
  switch (kind) {
    case MlpKind::dense: return "dense";
    case MlpKind::moe: return "experts";
    case MlpKind::none: return "none";
  }
  return "";
}

// The layers counted by their token mixer (as users read it: mixer_label) and, apart, by their MLP (dense, experts,
// none), each kind in the order it first appears: "layer_mixers": [{count, mixer}], "layer_mlps": [{count, mlp}].
inline void write_layer_counts(JsonWriter& w, const ModelSpec& m) {
  using Counts = std::vector<std::pair<std::string_view, std::uint64_t>>;
  const auto tally = [](Counts& counts, std::string_view kind, std::uint64_t n) {
    auto same = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == kind; });
    if (same == counts.end()) counts.emplace_back(kind, n);
    else same->second += n;
  };
  Counts mixers, mlps;
  for (const auto& run : m.layers) {
    tally(mixers, mixer_label(run), run.count);
    tally(mlps, mlp_kind_name(run.mlp.kind), run.count);
  }
  const auto write = [&w](const char* key, const char* name, const Counts& counts) {
    w.begin_array(key);
    for (const auto& [kind, n] : counts) {
      w.begin_object();
      w.field("count", n);
      w.field(name, kind);
      w.end_object();
    }
    w.end_array();
  };
  write("layer_mixers", "mixer", mixers);
  write("layer_mlps", "mlp", mlps);
}

inline void write_model(JsonWriter& w, const ModelSpec& m, const ParamCounts& params, std::uint64_t published_params) {
  const AttentionSummary a = attention_summary(m);
  w.begin_object("model");
  w.field("architecture", m.architecture);
  w.field("attention_heads", a.heads);
  w.field("default_context", m.default_context);
  w.field("head_dim", a.head_dim);
  w.field("hidden_size", m.hidden_size);
  w.field("id", m.id);
  w.field("kv_heads", a.kv_heads);
  write_layer_counts(w, m);
  w.field("layers", m.num_layers());
  w.field("max_context", m.max_context);
  w.field("name", m.name);
  w.field("params_active", params.active);
  w.field("params_active_excl_embedding", params.active_excl_embedding());
  w.field("params_total", params.total);
  w.field("published_params", published_params);
  w.field("quantization", m.quantization);
  w.field("sliding_window", a.window);
  w.end_object();
}

// One explanation as an object: a member `name` of the enclosing object, or (nullptr) an array element.
inline void write_explanation(JsonWriter& w, const char* name, const Explanation& x) {
  w.begin_object(name);
  w.message_id("formula", x.formula);
  w.field("key", x.key);
  w.message_id("source", x.source);
  w.message_id("values", x.values);
  w.end_object();
}

inline void write_explanations(JsonWriter& w, const std::vector<Explanation>& explanations) {
  w.begin_array("explanations");
  for (const auto& x : explanations) write_explanation(w, nullptr, x);
  w.end_array();
}

// A GPU as the catalog lists it.
inline void write_gpu_fields(JsonWriter& w, const Gpu& gpu) {
  // A card described by the request's figures: "custom", or the id of the catalog card it is like.
  if (!gpu.custom.empty()) w.field("custom", gpu.custom);
  w.field("id", gpu.id);
  w.field("memory_bytes", gpu.memory_bytes);
  w.field("name", gpu.name);
  w.field("segment", gpu.segment);
  w.field("usable_bytes", gpu.usable_bytes());
  w.field("vendor", gpu.vendor);
  // Unified memory: usable_bytes is the operating system's default share (macOS's wired limit, Linux's GTT limit,
  // the total CUDA reports), or the one the request set; a Mac's says so as "wired_limit".
  if (gpu.unified_memory && gpu.shared == SharedMemory::macos)
    w.field("wired_limit", gpu.wired_limit_bytes ? "set" : "macos_default");
  if (gpu.unified_memory && gpu.shared != SharedMemory::macos) {
    w.field("shared_memory", gpu.shared == SharedMemory::amd_apu ? "amd_apu" : "nvidia_unified");
    w.field("shared_limit", gpu.wired_limit_bytes ? "set" : "default");
  }
}

// One GPU's verdict, as every report lists them; the inference report adds how many GPUs a split needs.
inline void write_gpu_fit(JsonWriter& w, const Gpu& gpu, Fit fit, std::int64_t free_bytes,
                          std::optional<std::uint64_t> gpus_needed = std::nullopt, bool one_per_machine = false) {
  w.begin_object();
  w.field("fit", fit_name(fit));
  w.field("free_bytes", free_bytes);
  if (gpus_needed) w.field("gpus_needed", *gpus_needed);
  if (one_per_machine) w.field("one_per_machine", true);
  write_gpu_fields(w, gpu);
  w.end_object();
}

// The headline: {"fit" (its colour), "gpu" (the id of the row it speaks of, or null), "kind", "label" (that row's
// words where its fit says less, or null), "lead" (what starts the sentence where it is not certain, or null),
// "message" (the sentence), "wired" (the clause after it on a machine whose GPU shares its RAM, or null)}: each text
// an {id, args, text}, the whole English sentence lead.text + message.text + wired.text.
inline void write_verdict(JsonWriter& w, const Verdict& v) {
  w.begin_object("verdict");
  // How sure it is, where an input it depends on is not known, and why; the lead ("Unknown: ") starts the message.
  w.field("certainty", certainty_name(v.certainty));
  w.message_ids("certainty_reasons", v.reasons);
  w.field("fit", verdict_fit_name(v.kind));
  if (v.gpu) w.field("gpu", v.gpu->id);
  else w.field("gpu", nullptr);
  w.field("kind", verdict_kind_name(v.kind));
  if (v.kind == VerdictKind::runs_split && (v.gpu_bytes || v.ram_bytes)) {
    w.begin_object("placement");
    w.field("gpu_bytes", v.gpu_bytes);
    w.field("gpus", v.gpus);
    w.field("ram_bytes", v.ram_bytes);
    w.end_object();
  } else {
    w.field("placement", nullptr);
  }
  write_message_or_null(w, "label", v.label);
  w.message_id("message", v.message);
  write_message_or_null(w, "lead", v.lead);
  write_message_or_null(w, "wired", v.wired);
  w.end_object();
}

}  // namespace vramfit::detail
