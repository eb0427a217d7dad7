// Speculative decoding's draft, per engine, each figure pinned to the engine's source or to arithmetic by hand.
#include <algorithm>
#include <string>
#include <vector>

#include "engine_reports.hpp"
#include "memory/draft.hpp"
#include "memory/inference.hpp"
#include "questions/evaluate.hpp"
#include "vramfit/vramfit.hpp"  // keep_model_read, answer

using namespace vramfit;

namespace {

using test::evaluate_json;

// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's config.json as published (the same text is copied in SpecForge's tests and
// in several training scripts).
const char* const kEagle3Llama8b = R"({
  "architectures": ["LlamaForCausalLMEagle3"], "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 2048,
  "model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1,
  "pad_token_id": 0, "rms_norm_eps": 1e-05, "tie_word_embeddings": false, "torch_dtype": "float16",
  "transformers_version": "4.28.1", "use_cache": true, "vocab_size": 128256, "draft_vocab_size": 32000})";

std::string with_config(const std::string& head, const char* config) {
  std::string escaped;
  for (const char c : std::string(config)) {
    if (c == '"') escaped += "\\\"";
    else if (c == '\n') escaped += ' ';
    else escaped += c;
  }
  return head + ", \"draft_config\": \"" + escaped + "\"}";
}

const DraftMemory& draft_of(const Report& r) {
  REQUIRE(r.estimate.draft_detail.has_value());
  return *r.estimate.draft_detail;
}

}  // namespace

TEST_CASE("Expected tokens per step: Leviathan et al. 2023, eq. 1") {
  // (1 − α^(γ+1)) / (1 − α): α 0.8, γ 4: (1 − 0.32768) / 0.2 = 3.3616; α 0.6, γ 16: (1 − 0.6^17) / 0.4 = 2.49958;
  // α 1: every draft token and the target's own, γ + 1.
  CHECK(expected_tokens_per_step(0.8, 4) == doctest::Approx(3.3616));
  CHECK(expected_tokens_per_step(0.6, 16) == doctest::Approx(2.49958).epsilon(1e-5));
  CHECK(expected_tokens_per_step(1.0, 5) == doctest::Approx(6.0));
  CHECK(expected_tokens_per_step(0.0, 5) == doctest::Approx(1.0));
}

TEST_CASE("An EAGLE-3 head's weights: its one layer, fc 3h → h and a 32000-token head; the embedding is the target's") {
  // By hand, Llama-3.1-8B's EAGLE-3 head (SGLang llama_eagle3.py: q, k, v read 2h; fc 3h → h; lm_head over
  // draft_vocab_size; d2t int64 and t2d bool): q 8192 × 4096 = 33,554,432; k, v 8192 × 1024 = 8,388,608 each;
  // o 16,777,216; MLP 3 × 4096 × 14336 = 176,160,768; four norms 4 × 4096 = 16,384; fc 3 × 4096² = 50,331,648;
  // lm_head 32000 × 4096 = 131,072,000: 424,689,664 parameters, 849,379,328 B in bf16, with the maps 32000 × 8 +
  // 128256 = 384,256 B: 849,763,584 B = 810.4 MiB. A guide to the checkpoint says "~811MB" (its file size in MiB).
  const Report r = evaluate_json(with_config(R"({"model": "llama-3.1-8b", "engine": "vllm", "draft_tokens": 3)",
                                             kEagle3Llama8b));
  const DraftMemory& d = draft_of(r);
  CHECK(d.kind == DraftKind::eagle3);
  CHECK(d.params == 424'689'664);
  CHECK(d.weights == 849'763'584);
  CHECK(static_cast<double>(d.weights) / 1048576.0 == doctest::Approx(811).epsilon(0.002));
  // One layer of 8 KV heads × 128 × (K + V) × 2 B = 4,096 B per token.
  CHECK(d.layers == 1);
  CHECK(d.kv_bytes_per_token == 4096);
}

TEST_CASE("llama-server: a draft context per slot at the slot's context, f16 cache") {
  // tools/server/server.cpp: params_dft.n_ctx = llama_n_ctx_seq(ctx) (the slot's context), n_parallel = 1, and
  // every slot creates its own context from cparams_dft. Qwen2.5-0.5B: 24 layers × 2 KV heads × 64 × (K + V) × 2 B
  // = 12,288 B per token; at 4096 tokens 50,331,648 B (48.00 MiB, what llama.cpp prints as its KV buffer), four
  // slots (-np 4) four of them.
  const Report one = evaluate_json(R"({"model": "qwen2.5-7b", "engine": "llamacpp", "weights": "q4_k_m",
                                       "context": 4096, "draft": "qwen2.5-0.5b"})");
  const DraftMemory& d = draft_of(one);
  CHECK(d.kv_bytes_per_token == 12'288);
  CHECK(d.kv_cache == 50'331'648);
  CHECK(d.contexts == 1);
  CHECK(d.tokens == 16);  // --spec-draft-n-max 16 (common/common.h, n_max = 16), given explicitly in the command
  CHECK(d.buffers > 0);
  const Report four = evaluate_json(R"({"model": "qwen2.5-7b", "engine": "llamacpp", "weights": "q4_k_m",
                                        "context": 4096, "batch": 4, "draft": "qwen2.5-0.5b"})");
  const DraftMemory& d4 = draft_of(four);
  CHECK(d4.contexts == 4);
  CHECK(d4.kv_cache == 4 * 50'331'648);
  CHECK(d4.buffers == 4 * d.buffers);
  CHECK(d4.weights == d.weights);  // one model, loaded once
  // The draft is a line of the total.
  const Report none = evaluate_json(R"({"model": "qwen2.5-7b", "engine": "llamacpp", "weights": "q4_k_m",
                                        "context": 4096})");
  CHECK(one.estimate.total == none.estimate.total + d.total);
  CHECK(one.command.find("--spec-type draft-simple -md Qwen2.5-0.5B-Q4_K_M.gguf --spec-draft-n-max 16") != std::string::npos);  // the draft in the model's format
}

TEST_CASE("vLLM: the draft's layers share the one KV pool; its weights come out of it first") {
  // One pool of bytes P after the weights: without a draft it holds P / t tokens, with one P' / (t + d) where
  // P' = P − draft weights (gpu_model_runner loads the drafter inside "Model loading took", and its attention layers
  // get pages of every block). Llama-3.1-8B: t = 32 × 8 × 128 × 2 × 2 B = 131,072 B; the EAGLE-3 layer d = 4,096 B.
  const std::string base = R"({"model": "llama-3.1-8b", "engine": "vllm", "gpu": "h100-sxm", "context": 8192)";
  const Report plain = evaluate_json(base + "}");
  const Report drafted = evaluate_json(with_config(base + R"(, "draft_tokens": 3)", kEagle3Llama8b));
  REQUIRE(plain.estimate.vllm.has_value());
  REQUIRE(drafted.estimate.vllm.has_value());
  const double pool = static_cast<double>(plain.estimate.vllm->kv_capacity_bytes);
  const double pool_after = static_cast<double>(drafted.estimate.vllm->kv_capacity_bytes);
  CHECK(pool - pool_after == doctest::Approx(static_cast<double>(draft_of(drafted).weights)).epsilon(1e-6));
  const double tokens = static_cast<double>(plain.estimate.vllm->kv_capacity_tokens);
  const double tokens_after = static_cast<double>(drafted.estimate.vllm->kv_capacity_tokens);
  CHECK(tokens == doctest::Approx(pool / 131'072).epsilon(0.002));
  CHECK(tokens_after == doctest::Approx(pool_after / (131'072 + 4'096)).epsilon(0.002));
  CHECK(drafted.command.find(R"(--speculative-config '{"method": "eagle3", "model": "DRAFT", "num_speculative_tokens": 3}')") !=
        std::string::npos);
}

TEST_CASE("vLLM needs num_speculative_tokens for a draft model; an MTP draft defaults to its layers") {
  // vllm/config/speculative.py: n_predict from the draft's config when num_speculative_tokens is None (an MTP
  // draft's num_nextn_predict_layers); a draft model has none, and vLLM asks for it.
  auto request = request_from_json(R"({"model": "qwen2.5-7b", "engine": "vllm", "draft": "qwen2.5-0.5b"})");
  REQUIRE(request.ok());
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().field == "draft_tokens");
  // DeepSeek-V3: one MTP layer (num_nextn_predict_layers 1); vLLM shares the embedding and output head with the
  // target. By hand: 256 experts × 3 × 7168 × 2048 = 11,274,289,152; the shared expert 44,040,192; the router
  // 1,835,264; MLA 187,107,328 (q_a 11,010,048, q_b 37,748,736, kv_a 4,128,768, kv_b 16,777,216, o 117,440,512 and
  // two norms); eh_proj 2 × 7168² = 102,760,448; five norms 35,840: 11,610,068,224. README_WEIGHTS.md says "11.5B
  // unique parameters (excluding the shared 0.9B Embedding and 0.9B output Head)".
  const Report ds = evaluate_json(R"({"model": "deepseek-v3", "engine": "vllm", "draft": "mtp", "tp": 8})");
  const DraftMemory& d = draft_of(ds);
  CHECK(d.kind == DraftKind::mtp);
  CHECK(d.tokens == 1);
  CHECK(d.layers == 1);
  CHECK(d.params == 11'610'068'224);
  CHECK(static_cast<double>(d.params) == doctest::Approx(11.5e9).epsilon(0.01));
  CHECK(ds.command.find(R"("method": "mtp", "num_speculative_tokens": 1)") != std::string::npos);
}

TEST_CASE("Engines without the draft or the head refuse it") {
  auto refused = [](const std::string& json, const std::string& field) {
    auto request = request_from_json(json);
    if (!request.ok()) {
      CHECK(request.error().field == field);
      return;
    }
    auto report = evaluate(test::catalog(), request.value());
    REQUIRE_FALSE(report.ok());
    CHECK(report.error().field == field);
  };
  // Ollama has no speculative decoding: the input's engines mask refuses it.
  refused(R"({"model": "qwen2.5-7b", "engine": "ollama", "draft": "qwen2.5-0.5b"})", "draft");
  // llama-server's -md is a model; EAGLE heads and MTP layers run in vLLM and SGLang.
  refused(R"({"model": "deepseek-v3", "engine": "llamacpp", "weights": "q4_k_m", "draft": "mtp"})", "draft");
  // A model without MTP layers.
  refused(R"({"model": "qwen2.5-7b", "engine": "vllm", "draft": "mtp"})", "draft");
  // draft_tokens and acceptance go with a draft.
  refused(R"({"model": "qwen2.5-7b", "engine": "vllm", "draft_tokens": 4})", "draft_tokens");
  // llama.cpp's common_speculative_are_compatible: vocabularies at most SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128 apart.
  // Llama 3.2 1B has 128,256 tokens, Qwen2.5 7B 152,064 (their config.json files).
  refused(R"({"model": "qwen2.5-7b", "engine": "llamacpp", "draft": "llama-3.2-1b"})", "draft");
}

TEST_CASE("A draft with another vocabulary, or no smaller than the model, is said beside the estimate") {
  auto notes_of = [](const char* json) {
    auto request = request_from_json(json);
    REQUIRE(request.ok());
    auto report = evaluate(test::catalog(), request.value());
    REQUIRE(report.ok());
    std::string ids;
    for (const Message& m : report.value().estimate.notes) ids += m.id + " ";
    return ids;
  };
  // 128,256 tokens against 152,064: the draft proposes ids the model reads otherwise.
  CHECK(notes_of(R"({"model": "qwen2.5-7b", "engine": "vllm", "gpu": "h100-sxm", "draft": "llama-3.2-1b",
                     "draft_tokens": 3})").find("draft.vocab_differs") != std::string::npos);
  // Qwen2.5 72B (72.7e9 parameters) drafting for Qwen2.5 7B (7.6e9 active): no smaller.
  CHECK(notes_of(R"({"model": "qwen2.5-7b", "engine": "vllm", "gpu": "h100-sxm", "draft": "qwen2.5-72b",
                     "draft_tokens": 3})").find("draft.not_smaller") != std::string::npos);
  // Qwen2.5 0.5B (vocab_size 151,936) for 7B (152,064): one tokenizer, the embeddings padded apart by 128, within
  // llama.cpp's allowance; the smaller draft draws neither note.
  const std::string fine = notes_of(R"({"model": "qwen2.5-7b", "engine": "vllm", "gpu": "h100-sxm",
                                        "draft": "qwen2.5-0.5b", "draft_tokens": 3})");
  CHECK(fine.find("draft.not_smaller") == std::string::npos);
  CHECK(fine.find("draft.vocab_differs") == std::string::npos);
}

TEST_CASE("transformers' assisted generation: the assistant's weights and its cache") {
  // generate(assistant_model=...): a second model with its own DynamicCache; Qwen2.5-0.5B in bf16 at 2048 tokens:
  // 12,288 B × 2048 = 25,165,824 B of cache (the K and V of 24 layers × 2 heads × 64 in bf16).
  const Report r = evaluate_json(R"({"model": "qwen2.5-7b", "context": 2048, "draft": "qwen2.5-0.5b"})");
  const DraftMemory& d = draft_of(r);
  CHECK(d.kv_cache == 25'165'824);
  CHECK(d.tokens == 20);  // GenerationConfig.num_assistant_tokens
  CHECK(d.total == d.weights + d.kv_cache);
}

TEST_CASE("SGLang: the draft's KV pool holds the target's tokens; from PR #23862 both are solved together") {
  // Per token the pool pays the target's cell and the draft's: t × (1 + L_draft / L_target) for a draft shaped as
  // the target. Llama-3.1-8B's cell 131,072 B and the EAGLE-3 layer's 4,096 B.
  const std::string base = R"({"model": "llama-3.1-8b", "engine": "sglang", "gpu": "h100-sxm", "context": 8192)";
  const Report plain = evaluate_json(base + "}");
  const Report drafted = evaluate_json(with_config(base, kEagle3Llama8b));
  REQUIRE(drafted.estimate.sglang.has_value());
  CHECK(plain.estimate.sglang->cell_bytes == 131'072);
  CHECK(drafted.estimate.sglang->cell_bytes == 131'072 + 4'096);
  CHECK(draft_of(drafted).tokens == 5);  // auto_choose_speculative_params: (5, 4, 8) steps, top-k, draft tokens
  CHECK(drafted.command.find("--speculative-algorithm EAGLE3 --speculative-draft-model-path DRAFT") != std::string::npos);
}

TEST_CASE("The speed with a draft: γ draft steps and one target step, (1 − α^(γ+1)) / (1 − α) tokens") {
  const Report r = evaluate_json(R"({"model": "qwen2.5-7b", "engine": "llamacpp", "weights": "q4_k_m",
                                     "context": 4096, "gpu": "rtx-4090", "draft": "qwen2.5-0.5b",
                                     "draft_tokens": 4, "acceptance": 0.8})");
  REQUIRE(r.serving.has_value());
  REQUIRE(r.serving->speed.has_value());
  REQUIRE(r.serving->speed->draft.has_value());
  const DraftSpeed& s = *r.serving->speed->draft;
  const DecodeSpeed& plain = r.serving->speed->decode;
  CHECK(s.tokens_per_step_low == doctest::Approx(3.3616));
  CHECK(s.step_seconds.low == doctest::Approx(4 * s.draft_step_seconds.low + plain.step_seconds.low));
  CHECK(s.tokens_per_second_per_sequence.high == doctest::Approx(3.3616 / s.step_seconds.low));
  // A draft 14× smaller than the target pays for itself at α 0.8.
  CHECK(s.tokens_per_second_per_sequence.low > plain.tokens_per_second_per_sequence.low);
}

TEST_CASE("mlx_lm --draft-model: the draft's own prompt cache beside the model's") {
  // mlx-lm generate.py @d78bf58e: --num-draft-tokens default 3; speculative_generate_step keeps
  // draft_cache = cache.make_prompt_cache(draft_model). Qwen2.5-0.5B caches 12,288 B a token in bf16.
  const Report r = evaluate_json(R"({"model": "qwen2.5-7b", "engine": "mlx", "context": 4096,
                                     "draft": "qwen2.5-0.5b"})");
  const DraftMemory& d = draft_of(r);
  CHECK(d.tokens == 3);
  CHECK(d.kv_bytes_per_token == 12'288);
  CHECK(d.total == d.weights + d.kv_cache);
  CHECK(d.kv_cache >= 12'288ull * 4096);
}

TEST_CASE("With an MTP draft the checkpoint's MTP layers are loaded, and the note says so") {
  // vLLM loads the checkpoint's MTP layers only for MTP speculative decoding (vllm/config/speculative.py, method
  // "mtp"): without it they are left out of the weights, with it they are the draft's line.
  auto ids = [](const Report& r) {
    std::vector<std::string> out;
    for (const auto& n : r.estimate.notes) out.push_back(n.id);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const char* id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  const auto plain = ids(evaluate_json(R"({"model": "qwen3.5-27b", "engine": "vllm"})"));
  CHECK(has(plain, "import.mtp_in_files"));
  CHECK_FALSE(has(plain, "import.mtp_loaded"));
  const auto mtp = ids(evaluate_json(R"({"model": "qwen3.5-27b", "engine": "vllm", "draft": "mtp"})"));
  CHECK_FALSE(has(mtp, "import.mtp_in_files"));
  CHECK_FALSE(has(mtp, "import.mtp_layers"));
  CHECK(has(mtp, "import.mtp_loaded"));
}

TEST_CASE("A draft read by a client (draft_read) is the draft its config.json gives, named as it was read") {
  // The EAGLE-3 head above, as a client describes it after reading its repository: the same 849,763,584 B.
  std::string escaped;
  for (const char c : std::string(kEagle3Llama8b)) escaped += c == '"' ? std::string("\\\"") : std::string(1, c == '\n' ? ' ' : c);
  const Report r = evaluate_json(R"({"model": "llama-3.1-8b", "engine": "vllm", "draft_tokens": 3,
    "draft": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "draft_read": {"name": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
    "repo": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "config": ")" + escaped + R"("}})");
  const DraftMemory& d = draft_of(r);
  CHECK(d.kind == DraftKind::eagle3);
  CHECK(d.weights == 849'763'584);
  CHECK(d.name == "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B");
  CHECK(r.command.find("\"model\": \"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\"") != std::string::npos);
}

TEST_CASE("A draft read kept once (keep_model_read) answers as its description sent with every request does") {
  // The EAGLE-3 head above (849,763,584 B), kept under the request's own field name as the page keeps it.
  std::string escaped;
  for (const char c : std::string(kEagle3Llama8b)) escaped += c == '"' ? std::string("\\\"") : std::string(1, c == '\n' ? ' ' : c);
  const std::string description = R"({"name": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "config": ")" + escaped + R"("})";
  const auto reads = make_model_reads();
  const std::string kept = keep_model_read(*reads, "draft_read", description);
  CHECK(kept.find(R"("ok":true)") != std::string::npos);
  CHECK(kept.find(R"("name":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B")") != std::string::npos);
  const std::string asked = R"({"model": "llama-3.1-8b", "engine": "vllm", "draft_tokens": 3,
    "draft": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "draft_read": )";
  const std::string by_key = answer(test::catalog(), asked + R"("draft_read"})", reads.get());
  CHECK(by_key == answer(test::catalog(), asked + description + "}"));
  CHECK(by_key.find(R"("weights":849763584)") != std::string::npos);
  // A key kept nowhere, or asked without the kept reads (the CLI's answer), is refused naming the field.
  for (const std::string& refused : {answer(test::catalog(), asked + R"("other"})", reads.get()),
                                     answer(test::catalog(), asked + R"("draft_read"})")}) {
    CHECK(refused.find(R"("field":"draft_read")") != std::string::npos);
    CHECK(refused.find(R"("id":"read.not_kept")") != std::string::npos);
  }
  // A description refused is named under its key, and the key keeps what it held.
  const std::string bad = keep_model_read(*reads, "draft_read", R"({"files": [{"name": "x.gguf", "size": 8, "header": "not base64!"}]})");
  CHECK(bad.find(R"("field":"draft_read.files[0]")") != std::string::npos);
  CHECK(answer(test::catalog(), asked + R"("draft_read"})", reads.get()) == by_key);
  forget_model_read(*reads, "draft_read");
  CHECK(answer(test::catalog(), asked + R"("draft_read"})", reads.get()).find("read.not_kept") != std::string::npos);
}

TEST_CASE("draft_read beside a preset id or mtp in draft is refused: the request names two drafts") {
  for (const char* draft : {"qwen2.5-0.5b", "MTP"}) {
    auto request = request_from_json(std::string(R"({"model": "qwen2.5-7b", "engine": "vllm", "draft_tokens": 3,
      "draft": ")") + draft + R"(", "draft_read": {"name": "x/y", "config": "{\"architectures\": [\"LlamaForCausalLM\"]}"}})");
    REQUIRE(request.ok());
    auto report = evaluate(test::catalog(), request.value());
    REQUIRE_FALSE(report.ok());
    CHECK(report.error().field == "draft_read");
    CHECK(report.error().message.id == "draft.read_beside_preset");
  }
}

TEST_CASE("draft_read and also_read are refused, naming the key, where they say nothing or too little") {
  auto field_of = [](const std::string& json) {
    auto request = request_from_json(json);
    return request.ok() ? std::string() : request.error().field;
  };
  CHECK(field_of(R"({"model": "llama-3.1-8b", "engine": "vllm", "draft_read": {"config": "{}"}})") == "draft_read");
  CHECK(field_of(R"({"model": "llama-3.1-8b", "engine": "vllm", "draft": "x/y", "draft_read": {}})") == "draft_read");
  // A GGUF's first 8 bytes ("GGUF", version 3) of a 1 GB file: its header runs on, and the whole of it is asked for.
  const auto short_header = request_from_json(R"({"model": "llama-3.1-8b", "engine": "llamacpp", "draft": "x.gguf",
    "draft_read": {"files": [{"name": "x.gguf", "size": 1000000000, "header": "R0dVRgMAAAA="}]}})");
  REQUIRE_FALSE(short_header.ok());
  CHECK(short_header.error().field == "draft_read.files");
  CHECK(short_header.error().message.id == "read.header_short");
  CHECK(field_of(R"({"model": "llama-3.1-8b", "engine": "vllm", "draft": "x.gguf",
    "draft_read": {"files": [{"name": "x.gguf", "size": 8, "header": "not base64!"}]}})") == "draft_read.files[0]");
  CHECK(field_of(R"({"model": "llama-3.1-8b", "also": "a/b", "also_read": {"c/d": {"config": "{}"}}})") == "also_read");
  // An engine without a draft refuses draft_read as it refuses draft, by the engines that read it.
  const auto ollama = request_from_json(R"({"model": "llama-3.1-8b", "engine": "ollama", "draft": "x/y",
    "draft_read": {"config": "{}"}})");
  REQUIRE(ollama.ok());
  CHECK_FALSE(ollama.value().draft_read.has_value());
}
