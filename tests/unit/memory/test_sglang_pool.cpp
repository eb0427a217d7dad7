// SGLang's hybrid state pool (ModelRunnerKVCacheMixin.handle_max_mamba_cache, sgl-project/sglang
// python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at 226149ac457b): from the memory left after the
// weights, rest, the state pool takes rest × r / (1 + r) (mamba_full_memory_ratio r = 0.9) in whole request slots
// of mamba_cache_per_req bytes; the KV pool of the full-attention layers gets the rest; max_running_requests is at
// most max_mamba_cache_size / 3. SGLang's "GB" is 2^30 bytes.
#include <cstdint>

#include "engine_reports.hpp"
#include "memory/inference.hpp"
#include "memory/kv_cache.hpp"
#include "memory/engines/sglang_pool.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;

constexpr double kGiBytes = 1073741824.0;

std::uint64_t gib_bytes(double gib) { return static_cast<std::uint64_t>(gib * kGiBytes); }

// Qwen3.5-27B's Gated DeltaNet layer (config.json: 16 key heads, 48 value heads, both 128 wide, conv kernel 4).
const LayerRun& linear_run_of(const ModelSpec& spec) {
  for (const LayerRun& run : spec.layers)
    if (run.mixer == MixerKind::linear_attention) return run;
  FAIL("no linear-attention layer");
  return spec.layers.front();
}

}  // namespace

TEST_CASE("SGLang's state pool takes rest × 0.9 / 1.9 in whole slots, the KV pool the remainder") {
  // 226149ac: mamba_state_memory_raw = total_rest_memory × 0.9 / 1.9; max_mamba_cache_size =
  // int(raw · 2^30 // mamba_cache_per_req); return total_rest_memory − max_mamba_cache_size × mamba_cache_per_req.
  // Qwen3.5-27B on one GPU: per slot 48 layers × (conv 10,240 × 3 × 2 B + SSM 48 × 128 × 128 × 4 B) = 153,944,064 B.
  // rest 20 GiB = 21,474,836,480 B: state 10,172,290,964 B, 66 slots (66.08), 10,160,308,224 B set aside.
  const SglangStatePool pool = sglang_state_pool(20ULL << 30, 153'944'064);
  CHECK(pool.max_mamba_cache_size == 66);
  CHECK(pool.reserved_bytes == 10'160'308'224ULL);
  CHECK(pool.max_running_requests == 22);  // 66 / 3
  // MambaPool's tensors hold max_mamba_cache_size + 1 rows (row 0 a dummy target: club-3090 #1319 quotes
  // mem_cache/allocator/mamba.py, "torch.arange(1, self.size + 1)").
  CHECK(pool.allocated_bytes == 67ULL * 153'944'064);
  // Nothing is set aside for a model without state, and nothing from nothing.
  CHECK(sglang_state_pool(20ULL << 30, 0).max_mamba_cache_size == 0);
  CHECK(sglang_state_pool(0, 153'944'064).reserved_bytes == 0);
}

TEST_CASE("SGLang's KV pool of a hybrid model is what the state pool leaves, in full-attention tokens") {
  // A published H100 run log of Qwen3.8-27B-FP8 (type=Qwen3_5ForConditionalGeneration, --mem-fraction-static 0.85):
  //   "Load weight end. ... avail mem=50.01 GB, mem usage=28.47 GB."
  //   "Mamba Cache is allocated. max_mamba_cache_size: 124, conv_state size: 0.34GB, ssm_state size: 17.58GB"
  //   "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 330323, K size: 10.08 GB, V size: 10.08 GB"
  // F0 = 50.01 + 28.47 = 78.48; rest = 50.01 − 78.48 × 0.15 = 38.238 GiB; state 38.238 × 0.9 / 1.9 = 18.113 GiB =
  // 126.3 slots of 0.14337 GiB; KV 38.238 − 126 × 0.14337 = 20.173 GiB / 65,536 B (16 full layers × 4 KV heads ×
  // 512 × 2 B) = 330,517 tokens. The log's newer SGLang kept 124 slots, 2 fewer, and 0.06 % fewer tokens.
  const SglangCapacity c = detail::sglang_kv_capacity(gib_bytes(78.48), 0.85, gib_bytes(28.47), 65'536, 262'144, 0,
                                                      153'944'064);
  CHECK(c.state_pool.max_mamba_cache_size == 126);
  CHECK(c.max_total_num_tokens == doctest::Approx(330'323).epsilon(0.001));
  // The slot bytes against the log's pool: 125 rows × 48 layers × 3,145,728 B = 17.58 GiB of SSM state and
  // 125 × 48 × 61,440 B = 0.34 GiB of conv state.
  CHECK(125.0 * 48 * 3'145'728 / kGiBytes == doctest::Approx(17.58).epsilon(0.001));
  CHECK(125.0 * 48 * 61'440 / kGiBytes == doctest::Approx(0.34).epsilon(0.01));
  // Without the state pool the same rest would give all 38.238 GiB to KV: 626,491 tokens, about twice the log's.
  const SglangCapacity whole = detail::sglang_kv_capacity(gib_bytes(78.48), 0.85, gib_bytes(28.47), 65'536, 262'144);
  CHECK(whole.max_total_num_tokens > 18 * c.max_total_num_tokens / 10);
}

TEST_CASE("SGLang's state slot from the model: Qwen3.5-27B's Gated DeltaNet layers, per tensor-parallel rank") {
  // One H100, the preset: the slot is mamba_cache_per_req (configs/mamba_utils.py: conv in bf16, SSM in
  // --mamba-ssm-dtype float32), 153,944,064 B as above; tensor parallel 2 halves both parts: 76,972,032 B.
  const Report one = evaluate_json(R"({"model":"qwen3.5-27b","engine":"sglang","gpu":"h100-sxm"})");
  REQUIRE(one.estimate.sglang.has_value());
  CHECK(one.estimate.sglang->state_pool.slot_bytes == 153'944'064);
  CHECK(one.estimate.sglang->cell_bytes == 65'536);  // only the 16 full-attention layers hold KV
  CHECK(one.estimate.sglang->max_running_requests == one.estimate.sglang->state_pool.max_mamba_cache_size / 3);
  const Report two = evaluate_json(R"({"model":"qwen3.5-27b","engine":"sglang","gpu":"h100-sxm","tp":2})");
  REQUIRE(two.estimate.sglang.has_value());
  CHECK(two.estimate.sglang->state_pool.slot_bytes == 76'972'032);
  // https://github.com/noonghunna/club-3090/pull/1331 (2 × RTX 3090, TP 2, bf16 SSM state, fp8 KV over 17 layers with
  // the MTP head: 2 heads × 256 × 2 × 17 = 17,408 B a token): pinning 10 slots instead of 21 raised
  // max_total_num_tokens from 158,116 to 182,901, "+24,785 ... exactly 11 × 2,253.2". With a bf16 SSM state a slot is
  // 48 × (5,120 × 3 × 2 + 24 × 128 × 128 × 2) = 39,223,296 B: 11 × 39,223,296 / 17,408 = 24,784.9.
  const ModelSpec& spec = test::preset("qwen3.5-27b");
  KvLayout bf16;
  bf16.conv_state_element_bytes = 2;
  bf16.recurrent_state_element_bytes = 2;
  const std::uint64_t slot = 48 * layer_state_bytes(linear_run_of(spec), bf16) / 2;  // one of 2 ranks
  CHECK(slot == 39'223'296);
  CHECK(static_cast<double>(11 * slot) / 17'408 == doctest::Approx(24'785).epsilon(0.0001));
}
