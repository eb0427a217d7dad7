#include "memory/engines/ollama.hpp"

#include <algorithm>  // std::max

namespace vramfit {

OllamaGraphFormula ollama_graph_formula(std::string_view t, bool moe) noexcept {
  // GGUF's architecture for these HF model types is "llama" (llama.cpp convert_hf_to_gguf.py); Mixtral's experts
  // take GraphSize's Mixtral branch of the llama case.
  if (t == "llama" || t == "mistral" || t == "llama4") return moe ? OllamaGraphFormula::unmodelled : OllamaGraphFormula::llama;
  if (t == "qwen2") return OllamaGraphFormula::qwen2;
  if (t == "gemma" || t == "gemma2" || t == "gemma3" || t == "gemma3_text") return OllamaGraphFormula::gemma;
  if (t == "gemma3n" || t == "gemma3n_text") return OllamaGraphFormula::gemma3n;
  if (t == "gpt_oss") return OllamaGraphFormula::gpt_oss;
  // GraphSize's other cases: mllama, command-r, phi2, stablelm, deepseek2, chatglm.
  constexpr std::string_view own[] = {"mllama", "cohere",      "phi",     "stablelm", "deepseek_v2",
                                      "deepseek_v3", "chatglm", "glm",     "mixtral"};
  for (std::string_view name : own)
    if (t == name) return OllamaGraphFormula::unmodelled;
  return OllamaGraphFormula::generic;
}

std::string_view ollama_graph_formula_name(OllamaGraphFormula formula) noexcept {
  switch (formula) {
    case OllamaGraphFormula::llama: return "llama";
    case OllamaGraphFormula::qwen2: return "qwen2";
    case OllamaGraphFormula::gemma: return "gemma";
    case OllamaGraphFormula::gemma3n: return "gemma3n";
    case OllamaGraphFormula::gpt_oss: return "gpt-oss";
    case OllamaGraphFormula::generic: return "generic";
    case OllamaGraphFormula::unmodelled: return "generic (its own formula not modelled)";
  }
  return "generic";
}

OllamaKvRule ollama_kv_rule(std::string_view t) noexcept {
  // GGUF's architecture is "gemma3" for both HF types (llama.cpp convert_hf_to_gguf.py Gemma3Model); Gemma 3n's is
  // "gemma3n", which GraphSize leaves at the full context.
  if (t == "gemma3" || t == "gemma3_text") return OllamaKvRule::gemma3;
  if (t == "gpt_oss") return OllamaKvRule::gpt_oss;
  return OllamaKvRule::full;
}

std::vector<std::uint64_t> ollama_kv_tokens(const OllamaKvTokens& in) {
  constexpr std::uint64_t kGemma3GlobalEvery = 6;  // GraphSize's gemma3GlobalCacheCount
  constexpr std::uint64_t kGptOssWindow = 4096;    // GraphSize's gptoss case
  std::vector<std::uint64_t> tokens(in.blocks, in.context);
  for (std::uint64_t i = 0; i < in.blocks; ++i) {
    if (in.rule == OllamaKvRule::gemma3 && (i + 1) % kGemma3GlobalEvery != 0)
      tokens[i] = in.parallel * in.window + in.batch;
    if (in.rule == OllamaKvRule::gpt_oss && i % 2 == 0) tokens[i] = in.parallel * kGptOssWindow + in.batch;
  }
  return tokens;
}

OllamaGraph ollama_graph(const OllamaGraphInputs& in) noexcept {
  const std::uint64_t b = in.batch, c = in.context, e = in.embedding, h = in.heads, hkv = in.heads_kv,
                      eh = in.head_dim, v = in.vocab;
  OllamaGraph g;
  if (in.formula == OllamaGraphFormula::llama) {
    g.full = std::max(4 * b * (1 + 4 * e + c * (1 + h)), 4 * b * (e + v));
    g.partial = 4 * b * e + std::max(4 * b * (1 + e + std::max(c, e)) + e * e * 9 / 16 + 4 * c * (b * h + eh * hkv),
                                     4 * b * (e + v) + e * v * 105 / 128);
  } else if (in.formula == OllamaGraphFormula::qwen2) {
    g.full = std::max(4 * b * (e + v), 4 * b * (1 + 2 * e + c + c * h));
    g.partial = std::max(4 * b * (e + v) + e * v * 105 / 128, 4 * (b * (1 + 2 * e + c * (1 + h)) + e * (1 + c)));
  } else if (in.formula == OllamaGraphFormula::gemma || in.formula == OllamaGraphFormula::gemma3n) {
    g.full = std::max(4 * b * (e + v), 4 * b * (2 + c + c * h + 2 * e + 2 * eh * h));
    g.partial = std::max(4 * e * b + e * v * 105 / 128 + 4 * v * b,
                         4 * b * (2 * e + 1 + 2 * eh * h + c + c * h) + 4 * eh * c * 8 + e * eh * h * 9 / 16);
    if (in.formula == OllamaGraphFormula::gemma3n) {
      g.full *= 4;
      g.partial *= 4;
    }
  } else if (in.formula == OllamaGraphFormula::gpt_oss) {
    // Its KV total here is every block at the full context (summed before the sliding blocks are cut); with flash
    // attention a fixed guess in MiB. No full-offload figure: estimateGPULayers then uses the partial one.
    g.partial = in.flash_attention ? (4 * in.parallel + (c >> 10) + 110) * 1048576
                                   : 2 * h / std::max<std::uint64_t>(in.heads_kv_min, 1) * in.kv_full_total / 6;
    g.full = g.partial;
  } else {
    // estimateGPULayers' rule where GraphSize has none: GQA × KV / 6, the same for both.
    g.partial = h / std::max<std::uint64_t>(hkv, 1) * in.kv_total / 6;
    g.full = g.partial;
  }
  if (in.metal) g.partial = g.full;
  return g;
}

OllamaPlacement place_ollama_layers(const OllamaLayerInputs& in) noexcept {
  OllamaPlacement p;
  const std::uint64_t n = in.layer_bytes.size();
  p.layers_model = n + 1;
  const std::uint64_t graph_max = std::max(in.graph.full, in.graph.partial);
  const std::uint64_t first = n ? in.layer_bytes[0] + in.kv_bytes[0] : 0;
  // A GPU is used only if it holds the overhead, the graph, its minimum and two layers; it then holds one spare
  // layer besides those it gets.
  p.gpu_usable = n && in.free_bytes >= in.overhead_bytes + graph_max + in.minimum_bytes + 2 * first;
  std::uint64_t used = p.gpu_usable ? in.minimum_bytes + first : 0;
  bool space = p.gpu_usable;
  std::uint64_t count = 0;
  for (std::uint64_t i = n; i-- > 0;) {
    const std::uint64_t layer = in.layer_bytes[i] + in.kv_bytes[i];
    if (in.num_gpu && count >= *in.num_gpu) {
      p.overflow_bytes += layer;
      continue;
    }
    if (space && in.free_bytes > in.overhead_bytes + used + graph_max + layer) {
      used += layer;
      ++count;
      continue;
    }
    space = false;
    p.overflow_bytes += layer;
  }
  p.fully_loaded = n && count >= n;
  if (in.output_bytes) {
    if ((!in.num_gpu || count < *in.num_gpu) && space &&
        in.free_bytes > in.overhead_bytes + used + graph_max + in.output_bytes) {
      used += in.output_bytes;
      ++count;
    }
    if (count < n + 1) {
      p.fully_loaded = false;
      p.overflow_bytes += in.output_bytes;
    }
  }
  p.graph_bytes = p.fully_loaded ? in.graph.full : in.graph.partial;
  if (count) used += p.graph_bytes;
  p.layers_offload = count;
  p.vram_bytes = count ? used : 0;
  p.total_bytes = used + p.overflow_bytes;
  return p;
}

}  // namespace vramfit
