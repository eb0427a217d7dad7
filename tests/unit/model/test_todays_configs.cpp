// The config.json files of today's models (tests/data/configs): every one imports or names what is not modelled;
// their layer lists and counts against published figures.
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream
#include <string>      // std::string

#include "../test_support.hpp"
#include "memory/activations.hpp"
#include "memory/inference.hpp"
#include "memory/kv_cache.hpp"
#include "memory/engines/vllm_weights.hpp"
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
  REQUIRE_MESSAGE(spec.ok(), name << ": " << (spec.ok() ? "" : spec.error().field + ": " + spec.error().message.text));
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
  // Refused on purpose, each by the field that carries what is not modelled yet (none today).
  const std::vector<std::pair<std::string, std::string>> refused{};
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
      REQUIRE_MESSAGE(spec.ok(), spec.error().field << ": " << spec.error().message.text);
      CHECK(count_params(spec.value()).ok());
      ++imported_ok;
    } else {
      REQUIRE_FALSE(spec.ok());
      CHECK(spec.error().field.ends_with(expected_field));
      CHECK(spec.error().message.text.find("not modelled") != std::string::npos);
    }
  }
  CHECK(files == 87);
  CHECK(imported_ok == 87);
  CHECK(with_quant_config == 26);
}

TEST_CASE("gpt-oss alternates sliding and full attention") {
  // Its parameter counts (keras-hub's gpt_oss_presets.py) are rows of tests/data/validation.json, with Qwen3.5's
  // and 3.6's, DeepSeek-V3's active count and Llama 4 Maverick's total.
  // layer_types: 12 windowed layers of 24 in the 20b.
  const auto spec = imported("openai--gpt-oss-20b");
  std::uint64_t windowed = 0;
  for (const auto& run : spec.layers) windowed += run.attention.window == 128 ? run.count : 0;
  CHECK(windowed == 12);
}

TEST_CASE("Active parameters as the model cards count them leave out the input embedding and keep the output head") {
  // The cards' figures (gpt-oss 3.6B and 5.1B active, DeepSeek-V3 36.6B) are rows of tests/data/validation.json.
  // The input embedding the cards leave out is 201,088 × 2,880 = 579,133,440 (by hand).
  const ParamCounts small = counted("openai--gpt-oss-20b");
  const ParamCounts large = counted("openai--gpt-oss-120b");
  CHECK(small.embedding == 579'133'440ULL);
  CHECK(small.active - small.active_excl_embedding() == 579'133'440ULL);
  // With it, as vramfit counted before: 5.7B, which no card prints.
  CHECK(static_cast<double>(large.active) > 5.6e9);
  // DeepSeek-V3 without its MTP module; the input embedding, 129,280 × 7,168 = 926,679,040, is left out.
  const ParamCounts deepseek = counted("deepseek-ai--DeepSeek-V3");
  CHECK(deepseek.active - deepseek.active_excl_embedding() == 926'679'040ULL);
}

TEST_CASE("Llama 4 Maverick has experts on every second layer") {
  // Its 400B total (Meta's announcement) is a row of tests/data/validation.json; with experts on every layer it
  // would count 777B.
  const auto spec = imported("meta-llama--Llama-4-Maverick-17B-128E-Instruct");
  CHECK(moe_layers(spec) == 24);  // interleave_moe_layer_step 2: layers 1, 3, …, 47
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

TEST_CASE("vLLM holds DeepSeek-V4's replicated tensors whole on every tensor-parallel rank") {
  // vLLM main 91a893de, models/deepseek_v4: not split are the fused wq_a + wkv (MergedColumnParallelLinear,
  // disable_tp, "fused ReplicatedLinear"), the indexer's wq_b and weights_proj (ReplicatedLinear), each compressor
  // (fused_wkv_wgate with disable_tp, ape, norm), the sinks, the hc_* mixers (plain Parameters), the gate
  // (GateLinear, a ReplicatedLinear) with its bias or tid2eid, and the norms. Their parameters in V4-Flash, from
  // the shapes summed in the test above: per layer wq_a 4096·1024 + q_norm 1024 + wkv 4096·512 + kv_norm 512 +
  // sinks 64 + hc 786,486 + norms 2·4096 + gate 256·4096 = 8,136,310, × 43 = 349,861,330; ratio-4 compressor and
  // indexer 21 · (8,393,216 + 10,749,056) = 401,987,712; ratio-128 compressor 20 · 4,260,352 = 85,207,040; bias
  // 40 · 256 and tid2eid 3 · 775,680; output norm 4096 and hc_head 65,541: 839,462,999 in all.
  const auto flash = imported("deepseek-ai--DeepSeek-V4-Flash");
  auto tensors = enumerate_tensors(flash);
  REQUIRE(tensors.ok());
  std::uint64_t replicated = 0;
  for (const auto& t : tensors.value()) replicated += vllm_dsv4_replicated(t) ? t.elements() : 0;
  CHECK(replicated == 839'462'999ULL);
  WeightFormat bf16;
  auto bytes = weights_bytes_of(flash, bf16, vllm_dsv4_replicated);
  REQUIRE(bytes.ok());
  CHECK(bytes.value() == 2 * 839'462'999ULL);
  // In bf16 with TP 8 a rank holds (2 · 284,334,567,511 − 1,678,925,998) / 8 + 1,678,925,998 = 70,873,776,128 +
  // 1,678,925,998 = 72,552,702,126 B, 1.47 GB above the total over 8 (71,083,641,878).
  InferenceOptions o;
  o.engine = Engine::vllm;
  o.weights = DType::bf16;
  o.kv_dtype = KvDType::fp8;
  o.tensor_parallel = 8;
  o.context_tokens = 32'768;
  auto e = estimate_inference(flash, o);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  CHECK(e.value().weights == 2 * 284'334'567'511ULL);
  CHECK(e.value().vllm->replicated_weights_bytes == 1'678'925'998ULL);
  CHECK(e.value().vllm->weights_bytes == 72'552'702'126ULL);
}

TEST_CASE("DeepSeek-V4-Flash under tensor parallel 2: a rank loads more than half the files, as vLLM printed") {
  // A public vLLM log, posted in a public repository beside its docker compose (image
  // aidendle94/sparkrun-vllm-ds4-gb10; vLLM 0.21.1rc1.dev339, two DGX Spark nodes, `vllm serve deepseek-ai/DeepSeek-V4-Flash
  // --tensor-parallel-size 2 --speculative-config '{"method":"mtp","num_speculative_tokens":2}'`, MXFP4 experts on
  // the B12X MoE backend): "Checkpoint size: 148.66 GiB", then on rank 0 "Model loading took 75.86 GiB memory"
  // (the MTP drafter included; its embeddings and lm_head shared with the target). Half the files is 74.33 GiB:
  // the rank holds 1.53 GiB more. With the tensors vLLM keeps whole on every rank (0.82 GiB in the checkpoint's
  // formats), (148.66 − 0.82) / 2 + 0.82 = 74.74 GiB: 1.5 % below the log; the rest (the B12X backend's layout of
  // the experts and their E8M0 scales, the MTP layer's own replicated tensors) is not modelled.
  constexpr double GiB = 1024.0 * 1024 * 1024;
  const auto flash = imported("deepseek-ai--DeepSeek-V4-Flash");
  InferenceOptions o;
  o.engine = Engine::vllm;
  o.kv_dtype = KvDType::fp8;
  o.weight_format = parse_weight_format(flash.quantization).value();  // the checkpoint's own: fp8 blocks, MXFP4 experts
  o.tensor_parallel = 2;
  o.context_tokens = 200'000;
  auto e = estimate_inference(flash, o);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const std::uint64_t replicated = e.value().vllm->replicated_weights_bytes;
  CHECK(static_cast<double>(replicated) / GiB == doctest::Approx(0.82).epsilon(0.01));
  const auto files = static_cast<std::uint64_t>(148.66 * GiB);
  const double rank = static_cast<double>(vllm_rank_weights(files, replicated, 2, 1)) / GiB;
  CHECK(rank > 148.66 / 2);
  CHECK(rank < 75.86);
  CHECK(rank == doctest::Approx(75.86).epsilon(0.02));
}

TEST_CASE("DeepSeek-V4-Flash on vLLM: its five cache groups from the config, the tokens vLLM prints from them") {
  // The groups of test_vllm.cpp's hand count, from the imported config: 43 layers, 2 window-only, 21 at ratio 4,
  // 20 at ratio 128. An H200 is ≥ 70 GiB: `vllm serve` batches 8,192 tokens, two batches in flight: a request of
  // 32,768 holds 128 + 2 · 259 + 4,099 + 2,065 = 6,810 blocks of 1,002,240 B. vLLM prints int(num_blocks / 6,810 ·
  // 32,768) tokens; the pool over its 3,915 B per token would give about 50 times that.
  InferenceOptions o;
  o.engine = Engine::vllm;
  o.weights = DType::bf16;
  o.kv_dtype = KvDType::fp8;
  o.tensor_parallel = 8;
  o.context_tokens = 32'768;
  o.gpu_memory_bytes = static_cast<std::uint64_t>(139.8 * 1073741824.0);
  o.gpu_util = 0.92;
  o.vllm_rule = VllmRule::graphs_inside;
  auto e = estimate_inference(imported("deepseek-ai--DeepSeek-V4-Flash"), o);
  REQUIRE(e.ok());
  REQUIRE(e.value().vllm.has_value());
  const VllmCapacity& v = *e.value().vllm;
  CHECK(v.kv_cache_groups == 5);
  CHECK(v.block_bytes == 1'002'240);
  CHECK(v.blocks_per_request == 6810);
  CHECK(v.num_blocks == v.kv_capacity_bytes / 1'002'240);
  CHECK(v.kv_capacity_tokens ==
        static_cast<std::uint64_t>(static_cast<double>(v.num_blocks) / 6810.0 * 32768.0));
  CHECK(v.kv_capacity_tokens * 40 < v.kv_capacity_bytes / 3'915);
}

namespace {

// moonshotai/Kimi-Linear-48B-A3B-Instruct's config.json, the fields that shape memory (as quoted with the model's
// safetensors index in pmains/kimi-linear-48b-ssd-streaming benchmarks/results/phase-02-static-inventory.json).
constexpr std::string_view kKimiLinear48B = R"({
  "architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear", "hidden_size": 2304,
  "intermediate_size": 9216, "num_hidden_layers": 27, "num_attention_heads": 32, "num_key_value_heads": 32,
  "vocab_size": 163840, "tie_word_embeddings": false, "kv_lora_rank": 512, "q_lora_rank": null,
  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "mla_use_nope": true, "num_experts": 256,
  "num_experts_per_token": 8, "num_shared_experts": 1, "moe_intermediate_size": 1024, "first_k_dense_replace": 1,
  "moe_layer_freq": 1, "moe_router_activation_func": "sigmoid", "model_max_length": 1048576,
  "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 27], "head_dim": 128, "num_heads": 32,
    "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
    "short_conv_kernel_size": 4}})";

}  // namespace

TEST_CASE("Kimi Linear counts its Kimi Delta Attention layers to the tensors its checkpoint holds") {
  auto spec = model_from_hf_config(kKimiLinear48B);
  REQUIRE(spec.ok());
  CHECK(layers_of(spec.value(), MixerKind::linear_attention) == 20);  // kda_layers count from 1
  CHECK(layers_of(spec.value(), MixerKind::latent_attention) == 7);
  CHECK(spec.value().layer(3).mixer == MixerKind::latent_attention);  // full_attn_layers 4 = layer index 3
  // Per KDA layer, the shapes of vLLM's KimiDeltaAttention (model_executor/layers/kda.py), h 2304, 32 heads × 128
  // (P = 4096), kernel 4: q, k, v 3·2304·4096 + convs 3·4·4096 + f_a 2304·128 + f_b 128·4096 + dt_bias 4096
  // + A_log 32 + b_proj 2304·32 + g_a 2304·128 + g_b 128·4096 + o_norm 128 + o_proj 4096·2304 = 39,514,272: the
  // inventory's "attention_kda": 790,285,440 for 20 layers. Its "total" from model.safetensors.index.json:
  // 49,122,681,728 (Hugging Face shows 49.1B; the card says 48B total, 3B activated).
  const auto counts = count_params(spec.value());
  REQUIRE(counts.ok());
  CHECK(counts.value().total == 49'122'681'728ULL);
  // Active: 8 of 256 experts in 26 layers; without the input embedding (163,840 × 2304) 3.107B, the card's "3B".
  CHECK(std::abs(static_cast<double>(counts.value().active - 163'840ULL * 2304) - 3e9) < 0.15e9);
}

TEST_CASE("Kimi Delta Attention keeps q, k and v conv state and an f32 recurrent state per sequence") {
  auto spec = model_from_hf_config(kKimiLinear48B);
  REQUIRE(spec.ok());
  // vLLM MambaStateShapeCalculator.kda_state_shape (mamba_utils.py, stored version 02d71083): conv
  // (kernel − 1, 3 · heads · dim) = 3 × 12,288 = 36,864 elements in the model dtype, recurrent (heads, dim, dim) =
  // 32·128·128 = 524,288 in float32 (kda_state_dtype returns torch.float32 for it always): per layer
  // 36,864·2 + 524,288·4 = 2,170,880 B; 20 layers 43,417,600 B per sequence. llama.cpp (n_embd_r = 3·(d_conv − 1)·
  // n_head·head_dim, n_embd_s = head_dim²·n_head, f32): (36,864 + 524,288)·4 = 2,244,608 B per layer.
  KvLayout vllm;
  vllm.conv_state_element_bytes = 2;
  vllm.recurrent_state_element_bytes = 4;
  auto kv = estimate_kv_cache(spec.value(), KvDType::bf16, 8'192, 1, vllm);
  REQUIRE(kv.ok());
  CHECK(kv.value().state_bytes_per_sequence == 20 * 2'170'880ULL);
  CHECK(kv.value().state_layers == 20);
  // The 7 MLA layers cache the latent: (512 + 64) × 2 B = 1,152 B per token each.
  CHECK(kv.value().bytes_per_token == 7 * 1'152ULL);
  KvLayout llama;
  llama.conv_state_element_bytes = llama.recurrent_state_element_bytes = 4;
  auto f32 = estimate_kv_cache(spec.value(), KvDType::fp16, 8'192, 4, llama);
  REQUIRE(f32.ok());
  CHECK(f32.value().state_bytes == 4 * 20 * 2'244'608ULL);
  // The import asks for the f32 recurrent state, so vLLM's estimate takes it without a mamba_ssm_dtype in the config.
  InferenceOptions o;
  o.engine = Engine::vllm;
  o.weights = DType::bf16;
  o.context_tokens = 8'192;
  auto e = estimate_inference(spec.value(), o);
  REQUIRE(e.ok());
  CHECK(e.value().state_cache == 20 * 2'170'880ULL);
}

TEST_CASE("Kimi K3 counts its KDA and gated MLA layers, latent MoE and attention residuals to about 2.8T") {
  const auto k3 = imported("moonshotai--Kimi-K3");
  CHECK(layers_of(k3, MixerKind::linear_attention) == 69);
  CHECK(layers_of(k3, MixerKind::latent_attention) == 24);
  CHECK(k3.layer(0).linear.full_rank_gate);
  // Hand sum, h 7168, vocab 163,840, 93 layers:
  //   KDA (96 heads × 128, P = 12,288, full-rank gate g_proj h·P): 4·h·P + 3·4·P + h·128 + 128·P + P + 96 + h·96
  //     + 128 + P·h = 443,740,384, × 69
  //   MLA (96 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128, output gate h·96·128): h·1536 + 1536
  //     + 1536·96·192 + h·576 + 512 + 512·96·256 + h·12,288 + 12,288·h = 232,196,096, × 24
  //   latent MoE (896 experts of 3072 on a 3584 latent, router + bias, down/up projections and the latent norm,
  //     2 shared experts of 3072 at full width): 29,784,936,832, × 92; the dense first layer 3·h·33,792
  //   per layer 2 norms + 4 AttnRes vectors of h; embeddings and head 2·163,840·h, final norm and AttnRes 3·h
  //   = 2,779,484,476,000 for the language model. Moonshot's card and Hugging Face: "2.8T" with the vision tower,
  //   two significant digits. colibri's docs/kimi_k3.md: "104B active": ours is 104.19B without the embedding.
  const auto counts = count_params(k3);
  REQUIRE(counts.ok());
  CHECK(counts.value().total - k3.vision_params == 2'779'484'476'000ULL);
  CHECK(std::abs(static_cast<double>(counts.value().total) - 2.8e12) < 0.05e12);
  CHECK(std::abs(static_cast<double>(counts.value().active - 163'840ULL * 7168 - k3.vision_params) - 104e9) < 0.5e9);
  // vLLM per sequence: 69 × (3·3·12,288·2 B conv + 96·128·128·4 B recurrent) = 69 × 6,512,640 = 449,372,160 B.
  KvLayout vllm;
  vllm.conv_state_element_bytes = 2;
  vllm.recurrent_state_element_bytes = 4;
  auto kv = estimate_kv_cache(k3, KvDType::bf16, 4'096, 1, vllm);
  REQUIRE(kv.ok());
  CHECK(kv.value().state_bytes_per_sequence == 449'372'160ULL);
}

TEST_CASE("Gemma 4 counts its vision tower as transformers' Gemma4VisionModel holds it") {
  // 27 layers of h 1152 (16 heads × 72, q/k/v/o 4·1152², q_norm and k_norm 2·72, gated MLP 3·1152·4304, four norms
  // 4·1152) = 27 × 20,187,792 = 545,070,384; patch projection 3·16²·1152 = 884,736; position table 2·10,240·1152
  // = 23,592,960; standardization 2·1152: 569,550,384, the figure rnagabh/gemma4-vision-encoder's config.json gives
  // for google/gemma-4-31B-it ("_verified_total_params": 569550384). Then the projection to the text width, 1152 × h.
  const auto dense = imported("nvidia--Gemma-4-31B-IT-NVFP4");
  CHECK(dense.vision_params == 569'550'384ULL + 1152ULL * 5376);
  const auto moe = imported("google--gemma-4-26B-A4B");
  CHECK(moe.vision_params == 569'550'384ULL + 1152ULL * 2816);
  // The card's totals are the language model alone ("Total Parameters: 30.7B", "25.2B", the vision encoder listed
  // apart as ~550M).
  CHECK(std::abs(static_cast<double>(count_params(dense).value().total - dense.vision_params) - 30.7e9) < 0.05e9);
  CHECK(std::abs(static_cast<double>(count_params(moe).value().total - moe.vision_params) - 25.2e9) < 0.05e9);
}

TEST_CASE("Kimi K2.5, K2.6 and K2.7 count MoonViT and its projector; K3 its MoonViT") {
  // vLLM's kimi_k25_vit.py, vt_hidden 1152, 27 layers, MLP 4304, patch 14, a 64 × 64 position table: patch conv
  // 3·14²·1152 + 1152 = 678,528; table 4,718,592; per layer two LayerNorms 4·1152, wqkv 1152·3456 + 3456, wo
  // 1152² + 1152, fc0 1152·4304 + 4304, fc1 4304·1152 + 1152 = 15,239,504, × 27 = 411,466,608; final LayerNorm
  // 2304: 416,866,032, the card's "Parameters of Vision Encoder: 400M". KimiK25MultiModalProjector: LayerNorm 2·1152,
  // linear_1 4608² + 4608, linear_2 4608·7168 + 7168 = 54,277,888.
  for (const char* name : {"moonshotai--Kimi-K2.5", "nvidia--Kimi-K2.6-NVFP4", "nvidia--Kimi-K2.7-Code-NVFP4"}) {
    CAPTURE(name);
    CHECK(imported(name).vision_params == 416'866'032ULL + 54'277'888ULL);
  }
  // K3: vt_hidden 1024, qkv 1536, RMSNorm and no biases: 3·14²·1024 + 64²·1024 + 27 × (2·1024 + 1024·4608 +
  // 1536·1024 + 2·1024·4096) + 1024 = 401,214,464; its patchmergerv2 projector is named, not counted.
  const auto k3 = imported("moonshotai--Kimi-K3");
  CHECK(k3.vision_params == 401'214'464ULL);
  bool named = false;
  for (const auto& note : k3.notes) named = named || note.text.find("patchmergerv2") != std::string::npos;
  CHECK(named);
}

TEST_CASE("training a model with Kimi Delta Attention is refused in one line that names the layers and the way out") {
  auto spec = model_from_hf_config(kKimiLinear48B);
  REQUIRE(spec.ok());
  auto a = estimate_activations(spec.value(), ActivationOptions{});
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().field == "mode");
  CHECK(a.error().message.text.find("Kimi Delta Attention") != std::string::npos);
  CHECK(a.error().message.text.find("mode inference") != std::string::npos);
  CHECK(a.error().message.text.find('\n') == std::string::npos);
}
