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
      {"Kimi-K3", "linear_attn_config"},   // KDA linear attention
  };
  int files = 0, imported_ok = 0, with_quant_config = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kConfigs)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with("_config.json") || name.ends_with("_hf_quant_config.json")) continue;
    ++files;
    CAPTURE(name);
    // A ModelOpt checkpoint's hf_quant_config.json beside its config.json is read with it.
    auto quant_path = entry.path();
    quant_path.replace_filename(name.substr(0, name.size() - 12) + "_hf_quant_config.json");
    const bool has_quant = std::filesystem::exists(quant_path);
    with_quant_config += has_quant;
    auto spec = model_from_hf_config(read_config(entry.path()), has_quant ? read_config(quant_path) : std::string());
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
  CHECK(imported_ok == 86);
  CHECK(with_quant_config == 26);
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

TEST_CASE("DeepSeek-V4 counts its compressed attention, grouped output, indexer, hyper-connections and hash layers") {
  // Hand sum of the tensor shapes in DeepSeek-V4's inference/model.py (Attention, Compressor, Indexer, Gate, MoE,
  // Block, ParallelHead), MTP layer left out. V4-Flash (h 4096, 64 heads × 512, q_lora 1024, o_groups 8 × o_lora 1024,
  // 256 experts × 2048 + 1 shared, hc_mult 4, vocab 129,280; compress_ratios 2 × 0, 21 × 4, 20 × 128):
  //   attention per layer: sinks 64 + wq_a 4096·1024 + q_norm 1024 + wq_b 1024·32768 + wkv 4096·512 + kv_norm 512
  //     + wo_a 32768·1024 + wo_b 8192·4096 = 106,956,352
  //   compressor r = 4 (overlap, width 1024): ape 4·1024 + wkv, wgate 2 · 4096·1024 + norm 512 = 8,393,216;
  //     indexer: wq_b 1024·8192 + weights_proj 4096·64 + its compressor (width 256) 4·256 + 2·4096·256 + 128
  //     = 10,749,056; compressor r = 128: 128·512 + 2·4096·512 + 512 = 4,260,352
  //   hyper-connections per layer: 2 × (fn 24·16384 + base 24 + scale 3) = 786,486; norms 2·4096
  //   MoE per layer: gate 256·4096 + 256 · 3·4096·2048 + shared 3·4096·2048 = 6,468,665,344, plus the score bias
  //     (256) in 40 layers or the hash table tid2eid (129,280 × 6) in the first 3
  //   outside: embed + head 2·129,280·4096 + norm 4096 + hc_head 4·16384 + 4 + 1 = 1,059,131,397
  //   43 · (106,956,352 + 786,486 + 8,192 + 6,468,665,344) + 21 · (8,393,216 + 10,749,056) + 20 · 4,260,352
  //     + 40 · 256 + 3 · 775,680 + 1,059,131,397 = 284,334,567,511.
  // The DeepSeek-V4 technical report (arXiv 2606.19348, abstract): "DeepSeek-V4-Flash with 284B parameters (13B
  // activated)" and "DeepSeek-V4-Pro with 1.6T parameters (49B activated)".
  const auto flash = counted("deepseek-ai--DeepSeek-V4-Flash");
  CHECK(flash.total == 284'334'567'511ULL);
  CHECK(static_cast<double>(flash.total) == doctest::Approx(284e9).epsilon(0.005));
  // Active: the 250 idle experts of 43 layers leave 13,801,959,511; without the input embedding (a token reads one
  // row of it; the published figures leave it out) 13.27B, which the report rounds to 13B.
  CHECK(flash.active == 13'801'959'511ULL);
  CHECK(std::abs(static_cast<double>(flash.active - 129'280ULL * 4096) - 13e9) < 0.5e9);
  // V4-Pro by the same sum (h 7168, 128 heads, q_lora 1536, o_groups 16, 384 experts × 3072, 61 layers:
  // 30 × r = 4, 31 × r = 128): 1,572,999,528,803, 1.7 % below the report's "1.6T", which has two significant
  // digits (1.55T to 1.65T); active 49,781,408,099, 48.85B without the embedding ("49B").
  const auto pro = counted("deepseek-ai--DeepSeek-V4-Pro");
  CHECK(pro.total == 1'572'999'528'803ULL);
  CHECK(std::abs(static_cast<double>(pro.total) - 1.6e12) < 0.05e12);
  CHECK(pro.active == 49'781'408'099ULL);
  CHECK(std::abs(static_cast<double>(pro.active - 129'280ULL * 7168) - 49e9) < 0.5e9);
  // The quantized copies describe the same model.
  CHECK(counted("nvidia--DeepSeek-V4-Flash-NVFP4").total == flash.total);
  CHECK(counted("sgl-project--DeepSeek-V4-Pro-FP8").total == pro.total);
}

TEST_CASE("DeepSeek-V4's compressed KV takes vLLM's fp8_ds_mla bytes per token, the window per sequence") {
  // vLLM (deepseek_v4_attention.py, MLAAttentionSpec): a 584-B entry (448 fp8 NoPE + 64 bf16 RoPE + 7 scales + 1 pad),
  // the indexer key 128 fp8 + 4 B scale = 132 B; a 256-token block holds 256 / r entries per layer, each page
  // rounded up to 576 B. r = 4: 64 · 584 = 37,376 → 37,440 and 64 · 132 = 8,448 → 8,640: 46,080 B per block, 180 B
  // per token; r = 128: 2 · 584 = 1,168 → 1,728 B per block, 6.75 B per token; r = 0: the window only.
  // V4-Flash: 21 · 46,080 + 20 · 1,728 = 1,002,240 B per block = 3,915 B per token.
  // V4-Pro: 30 · 46,080 + 31 · 1,728 = 1,435,968 B per block = 5,609.25 B per token — vLLM PR #48993's old block
  // stride of 1,473,408 B is this plus one 37,440-B page of the sliding-window group it removed.
  KvLayout vllm;
  vllm.compressed_block_tokens = 256;
  vllm.compressed_page_align = 576;
  const auto at = [&](const char* name, std::uint64_t tokens) {
    auto kv = estimate_kv_cache(imported(name), KvDType::fp8, tokens, 1, vllm);
    REQUIRE(kv.ok());
    return kv.value();
  };
  CHECK(at("deepseek-ai--DeepSeek-V4-Flash", 32'768).bytes_per_token == 3'915);
  CHECK(at("deepseek-ai--DeepSeek-V4-Pro", 32'768).bytes_per_token == 5'609);
  // One more block of context adds one block stride; the window (128 entries of 584 B in each of the 43 layers) is
  // full from 128 tokens on.
  CHECK(at("deepseek-ai--DeepSeek-V4-Flash", 512).bytes - at("deepseek-ai--DeepSeek-V4-Flash", 256).bytes == 1'002'240);
  CHECK(at("deepseek-ai--DeepSeek-V4-Pro", 512).bytes - at("deepseek-ai--DeepSeek-V4-Pro", 256).bytes == 1'435'968);
  CHECK(at("deepseek-ai--DeepSeek-V4-Flash", 256).bytes == 43 * 128 * 584ULL + 1'002'240);
  // The compressors' fp32 state (Compressor.kv_state and score_state, 2 × overlap·r × overlap·dim × 4 B): r = 4
  // 2·8·1024·4 = 65,536 plus the indexer's 2·8·256·4 = 16,384; r = 128 2·128·512·4 = 524,288.
  // V4-Flash: 21 · 81,920 + 20 · 524,288 = 12,206,080 B per sequence.
  const auto flash = at("deepseek-ai--DeepSeek-V4-Flash", 1'000);
  CHECK(flash.state_bytes_per_sequence == 12'206'080ULL);
  CHECK(flash.state_layers == 41);
}
