// Inference totals: the seed article's examples with their arithmetic, and the breakdown's shape.
#include "../test_support.hpp"
#include "memory/inference.hpp"

using namespace vramfit;

namespace {
ModelSpec bare(std::uint64_t params) {
  ModelSpec s;
  s.bare_params = params;
  return s;
}
std::uint64_t weights_of(std::uint64_t params, DType dtype) {
  InferenceOptions o;
  o.weights = dtype;
  auto e = estimate_inference(bare(params), o);
  REQUIRE(e.ok());
  return e.value().weights;
}
}  // namespace

TEST_CASE("seed article: a 7B model needs 14 GB in FP16, 7 GB in INT8, 3.5 GB in INT4") {
  CHECK(weights_of(7'000'000'000, DType::fp16) == 14'000'000'000ULL);  // 7e9 × 2 B
  CHECK(weights_of(7'000'000'000, DType::int8) == 7'000'000'000ULL);   // 7e9 × 1 B
  CHECK(weights_of(7'000'000'000, DType::int4) == 3'500'000'000ULL);   // 7e9 × 0.5 B
  CHECK(weights_of(7'000'000'000, DType::fp32) == 28'000'000'000ULL);  // 7e9 × 4 B: FP16 halves FP32
}

TEST_CASE("seed article: 13B in FP16 is 26 GB, 70B is 140 GB, 1T is 2 TB") {
  CHECK(weights_of(13'000'000'000, DType::fp16) == 26'000'000'000ULL);
  CHECK(weights_of(70'000'000'000, DType::fp16) == 140'000'000'000ULL);
  CHECK(weights_of(1'000'000'000'000, DType::fp16) == 2'000'000'000'000ULL);
}

TEST_CASE("the real Llama-2-70B weighs 137.95 GB in FP16") {
  // 68,976,648,192 params × 2 B = 137,953,296,384 B: the article's "140 GB" rounds 70B.
  InferenceOptions o;
  o.weights = DType::fp16;
  o.context_tokens = 4096;
  auto e = estimate_inference(test::preset("llama-2-70b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().weights == 137'953'296'384ULL);
}

TEST_CASE("the total is the sum of its lines, and every line is explained") {
  InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  const auto& v = e.value();
  CHECK(v.total == v.weights + v.kv_cache + v.activations + v.overhead + v.allocator_reserve);
  CHECK(v.kv_cache == 1'073'741'824ULL);  // 131,072 B × 8192
  // CUDA context 512 MiB + cuBLAS workspace 32 MiB (NVIDIA's cublasSetWorkspace figure for Hopper): the
  // overhead line carries the context and the library workspace the engine profile adds.
  CHECK(v.overhead == 544ULL * 1024 * 1024);
  CHECK(v.range.low <= v.total);
  CHECK(v.range.high >= v.total);
  for (const char* key : {"weights", "kv_cache", "activations", "overhead", "allocator_reserve", "total"}) {
    bool found = false;
    for (const auto& x : v.explanations) found = found || x.key == key;
    CHECK_MESSAGE(found, key);
  }
}

TEST_CASE("prefill activations of Llama-3.1-8B at 8192 tokens follow the per-layer peak") {
  // MLP live set b·s·(2h + 3i)·2 B = 8192 × (8192 + 43008) × 2 = 838,860,800 B
  // (attention: 2h + 2·a·d + 2·kv·d = 8192 + 8192 + 2048 = 18,432 wide, smaller),
  // plus last-token fp32 logits 128,256 × 4 = 513,024 B → 839,373,824 B.
  InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().activations == 839'373'824ULL);
}

TEST_CASE("inputs out of range are refused with the field and the allowed range") {
  InferenceOptions o;
  o.context_tokens = 0;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "context");
  CHECK(e.error().message.text.find("between 1 and") != std::string::npos);
  o.context_tokens = 10;
  o.batch = 0;
  e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "batch");
}

TEST_CASE("huge batch × context does not wrap around") {
  InferenceOptions o;
  o.context_tokens = kMaxContextTokens;
  o.batch = kMaxBatch;
  auto e = estimate_inference(test::preset("llama-3.1-405b"), o);
  // 1e8 tokens × 1e6 sequences × 516,096 B per token overflows 2^64: an error, not a small number.
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "context");
}

TEST_CASE("with an architecture, int4 keeps embeddings and lm_head in 16 bits; a bare count cannot") {
  // Llama-2-7B: 6,738,415,616 params; embed_tokens and lm_head are 32,000 × 4096 = 131,072,000 each.
  // Linear layers 6,738,415,616 − 262,144,000 − norms (65 × 4096 = 266,240) = 6,476,005,376 at 4 bits
  // = 3,238,002,688 B; embeddings, lm_head and norms in bf16: (262,144,000 + 266,240) × 2 = 524,820,480 B.
  InferenceOptions o;
  o.weights = DType::int4;
  auto e = estimate_inference(test::preset("llama-2-7b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().weights == 3'238'002'688ULL + 524'820'480ULL);
  // The seed's 3.5 GB for a bare 7B holds because a bare count has no tensor roles: 7e9 × 0.5 B.
  CHECK(weights_of(7'000'000'000, DType::int4) == 3'500'000'000ULL);
}

TEST_CASE("eager attention adds the s² scores, their fp32 softmax and the cast back") {
  // Llama-3.1-8B, b = 1, s = 4096, bf16: scores 32 × 4096² × (2 + 4 + 2) = 4,294,967,296 B, causal mask
  // 4096² × 2 = 33,554,432 B; the attention phase (18,432 wide × 4096 × 2 = 150,994,944 B) plus them beats
  // the MLP phase (51,200 × 4096 × 2 = 419,430,400 B): 4,479,516,672 B + last-token logits 513,024 B.
  InferenceOptions o;
  o.context_tokens = 4096;
  o.attention = Attention::eager;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().attention_scores == 4'294'967'296ULL + 33'554'432ULL);
  CHECK(e.value().activations == 150'994'944ULL + 4'328'521'728ULL + 513'024ULL);
  o.attention = Attention::sdpa;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).value().attention_scores == 0);
}

TEST_CASE("llama.cpp compute buffer matches Llama-3-8B logs with -fa off") {
  // developer0hye/llama-3-korean-bllossom-8b-q4-docker README (Llama-3-8B Q4_K_M, n_ctx 512, n_ubatch 512):
  //   "CUDA0 compute buffer size = 258.50 MiB" = 512 × (128,256 + 4096) × 4 = 271,056,896 B (logits phase).
  // ollama logs of the same model at n_ctx 8192 (e.g. ollama/ollama runner logs, 2024-08): "560.00 MiB"
  //   = 512 × (8192 × 32 × 4 + 8192 × 4 + 16 × 4096) = 587,202,560 B (KQ phase).
  CHECK(detail::llamacpp_compute_buffer(512, 512, 32, 4096, 128'256, 14'336, false) == 271'056'896ULL);
  CHECK(detail::llamacpp_compute_buffer(512, 8192, 32, 4096, 128'256, 14'336, false) == 587'202'560ULL);
  // With -fa on the KQ matrix is never materialised: the logits phase wins again.
  CHECK(detail::llamacpp_compute_buffer(512, 8192, 32, 4096, 128'256, 14'336, true) == 271'056'896ULL);
}

TEST_CASE("llama.cpp keeps token embeddings in RAM: the log's 4403.49 MiB GPU + 281.81 MiB CPU buffers") {
  // Same log: "CPU buffer size = 281.81 MiB" (token_embd Q4_K: 525,336,576 × 4.5 / 8 = 295,501,824 B) and
  // "CUDA0 buffer size = 4403.49 MiB" (4,617,396,224 B); output buffer 0.49 MiB = 128,256 × 4 B (host).
  InferenceOptions o;
  o.engine = Engine::llamacpp;
  o.weight_format = parse_weight_format("q4_k_m").value();
  o.context_tokens = 512;
  o.attention = Attention::eager;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  const auto& v = e.value();
  REQUIRE(v.llamacpp.has_value());
  CHECK(v.weights == 4'617'396'224ULL);
  CHECK(v.llamacpp->host_weights_bytes == 295'501'824ULL);
  CHECK(v.llamacpp->output_buffer_bytes == 513'024ULL);
  CHECK(v.kv_cache == 64ULL * 1024 * 1024);  // "KV self size = 64.00 MiB" at n_ctx 512
  CHECK(v.activations == 271'056'896ULL);
  // -ngl 16 of 32 layers: half the repeating layers' KV and weights move to RAM, the output layer too.
  o.gpu_layers = 16;
  auto half = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(half.ok());
  CHECK(half.value().kv_cache == 32ULL * 1024 * 1024);
  CHECK(half.value().llamacpp->host_kv_bytes == 32ULL * 1024 * 1024);
  CHECK(half.value().weights + half.value().llamacpp->host_weights_bytes == v.weight_detail.total);
}

TEST_CASE("vLLM's KV capacity arithmetic reproduces its memory-profiling log") {
  // Qwen3-4B log (vLLM worker.py): total_gpu_memory 12.00 GiB × 0.95 = 11.40 GiB; weights 7.56 GiB,
  // non_torch 0.04 GiB, activation peak 0.74 GiB → KV 3.06 GiB; "# cuda blocks: 1394"; concurrency for
  // 10,000 tokens 2.23x. Qwen3-4B KV: 2 × 8 × 128 × 2 B × 36 layers = 147,456 B/token → 2,359,296 B/block.
  // The log rounds to 0.01 GiB (± 0.005 GiB ≈ ± 2.3 blocks), so the blocks agree within 3.
  const auto gib = [](double g) { return static_cast<std::uint64_t>(g * 1073741824.0); };
  const auto c = detail::vllm_kv_capacity(gib(12.00), 0.95, gib(7.56), gib(0.74), gib(0.04), 147'456, 10'000);
  CHECK(c.block_bytes == 2'359'296ULL);
  CHECK(c.num_blocks >= 1391);
  CHECK(c.num_blocks <= 1397);
  CHECK(c.concurrency_ratio == doctest::Approx(2.23).epsilon(0.005));
  CHECK(c.max_concurrency == 2);  // 1394 blocks / ceil(10,000 / 16) = 625 blocks per sequence
  // Hand arithmetic: 80 GiB × 0.9 = 77,309,411,328 B; minus 16 GiB weights (17,179,869,184), 2 GiB peak
  // (2,147,483,648) and 0.25 GiB non-torch (268,435,456) = 57,713,623,040 B; 131,072 B/token × 16 =
  // 2,097,152 B/block → 27,520 blocks = 440,320 tokens; a sequence of 8192 tokens takes 512 blocks: 53 fit.
  const auto h = detail::vllm_kv_capacity(80 * 1073741824ULL, 0.9, 16 * 1073741824ULL, 2 * 1073741824ULL, 268'435'456ULL,
                                  131'072, 8192);
  CHECK(h.kv_capacity_bytes == 57'713'623'040ULL);
  CHECK(h.num_blocks == 27'520);
  CHECK(h.kv_capacity_tokens == 440'320);
  CHECK(h.max_concurrency == 53);
}

TEST_CASE("paged allocation costs at most one partial block per sequence; static reserves the context") {
  // Llama-3.1-8B, 8 sequences, context 8192, average 1000 tokens: static 8 × 8192 × 131,072 B =
  // 8,589,934,592 B; paged 8 × ceil(1000 / 16) × 16 = 8 × 1008 tokens × 131,072 B = 1,056,964,608 B.
  InferenceOptions o;
  o.context_tokens = 8192;
  o.batch = 8;
  o.avg_tokens = 1000;
  o.kv_allocation = KvAllocation::paged;
  auto e = estimate_inference(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().kv_allocation.static_bytes == 8'589'934'592ULL);
  CHECK(e.value().kv_allocation.paged_bytes == 1'056'964'608ULL);
  CHECK(e.value().kv_cache == 1'056'964'608ULL);
}

TEST_CASE("the PyTorch allocator rounds large blocks to 2 MiB and packs small ones into segments") {
  detail::TorchReserve r;
  r.add(11 * 1024 * 1024 + 1);  // ≥ 10 MiB: own segment, rounded to 12 MiB
  CHECK(r.reserved() == 12ULL * 1024 * 1024);
  detail::TorchReserve small;
  small.add(1000, 3);  // 3 × 1024 B (512-B granules) in one 2 MiB segment
  CHECK(small.reserved() == 2ULL * 1024 * 1024);
  detail::TorchReserve mid;
  mid.add(5 * 1024 * 1024, 5);  // 25 MiB of 1–10 MiB blocks: two 20 MiB segments
  CHECK(mid.reserved() == 40ULL * 1024 * 1024);
}

TEST_CASE("every engine's total carries a range around it") {
  for (Engine engine : {Engine::transformers, Engine::vllm, Engine::llamacpp}) {
    InferenceOptions o;
    o.engine = engine;
    o.context_tokens = 4096;
    auto e = estimate_inference(test::preset("qwen2.5-7b"), o);
    REQUIRE(e.ok());
    CAPTURE(engine_name(engine));
    CHECK(e.value().range.low <= e.value().total);
    CHECK(e.value().range.high > e.value().total);
    CHECK_FALSE(e.value().range.drivers.empty());
  }
}

TEST_CASE("quantized KV types are llama.cpp's; fp8 is not") {
  InferenceOptions o;
  o.kv_dtype = KvDType::q8_0;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).error().field == "kv_dtype");
  o.engine = Engine::llamacpp;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).ok());
  o.kv_dtype = KvDType::fp8;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).error().field == "kv_dtype");
}

TEST_CASE("the allocator reserve sees every tensor of a 70B model (regression: 64-bit overflow dropped them)") {
  // Llama-3.1-70B bf16 at its preset context 8192: weights 70,553,706,496 × 2 = 141,107,412,992 B and
  // KV 2 × 8 × 128 × 2 B × 80 layers × 8192 = 2,684,354,560 B: 143,791,767,552 B requested in all. The
  // per-tensor share elements × total / params overflowed 64 bits for the 1e9-element embedding.
  InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-70b"), o);
  REQUIRE(e.ok());
  bool found = false;
  for (const auto& x : e.value().explanations)
    if (x.key == "allocator_reserve") found = x.values.text.find("143,791,767,552 B requested") != std::string::npos;
  CHECK(found);
}

namespace {
const MessageArg* arg_of(const Message& m, std::string_view name) {
  for (const auto& a : m.args)
    if (a.name == name) return &a;
  return nullptr;
}
}  // namespace

TEST_CASE("the breakdown's explanations carry message ids and their figures exact, for the page to word") {
  // Llama-3.1-70B bf16 at 8192 tokens: KV per token and layer 2 × 8 kv_heads × 128 × 2 B = 4,096 B, over 80 layers
  // × 8192 tokens = 655,360 token·layers, 2,684,354,560 B; with the weights 143,791,767,552 B requested.
  InferenceOptions o;
  o.context_tokens = 8192;
  auto e = estimate_inference(test::preset("llama-3.1-70b"), o);
  REQUIRE(e.ok());
  for (const auto& x : e.value().explanations) {
    CAPTURE(x.key);
    CHECK_FALSE(x.formula.id.empty());
    CHECK_FALSE(x.values.id.empty());
    CHECK_FALSE(x.source.id.empty());
    if (x.key == "kv_cache") {
      CHECK(x.values.id == "explain.kv_cache.values");
      CHECK(x.values.text == "1 × 655,360 token·layers (tokens 8,192) × 4,096 B = 2,684,354,560 B (bf16)");
      REQUIRE(arg_of(x.values, "kv") != nullptr);
      CHECK(arg_of(x.values, "kv")->integer == 2'684'354'560);
      CHECK(arg_of(x.values, "per_token")->integer == 4'096);
      CHECK(arg_of(x.values, "dtype")->text == "bf16");
    }
    if (x.key == "allocator_reserve") {
      REQUIRE(arg_of(x.values, "requested") != nullptr);
      CHECK(arg_of(x.values, "requested")->integer == 143'791'767'552);
    }
  }
}

TEST_CASE("skipping the explanation text (curves) changes no number") {
  InferenceOptions o;
  o.context_tokens = 4096;
  o.attention = Attention::eager;
  const auto with = estimate_inference(test::preset("mixtral-8x7b"), o);
  o.explain = false;
  const auto without = estimate_inference(test::preset("mixtral-8x7b"), o);
  REQUIRE((with.ok() && without.ok()));
  CHECK(without.value().explanations.empty());
  CHECK_FALSE(with.value().explanations.empty());
  CHECK(without.value().weights == with.value().weights);
  CHECK(without.value().kv_cache == with.value().kv_cache);
  CHECK(without.value().activations == with.value().activations);
  CHECK(without.value().allocator_reserve == with.value().allocator_reserve);
  CHECK(without.value().total == with.value().total);
}
