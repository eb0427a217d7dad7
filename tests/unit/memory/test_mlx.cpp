// MLX (mlx_lm.generate) by its mechanism: the weights, a KVCache grown in 256-token steps, one 2048-token prefill
// chunk's forward pass and the cache growth's copy, pinned to the "Peak memory" mlx_lm.generate printed
// (mx.get_peak_memory() / 1e9).
#include <nlohmann/json.hpp>
#include <string>

#include "engine_reports.hpp"
#include "../validation_rows.hpp"
#include "json/request.hpp"
#include "memory/engines/mlx.hpp"
#include "memory/inference.hpp"
#include "questions/evaluate.hpp"
#include "vramfit/vramfit.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;

// mistralai/Mistral-7B-Instruct-v0.3 config.json: vocabulary 32768, no sliding window.
const std::string kMistralV03 =
    R"("config":{"architectures":["MistralForCausalLM"],"model_type":"mistral","hidden_size":4096,)"
    R"("intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,)"
    R"("head_dim":128,"vocab_size":32768,"max_position_embeddings":32768,"rms_norm_eps":1e-05,)"
    R"("rope_theta":1000000.0,"sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16"})";

Report mistral(const std::string& extra) {
  return evaluate_json("{" + kMistralV03 + R"(,"engine":"mlx","weights":"mlx-4bit","gpu":"apple-m2-ultra-192gb",)" +
                       extra + "}");
}

const MlxMemory& mlx_of(const Report& report) {
  REQUIRE(report.estimate.mlx.has_value());
  return *report.estimate.mlx;
}

Error refused(const std::string& json) {
  auto request = request_from_json(json);
  REQUIRE_MESSAGE(request.ok(), json);
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE_MESSAGE(!report.ok(), json);
  return report.error();
}

}  // namespace

TEST_CASE("MLX's peak for a long prompt: weights + the 256-step cache + one prefill chunk + the growth's copy") {
  // https://github.com/ml-explore/mlx-lm/pull/40 ("Updates for causal mask", the fused causal kernel), 4-bit
  // Mistral 7B on an M2 Ultra: "Prompt: 33898 tokens, 869.279 tokens-per-sec", "Peak memory: 9.111 GB";
  // generation at the default --max-tokens 100, so 33,998 tokens. The model's version is not named; v0.1's
  // 32,000-token vocabulary would weigh 3.5 MB less, 0.04 % of the peak.
  const Report r = mistral(R"("context":33998)");
  const InferenceEstimate& e = r.estimate;
  // mlx_lm.convert -q quantizes every Linear and the embedding: (32 × 218,103,808 + 2 × 32768 × 4096) =
  // 7,247,757,312 weights × 4.5 bits (4 bits + a 16-bit scale and bias per 64) = 4,076,863,488 B, plus 266,240
  // norm weights × 2 B.
  CHECK(e.weights == 4'077'395'968ULL);
  // 33,998 tokens in 256-token steps: 133 steps = 34,048 tokens × 32 layers × 8 KV heads × (128 + 128) × 2 B.
  CHECK(mlx_of(r).cache_tokens == 34'048);
  CHECK(e.kv_cache == 34'048ULL * 131'072);
  // The 2048-token chunk's MLP: 2048 × (2 × 4096 + 3 × 14336) × 2 B = 209,715,200 B (attention is fused: head dim
  // 128, no score matrix); one layer's cache before the last chunk: (34,048 − 2048) × 4096 B = 131,072,000 B; the
  // last token's logits and log-probabilities 2 × 32768 × 2 B.
  CHECK(mlx_of(r).fused_attention);
  CHECK(mlx_of(r).scores_bytes == 0);
  CHECK(e.activations == 209'715'200ULL + 131'072'000ULL + 131'072ULL);
  CHECK(e.overhead == 0);
  CHECK(e.allocator_reserve == 0);
  // 8.881 GB against 9.111 printed: 2.5 % low. MLX frees an op's inputs only when its command buffer completes
  // (mlx/backend/metal/eval.cpp: the inputs ride in the completion handler), so the intermediates of up to 20–50
  // consecutive ops (max_ops_per_buffer) overlap with the next layer's: the range's top adds a second layer's live
  // set and old K and V, 9.222 GB.
  const double printed = test::validation_figure("mlx-mistral-7b-4bit-34k-peak").value;
  CHECK(static_cast<double>(e.total) / printed - 1.0 == doctest::Approx(-0.025).epsilon(0.005));
  CHECK(static_cast<double>(e.range.high) >= printed);
  CHECK(static_cast<double>(e.range.low) < printed);
}

TEST_CASE("MLX's rotating cache (--max-kv-size) holds max_size + S − 1 tokens while a prompt chunk is added") {
  // mlx_lm models/cache.py RotatingKVCache._update_concat: "The largest size is self.max_size + S - 1".
  const Report r = mistral(R"("context":33998,"max_kv_size":4096)");
  CHECK(mlx_of(r).cache_tokens == 4096 + 2048 - 1);
  CHECK(r.estimate.kv_cache == 6143ULL * 131'072);
  // Below the limit it grows in place, 256 tokens at a time, up to max_size.
  CHECK(mlx_of(mistral(R"("context":1000,"max_kv_size":4096)")).cache_tokens == 1024);
  CHECK(mlx_of(mistral(R"("context":4000,"max_kv_size":4096)")).cache_tokens == 4096);
  CHECK(r.command == "mlx_lm.generate --model MODEL --max-kv-size 4096 --prompt -  # mlx-lm 0.31.3");
}

TEST_CASE("MLX's quantized cache (--kv-bits 8): 8.5 bits per element, and attention unfused with its scores") {
  // QuantizedKVCache(group_size=64, bits=8): uint32-packed values and a scale and bias in the model dtype per 64,
  // so (8 + 32 / 64) bits: 34,048 × 32 layers × 2 × 8 × 128 × 8.5 / 8 B.
  const Report r = mistral(R"("context":33998,"kv_dtype":"q8_0")");
  CHECK(r.estimate.kv_cache == 34'048ULL * 69'632);
  // quantized_scaled_dot_product_attention (mlx_lm models/base.py) materializes the scores: 32 heads × 2048 ×
  // 34,048 × 2 B = 4,462,739,456 B and the boolean mask 2048 × 34,048 B, beside the attention's own 2048 × (2 × 4096
  // + 2 × 32 × 128 + 2 × 8 × 128) × 2 B = 75,497,472 B.
  CHECK_FALSE(mlx_of(r).fused_attention);
  CHECK(mlx_of(r).scores_bytes == 4'462'739'456ULL + 69'730'304ULL);
  CHECK(mlx_of(r).layer_bytes == 4'462'739'456ULL + 69'730'304ULL + 75'497'472ULL);
  // So at a long prompt the 8-bit cache peaks higher than the 16-bit one, as reported in
  // https://github.com/ml-explore/mlx-lm/issues/1587 (Llama-3.2-3B-Instruct-4bit, 32,000 tokens, mlx 0.31.2).
  CHECK(r.estimate.total > mistral(R"("context":33998)").estimate.total);
  CHECK(r.command == "mlx_lm.generate --model MODEL --kv-bits 8 --prompt -  # mlx-lm 0.31.3");
}

TEST_CASE("MLX's fused attention kernel covers head dims 64 to 128; 256 takes the unfused path") {
  // mlx/backend/metal/scaled_dot_product_attention.cpp use_fallback: "Unfused path is faster for following shapes"
  // (query length > 8: head dim 192 or 256). 8 heads × 2048 × 4096 keys × 2 B + the 2048 × 4096 mask.
  const Report r = evaluate_json(
      R"({"config":{"model_type":"llama","hidden_size":2048,"num_hidden_layers":4,"num_attention_heads":8,)"
      R"("num_key_value_heads":8,"head_dim":256,"intermediate_size":4096,"vocab_size":1000},"weights":"bf16",)"
      R"("engine":"mlx","context":4096})");
  CHECK_FALSE(mlx_of(r).fused_attention);
  CHECK(mlx_of(r).scores_bytes == 8ULL * 2048 * 4096 * 2 + 2048ULL * 4096);
}

TEST_CASE("MLX: refused where it does not run, each naming its field") {
  const std::string base = R"({"model":"llama-3.1-8b","engine":"mlx")";
  CHECK(refused(base + R"(,"gpu":"h100-sxm"})").field == "gpu");
  CHECK(refused(base + R"(,"kv_dtype":"fp8"})").field == "kv_dtype");
  CHECK(refused(base + R"(,"weights":"q4_k_m"})").field == "weights");
  CHECK(refused(base + R"(,"weights":"awq-4bit-128g"})").field == "weights");
  CHECK(refused(base + R"(,"kv_dtype":"q8_0","max_kv_size":4096})").field == "kv_dtype");
  CHECK(refused(base + R"(,"tp":2})").field == "tp");
  const Error several = refused(base + R"(,"gpu":"apple-m2-ultra-192gb","gpus":2})");
  CHECK(several.field == "gpus");
  CHECK(several.message.id == "mlx.one_gpu");
  CHECK(refused(base + R"(,"gpu":"h100-sxm","gpus":2})").field == "gpus");  // the count is refused first
  CHECK(refused(R"({"model":"llama-3.1-8b","engine":"vllm","max_kv_size":4096})").field == "max_kv_size");
}

TEST_CASE("MLX without a GPU is judged on the Macs only, and its command names the checkpoint to convert") {
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"mlx","weights":"mlx-4bit","context":8192})");
  REQUIRE_FALSE(r.gpus.empty());
  for (const auto& row : r.gpus) CHECK(row.gpu->name.find("Apple") != std::string::npos);
  CHECK(r.command == "mlx_lm.generate --model meta-llama/Llama-3.1-8B --prompt -  # mlx-lm 0.31.3");
  CHECK(r.command_note.text.find("mlx_lm.convert --hf-path meta-llama/Llama-3.1-8B -q") != std::string::npos);
  // generate_step allocates nothing ahead: the context is the prompt and the answer together, and the note says so.
  bool said = false;
  for (const auto& note : r.estimate.notes) said = said || note.text.find("8,192 tokens, stands for both") != std::string::npos;
  CHECK(said);
}

TEST_CASE("mlx-lm runs Mistral through its Llama model: every layer attends in full, sliding_window unused") {
  // mlx_lm/utils.py maps "mistral" to models/llama.py; ModelArgs.layer_types defaults to "full_attention" for every
  // layer. Mistral 7B v0.1 at 8192 tokens: 8192 (32 steps of 256) × 131,072 B, not its 4096-token window's half.
  const Report r = evaluate_json(R"({"model":"mistral-7b","engine":"mlx","context":8192})");
  CHECK(r.estimate.kv_cache == 8192ULL * 131'072);
  CHECK(r.estimate.kv.windowed_layers == 0);
}

TEST_CASE("MLX's MLA prefill decompresses the cached latent into every head's K and V over the whole cache") {
  // mlx_lm models/deepseek_v3.py, L > 1: k = embed_q(kv_latent), v = unembed_out(kv_latent) for all cached tokens,
  // pe_scores (heads × chunk × keys) as the mask. A one-layer MLA at 4096 tokens: 8 heads × 4096 × (64 + 64) × 2 B
  // of K and V, beside 8 × 2048 × 4096 × 2 B of scores and the 2048 × 4096 boolean mask.
  const Report r = evaluate_json(
      R"({"config":{"model_type":"deepseek_v3","hidden_size":1024,"num_hidden_layers":1,"num_attention_heads":8,)"
      R"("num_key_value_heads":8,"kv_lora_rank":128,"q_lora_rank":null,"qk_nope_head_dim":64,"qk_rope_head_dim":32,)"
      R"("v_head_dim":64,"intermediate_size":1024,"moe_intermediate_size":256,"n_routed_experts":0,)"
      R"("first_k_dense_replace":1,"vocab_size":1000},"weights":"bf16","engine":"mlx","context":4096})");
  const MlxMemory& m = mlx_of(r);
  CHECK_FALSE(m.fused_attention);
  CHECK(m.scores_bytes == 8ULL * 2048 * 4096 * 2 + 2048ULL * 4096);
  // q, the latent and the output as the mixer's width (2h + heads × (2 × (64 + 32) + 2 × 64)) over the chunk.
  const std::uint64_t width = 2 * 1024 + 8 * (2 * (64 + 32) + 2 * 64);
  CHECK(m.layer_bytes == 2048ULL * width * 2 + m.scores_bytes + 8ULL * 4096 * (64 + 64) * 2);
}

namespace {

// Qwen/Qwen3-0.6B config.json (tests/data/configs): hidden 1024, 28 layers, 8 KV heads of 128, vocabulary 151,936.
Report qwen3_small(const std::string& extra) {
  return evaluate_json(R"({"model":"qwen3-0.6b","engine":"mlx","weights":"mlx-4bit",)" + extra + "}");
}

}  // namespace

TEST_CASE("mlx-lm up to 0.26.4 computes logits for each token of the prompt's last chunk; from 0.27.0 the last one") {
  // ml-explore/mlx-lm v0.26.4 mlx_lm/generate.py generate_step: the chunks run while
  //   "while total_prompt_tokens - prompt_processed_tokens > prefill_step_size:"
  // evaluating only "mx.eval([c.state for c in prompt_cache])", then the rest goes through
  //   "y, logprobs = _step(input_tokens=prompt, input_embeddings=input_embeddings)",
  // whose model call returns logits for every position it is given before "logits = logits[:, -1, :]" keeps the
  // last (models/llama.py and qwen3.py apply lm_head to the whole sequence). v0.27.0 (PR #406, 24fefe3d, "only
  // apply lm_head to the last token") stops the chunks one token short:
  //   "while total_prompt_tokens - prompt_processed_tokens > 1:" / "n_to_process = min(prefill_step_size, prompt.size - 1)",
  // unchanged at v0.31.3 ("remaining = (total_prompt_tokens - prompt_processed_tokens) - 1").
  // A 2048-token prompt (PR #406 timed Qwen3 0.6B Q4 at 2048 and 512) is one chunk through _step under 0.26.4.
  const Report old = qwen3_small(R"("context":2048,"engine_version":"0.26.4")");
  const MlxMemory& m = mlx_of(old);
  CHECK(m.rule == MlxRule::chunk_logits);
  CHECK(m.chunk_tokens == 2048);
  CHECK(m.logits_tokens == 2048);
  // lm_head writes 2048 × 151,936 bf16 logits; the slice is a view that keeps them (ml-explore/mlx v0.28.0
  // mlx/backend/common/slicing.cpp: shared_buffer_slice, out.copy_shared_buffer) until "logprobs = logits -
  // mx.logsumexp(logits, keepdims=True)" writes 151,936 more: 2049 × 151,936 × 2 B = 622,633,728 B, beside
  // lm_head's input, the final norm's 2048 × 1024 × 2 B = 4,194,304 B.
  CHECK(m.logits_bytes == 622'633'728ULL);
  CHECK(m.head_input_bytes == 4'194'304ULL);
  // That moment follows the layers'; for a small model at a short prompt it is the peak. The cache holds 2048
  // tokens (8 steps of 256) and the whole prompt was one chunk: no growth copy.
  CHECK(m.growth_bytes == 0);
  CHECK(m.layer_bytes < 622'633'728ULL);
  CHECK(old.estimate.activations == 622'633'728ULL + 4'194'304ULL);
  CHECK(old.estimate.logits == 622'633'728ULL);

  // From 0.27.0 (the default, as 0.31.3): 2047 tokens prefilled, the last alone through _step; its logits and
  // log-probabilities 2 × 151,936 × 2 B = 607,744 B are added to the layer's moment.
  const Report now = qwen3_small(R"("context":2048)");
  const MlxMemory& n = mlx_of(now);
  CHECK(n.rule == MlxRule::last_token_logits);
  CHECK(n.chunk_tokens == 2047);
  CHECK(n.logits_tokens == 1);
  CHECK(n.logits_bytes == 607'744ULL);
  CHECK(n.head_input_bytes == 0);
  CHECK(now.estimate.activations == n.layer_bytes + n.growth_bytes + 607'744ULL);
  CHECK(old.estimate.total - now.estimate.total > 500'000'000ULL);
  CHECK(now.estimate.weights == old.estimate.weights);
  CHECK(now.estimate.kv_cache == old.estimate.kv_cache);

  // A 512-token prompt under 0.26.4: 513 × 151,936 × 2 B of logits and 512 × 1024 × 2 B of lm_head input.
  const Report short_report = qwen3_small(R"("context":512,"engine_version":"v0.26.4")");
  const MlxMemory& short_prompt = mlx_of(short_report);
  CHECK(short_prompt.logits_tokens == 512);
  CHECK(short_prompt.logits_bytes == 155'886'336ULL);
  CHECK(short_prompt.head_input_bytes == 1'048'576ULL);
}

TEST_CASE("mlx-lm 0.26.4 at a long prompt: the last chunk is at most prefill_step_size, below the layer's moment") {
  // A prompt longer than 2048 leaves a last chunk of ((P − 1) mod 2048) + 1 tokens; the context stands for the
  // prompt and the answer, so the largest a prompt within it can leave is counted: min(context, 2048).
  // The run in ml-explore/mlx-lm PR #40 (fd175f11, the commit that set _version.py to 0.22.2) had this rule: its
  // 33,898-token prompt left 1130 tokens. Counted as 2048: 2048 × (4096 + 32,768) × 2 B + 32,768 × 2 B =
  // 151,060,480 B, below the chunk's MLP and the growth copy, 209,715,200 + 131,072,000 B.
  const Report r = mistral(R"("context":33998,"engine_version":"0.26.4")");
  const MlxMemory& m = mlx_of(r);
  CHECK(m.logits_tokens == 2048);
  CHECK(m.head_input_bytes + m.logits_bytes == 151'060'480ULL);
  CHECK(r.estimate.activations == 209'715'200ULL + 131'072'000ULL);
  // Against the 9.111 GB PR #40 printed, as the default: 2.5 % low.
  const double printed = test::validation_figure("mlx-mistral-7b-4bit-34k-peak").value;
  CHECK(static_cast<double>(r.estimate.total) / printed - 1.0 == doctest::Approx(-0.025).epsilon(0.005));
}

TEST_CASE("MLX's engine_version: 0.22.2 and later read, older refused, and the report names the version asked") {
  // 0.22.2 (PR #40, fd175f11) set prefill_step_size to 2048 (512 before) and the causal mask to "causal".
  CHECK(parse_mlx_version("0.22.2") == MlxRule::chunk_logits);
  CHECK(parse_mlx_version("0.26.4") == MlxRule::chunk_logits);
  CHECK(parse_mlx_version("0.27.0") == MlxRule::last_token_logits);
  CHECK(parse_mlx_version("v0.31.3") == MlxRule::last_token_logits);
  CHECK_FALSE(parse_mlx_version("0.22.1").has_value());
  CHECK_FALSE(parse_mlx_version("latest").has_value());
  const Error old = refused(R"({"model":"qwen3-0.6b","engine":"mlx","engine_version":"0.21.1"})");
  CHECK(old.field == "engine_version");
  CHECK(old.message.id == "mlx.version_unmodelled");
  const Error other = refused(R"({"model":"qwen3-0.6b","engine":"transformers","engine_version":"0.26.4"})");
  CHECK(other.field == "engine_version");
  CHECK(other.message.id == "engine.input_not_read");
  CHECK(other.message.text == "applies to vLLM / llama.cpp / SGLang / Ollama / MLX only; transformers does not read it");
  const auto json_of = [](const char* request) {
    return nlohmann::json::parse(answer(test::catalog(), request))["mlx"];
  };
  const auto now = json_of(R"({"model":"qwen3-0.6b","engine":"mlx","context":2048})");
  CHECK(now["engine_version"] == "0.31.3");
  CHECK(now["logits_tokens"] == 1);
  // 0.25.1 runs 0.26.4's rule (every position of the last chunk); the answer names the version asked.
  const auto old_json = json_of(R"({"model":"qwen3-0.6b","engine":"mlx","context":2048,"engine_version":"v0.25.1"})");
  CHECK(old_json["engine_version"] == "0.25.1");
  CHECK(old_json["logits_tokens"] == 2048);
}
