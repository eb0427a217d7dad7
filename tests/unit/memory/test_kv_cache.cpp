// KV cache sizes pinned to published per-token figures.
#include "../test_support.hpp"
#include "memory/kv_cache.hpp"

using namespace vramfit;

TEST_CASE("OPT-13B keeps 819,200 bytes of fp16 KV per token (vLLM paper's 800 KB)") {
  // Kwon et al. 2023 §3: 2 (K, V) × 5120 hidden × 40 layers × 2 B = 819,200 B.
  auto kv = estimate_kv_cache(test::preset("opt-13b"), DType::fp16, 1, 1);
  REQUIRE(kv.ok());
  CHECK(kv.value().bytes_per_token == 819'200);
  CHECK(kv.value().bytes == 819'200);
}

TEST_CASE("Llama-3.1-8B keeps 131,072 bytes of fp16 KV per token (GQA with 8 KV heads)") {
  // 2 × 8 KV heads × 128 head_dim × 2 B × 32 layers = 131,072 B = 128 KiB.
  auto kv = estimate_kv_cache(test::preset("llama-3.1-8b"), DType::fp16, 8192, 1);
  REQUIRE(kv.ok());
  CHECK(kv.value().bytes_per_token == 131'072);
  CHECK(kv.value().bytes == 131'072ULL * 8192);
}

TEST_CASE("Llama-2-70B at 4096 tokens: the seed article's 5 GB counts one of K/V for 64 heads") {
  // The article: 80 layers, 64 heads, 4096 tokens, fp16 → "about 5 GB". That is
  // 80 × 64 × 128 × 2 B × 4096 = 5,368,709,120 B: only K (or only V), and all 64 heads.
  // Llama-2-70B uses GQA with 8 KV heads and stores both K and V:
  // 2 × 8 × 128 × 2 B × 80 layers × 4096 = 1,342,177,280 B (1.25 GiB), a quarter of the article's figure.
  auto kv = estimate_kv_cache(test::preset("llama-2-70b"), DType::fp16, 4096, 1);
  REQUIRE(kv.ok());
  CHECK(kv.value().bytes == 1'342'177'280ULL);
  // "Doubling the context doubles the cache" holds.
  CHECK(estimate_kv_cache(test::preset("llama-2-70b"), DType::fp16, 8192, 1).value().bytes == 2 * 1'342'177'280ULL);
}

TEST_CASE("KV cache stops growing at the sliding window") {
  // Mistral 7B v0.1: window 4096 on every layer; 2 × 8 × 128 × 2 B × 32 = 131,072 B per token.
  const auto& mistral = test::preset("mistral-7b");
  const auto at_window = estimate_kv_cache(mistral, DType::fp16, 4096, 1).value().bytes;
  const auto beyond = estimate_kv_cache(mistral, DType::fp16, 16384, 1).value().bytes;
  CHECK(at_window == 131'072ULL * 4096);
  CHECK(beyond == at_window);
}

TEST_CASE("Gemma 2 caps only its local layers") {
  // Gemma-2-9B: 42 layers, 21 local (window 4096), 21 global; 2 × 8 × 256 × 2 B = 8192 B per token·layer.
  // At 8192 tokens: 21 × 8192 + 21 × 4096 = 258,048 token·layers → 2,113,929,216 B.
  auto kv = estimate_kv_cache(test::preset("gemma-2-9b"), DType::bf16, 8192, 1);
  REQUIRE(kv.ok());
  CHECK(kv.value().windowed_layers == 21);
  CHECK(kv.value().bytes == 2'113'929'216ULL);
}

TEST_CASE("DeepSeek-V3 caches the MLA latent: 70,272 bytes per token in bf16") {
  // (kv_lora_rank 512 + qk_rope_head_dim 64) × 61 layers × 2 B = 70,272 B.
  auto kv = estimate_kv_cache(test::preset("deepseek-v3"), DType::bf16, 1, 1);
  REQUIRE(kv.ok());
  CHECK(kv.value().bytes_per_token == 70'272);
}

TEST_CASE("MQA keeps one KV head: Falcon-7B") {
  // 2 × 1 × 64 × 2 B × 32 layers = 8,192 B per token.
  CHECK(estimate_kv_cache(test::preset("falcon-7b"), DType::bf16, 1, 1).value().bytes_per_token == 8'192);
}

TEST_CASE("an encoder keeps no KV cache") {
  CHECK(estimate_kv_cache(test::preset("bert-base"), DType::fp16, 512, 8).value().bytes == 0);
}

TEST_CASE("batch multiplies the cache and fp8 halves it") {
  const auto& s = test::preset("llama-3.1-8b");
  const auto one = estimate_kv_cache(s, DType::bf16, 1000, 1).value().bytes;
  CHECK(estimate_kv_cache(s, DType::bf16, 1000, 4).value().bytes == 4 * one);
  CHECK(estimate_kv_cache(s, DType::fp8, 1000, 1).value().bytes * 2 == one);
}

TEST_CASE("q8_0 and q4_0 caches cost 8.5 and 4.5 bits per element (ggml block sizes)") {
  // Llama-3.1-8B: 2 × 8 × 128 = 2048 elements per token·layer; q8_0: 2048 / 32 × 34 = 2176 B; q4_0: 64 × 18 = 1152 B.
  const auto& s = test::preset("llama-3.1-8b");
  CHECK(estimate_kv_cache(s, KvDType::q8_0, 1, 1).value().bytes_per_token_layer == 2176);
  CHECK(estimate_kv_cache(s, KvDType::q4_0, 1, 1).value().bytes_per_token_layer == 1152);
  CHECK(estimate_kv_cache(s, KvDType::fp8, 1, 1).value().bytes_per_token_layer == 2048);
}

TEST_CASE("MLA: the latent in vLLM/llama.cpp, decompressed heads in transformers") {
  // DeepSeek-V3: latent (512 + 64) × 2 B = 1152 B per layer; per head 128 × (128 + 64 + 128) × 2 B = 81,920 B.
  const auto& s = test::preset("deepseek-v3");
  KvLayout per_head;
  per_head.mla = MlaCache::per_head;
  CHECK(estimate_kv_cache(s, KvDType::bf16, 1, 1).value().bytes_per_token_layer == 1152);
  CHECK(estimate_kv_cache(s, KvDType::bf16, 1, 1, per_head).value().bytes_per_token_layer == 81'920);
}

TEST_CASE("llama.cpp's SWA cache keeps window + n_ubatch cells, padded to 256") {
  // Gemma-2-9B: window 4096; llama.cpp keeps 4096 + 512 = 4608 cells on its 21 local layers
  // (the log "creating SWA KV cache, size = 1536 cells" is Gemma 3's 1024 + 512). At 8192 tokens:
  // 21 × 8192 + 21 × 4608 = 268,800 token·layers × 8192 B = 2,202,009,600 B.
  KvLayout llama;
  llama.window_extra = 512;
  llama.window_pad = 256;
  auto kv = estimate_kv_cache(test::preset("gemma-2-9b"), KvDType::fp16, 8192, 1, llama);
  REQUIRE(kv.ok());
  CHECK(kv.value().window_cells == 4608);
  CHECK(kv.value().bytes == 2'202'009'600ULL);
}
