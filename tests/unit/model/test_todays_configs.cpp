// The config.json files of today's models (tests/data/configs): every one imports or names what is not modelled;
// their layer lists and counts against published figures.
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream
#include <string>      // std::string

#include "../test_support.hpp"
#include "memory/kv_cache.hpp"
#include "model/hf_config.hpp"
#include "model/hf_config_json.hpp"

using namespace vramfit;

namespace {

const std::filesystem::path kConfigs = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "configs";

std::string read_config(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ModelSpec imported(const char* name) {
  auto spec = model_from_hf_config(read_config(kConfigs / (std::string(name) + "_config.json")));
  REQUIRE_MESSAGE(spec.ok(), name << ": " << (spec.ok() ? "" : spec.error().field + ": " + spec.error().message));
  return spec.value();
}

ParamCounts counted(const char* name) {
  auto counts = count_params(imported(name));
  REQUIRE(counts.ok());
  return counts.value();
}

// Layers of `spec` whose mixer is `kind` (and, for attention, whose window is set or not).
std::uint64_t layers_of(const ModelSpec& spec, MixerKind kind) {
  std::uint64_t n = 0;
  for (const auto& run : spec.layers) n += run.mixer == kind ? run.count : 0;
  return n;
}
std::uint64_t moe_layers(const ModelSpec& spec) {
  std::uint64_t n = 0;
  for (const auto& run : spec.layers) n += run.mlp.kind == MlpKind::moe ? run.count : 0;
  return n;
}

}  // namespace

TEST_CASE("every config of today's models imports, or its error names the one field that is not modelled") {
  // Refused on purpose, each by the field that carries what is not modelled yet.
  const std::vector<std::pair<std::string, std::string>> refused{
      {"DeepSeek-V4", "compress_ratios"},  // compressed attention, grouped output projection, hyper-connections
      {"Kimi-K3", "linear_attn_config"},   // KDA linear attention
  };
  int files = 0, imported_ok = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kConfigs)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    auto spec = model_from_hf_config(read_config(entry.path()));
    std::string expected_field;
    for (const auto& [model, field] : refused)
      if (name.find(model) != std::string::npos) expected_field = field;
    if (expected_field.empty()) {
      REQUIRE_MESSAGE(spec.ok(), spec.error().field << ": " << spec.error().message);
      CHECK(count_params(spec.value()).ok());
      ++imported_ok;
    } else {
      REQUIRE_FALSE(spec.ok());
      CHECK(spec.error().field.ends_with(expected_field));
      CHECK(spec.error().message.find("not modelled") != std::string::npos);
    }
  }
  CHECK(files == 87);
  CHECK(imported_ok == 80);
}

TEST_CASE("Qwen3.5 and 3.6 count to the parameter the published figure, vision tower included") {
  // keras-hub qwen3_5_presets.py (commit 71453d08): "qwen3_6_27b" and "qwen3_5_27b" "params": 27356728560,
  // qwen3_5_moe_presets.py "qwen3_5_moe_35b_a3b" / "qwen3_6_moe_35b_a3b" "params": 35107181936 — the language
  // model with its Gated DeltaNet layers, gated attention, untied lm_head and the vision tower, without the MTP layer.
  CHECK(counted("nvidia--Qwen3.6-27B-NVFP4").total == 27'356'728'560ULL);
  CHECK(counted("Qwen--Qwen3.5-27B").total == 27'356'728'560ULL);
  CHECK(counted("Qwen--Qwen3.5-35B-A3B").total == 35'107'181'936ULL);
  CHECK(counted("nvidia--Qwen3.6-35B-A3B-NVFP4").total == 35'107'181'936ULL);
}

TEST_CASE("gpt-oss counts its expert and router biases and its attention sinks") {
  // keras-hub gpt_oss_presets.py (commit 71453d08), the de-quantized model: 20,914,757,184 and 116,829,156,672.
  CHECK(counted("openai--gpt-oss-20b").total == 20'914'757'184ULL);
  CHECK(counted("openai--gpt-oss-120b").total == 116'829'156'672ULL);
  // Sliding and full attention alternate (layer_types): 12 windowed layers of 24 in the 20b.
  const auto spec = imported("openai--gpt-oss-20b");
  std::uint64_t windowed = 0;
  for (const auto& run : spec.layers) windowed += run.attention.window == 128 ? run.count : 0;
  CHECK(windowed == 12);
}

TEST_CASE("Llama 4 Maverick has experts on every second layer and counts about 400B, not 777B") {
  // Meta's announcement (ai.meta.com/blog/llama-4-multimodal-intelligence): "17B active parameters (400B total)".
  const auto spec = imported("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
  CHECK(moe_layers(spec) == 24);  // interleave_moe_layer_step 2: layers 1, 3, …, 47
  const double total = static_cast<double>(count_params(spec).value().total);
  CHECK(total == doctest::Approx(400e9).epsilon(0.005));
  // Chunked local attention in the RoPE layers, full attention in every fourth (NoPE) layer.
  std::uint64_t chunked = 0;
  for (const auto& run : spec.layers) chunked += run.attention.chunk == 8192 ? run.count : 0;
  CHECK(chunked == 36);
}

TEST_CASE("Llama 4 keeps its output head apart from the embedding when the config does not say") {
  // transformers' Llama4TextConfig and Llama4Config default tie_word_embeddings to False; the checkpoints store
  // language_model.lm_head.weight beside embed_tokens. Scout by hand: per layer attention 2·5120² + 2·5120·1024
  // = 62,914,560, 16 routed experts and the shared one 17·3·5120·8192 = 2,139,095,040, router 5120·16 = 81,920,
  // norms 10,240: 2,202,101,760 × 48 = 105,700,884,480; embedding and head 2·202,048·5120 = 2,068,971,520; final
  // norm 5,120. Total 107,769,861,120.
  CHECK(counted("meta-llama--Llama-4-Scout-17B-16E-Instruct").total == 107'769'861'120ULL);
}

TEST_CASE("Qwen3-Next keeps three linear-attention layers for each full-attention one, with a fixed state") {
  const auto spec = imported("Qwen--Qwen3-Next-80B-A3B-Thinking");
  CHECK(layers_of(spec, MixerKind::linear_attention) == 36);  // full_attention_interval 4
  CHECK(layers_of(spec, MixerKind::attention) == 12);
  // llama.cpp keeps f32 state (llama-hparams.cpp n_embd_r, n_embd_s): per layer and sequence
  // conv (4 − 1) × (2·16·128 + 32·128) = 24,576 and recurrent 32·128·128 = 524,288 elements, × 4 B = 2,195,456 B.
  KvLayout f32;
  f32.conv_state_element_bytes = f32.recurrent_state_element_bytes = 4;
  auto kv = estimate_kv_cache(spec, KvDType::bf16, 32'768, 1, f32);
  REQUIRE(kv.ok());
  CHECK(kv.value().state_bytes_per_sequence == 36 * 2'195'456ULL);
  // The 12 full-attention layers: 2 KV heads × 256 × 2 (K and V) × 2 B = 2,048 B per token each.
  CHECK(kv.value().bytes_per_token == 12 * 2'048ULL);
}

TEST_CASE("Nemotron-H and Nemotron 3 read their block patterns, Python's Infinity included") {
  // Nemotron-H-56B: 118 blocks of "M", "-" and "*"; its time_step_limit holds Infinity.
  const auto h = imported("nvidia--Nemotron-H-56B-Base-8K");
  CHECK(h.num_layers() == 118);
  CHECK(layers_of(h, MixerKind::attention) == 10);
  CHECK(layers_of(h, MixerKind::mamba2) == 54);
  // NVIDIA's card (huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16): 31.6B parameters.
  CHECK(static_cast<double>(counted("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").total) ==
        doctest::Approx(31.6e9).epsilon(0.002));
  // Nemotron 3 Ultra gives its blocks as layers_block_type written out as Python text, and no num_hidden_layers.
  CHECK(imported("nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16").num_layers() == 108);
}

TEST_CASE("per-layer MoE lists and Nemotron-NAS block configs are read layer by layer") {
  // MiniMax-M3: moe_layer_freq [0, 0, 0, 1, …]: three dense layers of dense_intermediate_size, then experts.
  const auto m3 = imported("MiniMaxAI--MiniMax-M3");
  CHECK(moe_layers(m3) == 57);
  CHECK(m3.layer(0).mlp.intermediate == 12'288);
  // Llama-3.3-Nemotron-Super-49B: ffn_mult 2.625 → int(2 · 2.625 · 8192 / 3) = 14,336 (already a multiple of 256).
  const auto nas = imported("nvidia--Llama-3_3-Nemotron-Super-49B-v1");
  CHECK(nas.layer(0).mlp.intermediate == 14'336);
  CHECK(nas.layer(0).attention.kv_heads == 8);  // 64 heads / n_heads_in_group 8
  CHECK(layers_of(nas, MixerKind::none) > 0);   // no_op attention blocks
}

TEST_CASE("Python's Infinity, -Infinity and NaN read as null outside strings and stay inside them") {
  CHECK(detail::python_json_as_json(R"({"a": [0.0, Infinity], "b": -Infinity, "c": NaN, "d": "NaN Infinity"})") ==
        R"({"a": [0.0, null], "b": null, "c": null, "d": "NaN Infinity"})");
}
