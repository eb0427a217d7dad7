// The per-sequence state of linear-attention and Mamba2 layers, as each engine keeps it, pinned to the engines'
// shapes and to a figure vLLM printed. Specs are built from the models' config.json shapes.
#include <string_view>  // std::string_view

#include "../test_support.hpp"
#include "hardware/serving.hpp"  // speed_options_for
#include "memory/inference.hpp"

using namespace vramfit;

namespace {

MlpBlock experts(std::uint64_t routed, std::uint64_t top_k, std::uint64_t width, std::uint64_t shared_width) {
  MlpBlock m;
  m.kind = MlpKind::moe;
  m.routed_experts = routed;
  m.experts_per_token = top_k;
  m.expert_intermediate = width;
  m.shared_experts = 1;
  m.shared_intermediate = shared_width;
  m.shared_gate = true;
  return m;
}

// Qwen3-Next-80B-A3B / Qwen3.6-35B-A3B config.json: full_attention_interval 4, so three Gated DeltaNet layers
// (linear_num_key_heads 16, linear_num_value_heads 32, key and value head dim 128, linear_conv_kernel_dim 4) then
// one full-attention layer (16 heads, 2 KV heads × head_dim 256); hidden 2048; experts of width 512.
ModelSpec gated_deltanet_hybrid(std::uint64_t layers, std::uint64_t routed, std::uint64_t top_k,
                                std::uint64_t vocab) {
  ModelSpec s;
  s.id = "gdn-hybrid";
  s.architecture = "qwen3_next";
  s.hidden_size = 2048;
  s.vocab_size = vocab;
  s.max_context = 262'144;
  LayerRun linear;
  linear.count = 3;
  linear.mixer = MixerKind::linear_attention;
  linear.linear = {16, 32, 128, 128, 4};
  linear.mlp = experts(routed, top_k, 512, 512);
  LayerRun full;
  full.mixer = MixerKind::attention;
  full.attention.heads = 16;
  full.attention.kv_heads = 2;
  full.attention.head_dim = 256;
  full.attention.output_gate = true;
  full.mlp = linear.mlp;
  for (std::uint64_t i = 0; i < layers / 4; ++i) {
    s.layers.push_back(linear);
    s.layers.push_back(full);
  }
  return s;
}

ModelSpec qwen3_next_80b() { return gated_deltanet_hybrid(48, 512, 10, 151'936); }

ModelSpec qwen3_6_35b() {
  ModelSpec s = gated_deltanet_hybrid(40, 256, 8, 248'320);
  s.recurrent_state_element_bytes = 4;  // config: "mamba_ssm_dtype": "float32"
  return s;
}

// NVIDIA-Nemotron-3-Nano-30B-A3B config.json: hybrid_override_pattern M = Mamba2 (mamba_num_heads 64 ×
// mamba_head_dim 64, ssm_state_size 128, n_groups 8, conv_kernel 4), E = experts, * = attention (32 heads,
// 2 KV heads × 128); hidden 2688.
ModelSpec nemotron_3_nano() {
  ModelSpec s;
  s.id = "nemotron-3-nano";
  s.architecture = "nemotron_h";
  s.hidden_size = 2688;
  s.vocab_size = 131'072;
  s.gated_mlp = false;
  LayerRun mamba;
  mamba.mixer = MixerKind::mamba2;
  mamba.mamba = {64, 64, 128, 8, 4};
  mamba.mlp.kind = MlpKind::none;
  LayerRun moe;
  moe.mixer = MixerKind::none;
  moe.mlp = experts(128, 6, 1856, 3712);
  moe.mlp.shared_gate = false;
  LayerRun attention;
  attention.mixer = MixerKind::attention;
  attention.attention.heads = 32;
  attention.attention.kv_heads = 2;
  attention.attention.head_dim = 128;
  attention.mlp.kind = MlpKind::none;
  std::vector<LayerRun> one_per_layer;
  for (const char c : std::string_view("MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"))
    one_per_layer.push_back(c == 'M' ? mamba : c == 'E' ? moe : attention);
  s.layers = compress_runs(one_per_layer);
  return s;
}

InferenceEstimate estimate(const ModelSpec& spec, Engine engine, std::uint64_t batch, std::uint64_t context = 4096) {
  InferenceOptions o;
  o.engine = engine;
  o.weights = engine == Engine::llamacpp ? DType::fp16 : DType::bf16;
  o.batch = batch;
  o.context_tokens = context;
  auto e = estimate_inference(spec, o);
  REQUIRE_MESSAGE(e.ok(), e.error().field << ": " << e.error().message.text);
  return e.value();
}

}  // namespace

TEST_CASE("llama.cpp keeps Qwen3-Next-80B's state in f32: 2,195,456 B per Gated DeltaNet layer and sequence") {
  // llama-hparams.cpp n_embd_r = (d_conv − 1)·(d_inner + 2·n_group·d_state) = 3 × (4096 + 2·16·128) = 24,576 and
  // n_embd_s = d_state·d_inner = 128 × 4096 = 524,288, both f32: (24,576 + 524,288) × 4 = 2,195,456 B per layer;
  // 36 layers = 79,036,416 B = 75.375 MiB per sequence slot (llama_memory_recurrent, R 3.375 + S 72.00 MiB).
  const auto e = estimate(qwen3_next_80b(), Engine::llamacpp, 4);
  CHECK(e.kv.state_layers == 36);
  CHECK(e.kv.state_bytes_per_sequence == 79'036'416);
  CHECK(e.kv.conv_state_bytes_per_sequence == 36 * 24'576 * 4);  // R (f32): 3.375 MiB
  CHECK(e.state_cache == 4 * 79'036'416);                          // -np 4: four slots, allocated up front
  // The per-token cache holds only the 12 attention layers: 2 × 2 KV heads × 256 × 2 B (f16) × 12 = 24,576 B.
  CHECK(e.kv.bytes_per_token == 24'576);
  CHECK(e.total == e.weights + e.kv_cache + e.state_cache + e.activations + e.overhead + e.allocator_reserve);
}

TEST_CASE("decode speed reads each sequence's state in the engine's widths") {
  // llama.cpp keeps Qwen3-Next-80B's state in f32: 79,036,416 B per sequence (above); the speed options take that,
  // and the KV read per sequence is the 12 attention layers' 24,576 B per token × 4096 tokens = 100,663,296 B.
  const auto spec = qwen3_next_80b();
  const auto e = estimate(spec, Engine::llamacpp, 4);
  auto o = speed_options_for(spec, e, ServingInputs{});
  REQUIRE(o.ok());
  CHECK(o.value().state_bytes_per_sequence == 79'036'416);
  CHECK(o.value().kv_bytes_per_sequence == 100'663'296);
}

TEST_CASE("the state does not grow with context, only with sequences") {
  const auto short_context = estimate(qwen3_next_80b(), Engine::transformers, 2, 1024);
  const auto long_context = estimate(qwen3_next_80b(), Engine::transformers, 2, 65'536);
  CHECK(short_context.state_cache == long_context.state_cache);
  CHECK(long_context.kv_cache == 64 * short_context.kv_cache);
  // transformers' Qwen3NextDynamicCache keeps both parts in the model dtype (bf16): 3 × 8,192 × 2 + 32 × 128 ×
  // 128 × 2 = 49,152 + 1,048,576 = 1,097,728 B per layer and sequence; 36 layers × 2 sequences.
  CHECK(short_context.state_cache == 2 * 36 * 1'097'728ULL);
}

TEST_CASE("vLLM keeps the conv state in the model dtype and the recurrent state in mamba_ssm_dtype") {
  // Qwen3.6-35B-A3B (mamba_ssm_dtype float32): conv 3 × (2·16·128 + 32·128) × 2 B = 49,152, recurrent
  // 32·128·128 × 4 B = 2,097,152: 2,146,304 B, the mamba page vLLM 0.24 printed its block size from (research
  // §2.1: "Setting attention block size to 2096 tokens" = 16 · cdiv(2,146,304, 16 · 1,024)).
  const auto e = estimate(qwen3_6_35b(), Engine::vllm, 3);
  CHECK(e.kv.state_layers == 30);
  CHECK(e.kv.state_bytes_per_sequence == 30 * 2'146'304ULL);
  CHECK(e.state_cache == 3 * 30 * 2'146'304ULL);
  // Without mamba_ssm_dtype both parts are bf16: 49,152 + 1,048,576 = 1,097,728 B (MambaStateDtypeCalculator).
  const auto auto_dtype = estimate(qwen3_next_80b(), Engine::vllm, 1);
  CHECK(auto_dtype.kv.state_bytes_per_sequence == 36 * 1'097'728ULL);
}

TEST_CASE("Nemotron 3 Nano's Mamba2 layers keep 2,170,880 B of f32 state per sequence in llama.cpp") {
  // n_embd_r = 3 × (4096 + 2·8·128) = 18,432, n_embd_s = 128 × 4096 = 524,288 (64 heads × 64 = d_inner 4096):
  // (18,432 + 524,288) × 4 = 2,170,880 B per layer; 23 Mamba2 layers = 49,930,240 B = 47.617 MiB per sequence.
  const auto e = estimate(nemotron_3_nano(), Engine::llamacpp, 1);
  CHECK(e.kv.state_layers == 23);
  CHECK(e.kv.state_bytes_per_sequence == 49'930'240);
  CHECK(e.state_cache == 49'930'240);
  // 6 attention layers × 2 × 2 KV heads × 128 × 2 B (f16) = 6,144 B per token.
  CHECK(e.kv.bytes_per_token == 6'144);
}

TEST_CASE("llama.cpp's partial offload puts the last layers' KV and state on the GPU") {
  // -ngl 24 of 48 offloads layers 24..47 (i_gpu_start = n_layer − n_gpu_layers): 18 Gated DeltaNet and 6 attention
  // layers, so 18 × 2,195,456 B of state per sequence and half of the 12 attention layers' KV.
  InferenceOptions o;
  o.engine = Engine::llamacpp;
  o.weights = DType::fp16;
  o.batch = 2;
  o.gpu_layers = 24;
  auto e = estimate_inference(qwen3_next_80b(), o);
  REQUIRE(e.ok());
  const auto& v = e.value();
  CHECK(v.state_cache == 2 * 18 * 2'195'456ULL);
  CHECK(v.llamacpp->host_state_bytes == 2 * 18 * 2'195'456ULL);
  CHECK(v.kv_cache * 2 == v.kv.bytes);
  CHECK(v.llamacpp->host_kv_bytes == v.kv.bytes / 2);
}

TEST_CASE("vLLM's pool holds each running sequence's KV blocks and its state pages") {
  // Qwen3.6-35B-A3B under vLLM: 10 attention layers, 2 KV heads × 256 × 2 × 2 B = 2,048 B per token and layer; 30
  // Gated DeltaNet layers of 3 × (2 × 16 × 128 + 32 × 128) × 2 B + 32 × 128 × 128 × 4 B = 2,146,304 B per sequence.
  // The pages of one group are alike, so the attention block grows to 16 × cdiv(2,146,304, 16 × 2,048) = 1,056 tokens
  // (vLLM 0.24's log for this model with fp8 KV is pinned in test_vllm.cpp).
  // Up to 0.26 prefix caching stays off for hybrid models unless asked for: one state page per group.
  InferenceOptions o;
  o.engine = Engine::vllm;
  o.vllm_rule = VllmRule::graphs_inside;
  o.context_tokens = 131'072;
  o.gpu_memory_bytes = 80ULL << 30;
  const auto e = estimate_inference(qwen3_6_35b(), o);
  REQUIRE(e.ok());
  const VllmCapacity& v = *e.value().vllm;
  CHECK(v.state_bytes_per_sequence == 30 * 2'146'304ULL);
  CHECK(v.block_tokens == 1056);
  CHECK(v.kv_cache_groups == 4);
  // Groups of 10 layers, one row 10 × 1,056 × 2,048 B; a request cdiv(131,072, 1,056) = 125 blocks + 3 state pages.
  CHECK(v.block_bytes == 10 * 1056 * 2048ULL);
  CHECK(v.blocks_per_request == 128);
  // From 0.27 (PR #50991) it is on, in mamba_cache_mode align: two pages in each of the 3 state groups, 131.
  o.vllm_rule = VllmRule::hybrid_prefix_caching;
  const auto cached = estimate_inference(qwen3_6_35b(), o);
  REQUIRE(cached.ok());
  CHECK(cached.value().vllm->blocks_per_request == 131);
}

TEST_CASE("models without linear attention or Mamba keep no state and explain why") {
  const auto e = estimate(test::preset("llama-3.1-8b"), Engine::vllm, 4);
  CHECK(e.state_cache == 0);
  bool explained = false;
  for (const auto& x : e.explanations) explained = explained || (x.key == "state_cache" && x.values.text == "0 B");
  CHECK(explained);
}

TEST_CASE("llama.cpp with every layer on the GPU keeps the whole KV cache there, to the byte") {
  // Gemma 3 27B mixes sliding-window and full layers, so its KV is not a multiple of its 62 layers: all 62 on the
  // GPU hold all of it (an even share per layer would drop the remainder).
  const auto e = estimate(test::preset("gemma-3-27b"), Engine::llamacpp, 1);
  CHECK(e.kv_cache == e.kv.bytes);
  CHECK(e.llamacpp->host_kv_bytes == 0);
}
