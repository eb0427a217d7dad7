// Ollama's own estimate (llm/memory.go estimateGPULayers, fs/ggml/ggml.go GraphSize, v0.11.10), pinned to the
// "offload" lines Ollama printed. Ollama prints with format.HumanBytes2: binary units, one decimal, so a printed
// "313.0 MiB" is within 0.05 MiB.
#include <string>

#include "engine_reports.hpp"
#include "../validation_rows.hpp"
#include "memory/inference.hpp"
#include "memory/engines/ollama.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;

constexpr double kMiBytes = 1048576.0;
constexpr double kGiBytes = 1073741824.0;

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / kMiBytes; }
double gib(std::uint64_t bytes) { return static_cast<double>(bytes) / kGiBytes; }

const OllamaEstimate& ollama_of(const Report& report) {
  REQUIRE(report.estimate.ollama.has_value());
  return *report.estimate.ollama;
}

}  // namespace

TEST_CASE("Ollama's graph estimate: GraphSize's llama and qwen2 formulas against printed memory.graph figures") {
  // https://github.com/ollama/ollama/issues/8098 (Llama 3.2 3B, --ctx-size 8192 --parallel 4: num_ctx 2048 × 4):
  //   msg="offload to cuda" layers.model=29 layers.offload=29 ... memory.required.kv="896.0 MiB" ...
  //   memory.graph.full="424.0 MiB" memory.graph.partial="570.7 MiB"
  // By hand, b = min(2048, 512) = 512, ctx 8192, emb 3072, 24 heads, 8 KV heads, head 128, vocab 128256:
  //   full = max(4·512·(1 + 4·3072 + 8192·25), 4·512·(3072 + 128256)) = 2048 · 217,089 = 444,598,272 B = 424.0 MiB
  //   partial = 4·512·3072 + max(2048·11,265 + 3072²·9/16 + 4·8192·(512·24 + 128·8), 2048·131,328 + 3072·128256·105/128)
  //           = 6,291,456 + max(464,586,752, 592,164,864) = 598,456,320 B = 570.7 MiB
  OllamaGraphInputs llama{OllamaGraphFormula::llama, 8192, 512, 3072, 24, 8, 128, 128256, 0, false};
  const OllamaGraph g = ollama_graph(llama);
  CHECK(g.full == 444'598'272);
  CHECK(test::within_row(static_cast<double>(g.full), "ollama-llama-3.2-3b-graph"));
  CHECK(g.partial == 598'456'320);
  CHECK(mib(g.partial) == doctest::Approx(570.7).epsilon(0.05 / 570.7));

  // https://github.com/ollama/ollama/issues/5913 (dolphin-qwen2:72b-v2.9.2-q4_k_s, --ctx-size 2048, one 24 GiB GPU):
  //   msg="offload to rocm" layers.requested=-1 layers.model=81 layers.offload=43 ... memory.required.kv="640.0 MiB"
  //   ... memory.graph.full="313.0 MiB" memory.graph.partial="1.3 GiB"
  // qwen2: full = max(4·512·(8192 + 152064), 4·512·(1 + 2·8192 + 2048 + 2048·64)) = 2048 · 160,256 = 328,204,288 B
  // = 313.0 MiB; partial = 328,204,288 + 8192·152064·105/128 = 1,350,074,368 B = 1.26 GiB.
  OllamaGraphInputs qwen2{OllamaGraphFormula::qwen2, 2048, 512, 8192, 64, 8, 128, 152064, 0, false};
  const OllamaGraph q = ollama_graph(qwen2);
  CHECK(q.full == 328'204'288);
  CHECK(test::within_row(static_cast<double>(q.full), "ollama-qwen2.5-72b-graph-full"));
  CHECK(q.partial == 1'350'074'368);
  CHECK(test::within_row(static_cast<double>(q.partial), "ollama-qwen2.5-72b-graph-partial"));

  // Without a formula of its own: GQA × KV / 6 for both; Metal keeps no separate partial graph.
  OllamaGraphInputs generic{OllamaGraphFormula::generic, 4096, 512, 4096, 32, 8, 128, 151936, 6'000'000, false};
  CHECK(ollama_graph(generic).partial == 4'000'000);
  CHECK(ollama_graph(generic).full == 4'000'000);
  llama.metal = true;
  CHECK(ollama_graph(llama).partial == 444'598'272);
}

TEST_CASE("Ollama's placement: last layer first while it fits, one spare layer, the output layer last") {
  // By hand: 5 GiB free, minimum 0.5 GiB, graphs 0.5 GiB, three layers of 1 GiB (weights + KV), output 0.25 GiB.
  // The GPU qualifies (5 ≥ 0.5 + 0.5 + 2 × 1) and starts at 0.5 + 1 (spare) = 1.5; blk.2: 5 > 1.5 + 0.5 + 1 → 2.5;
  // blk.1: 5 > 2.5 + 0.5 + 1 → 3.5; blk.0: 5 > 3.5 + 0.5 + 1 fails, and so the output layer: 2 of 4 on the GPU,
  // memory.required.partial 3.5 + 0.5 = 4 GiB, full 4 + 1 + 0.25 = 5.25 GiB.
  OllamaLayerInputs in;
  in.free_bytes = 5 * kGiB;
  in.minimum_bytes = kGiB / 2;
  in.layer_bytes = {kGiB - kGiB / 8, kGiB - kGiB / 8, kGiB - kGiB / 8};
  in.kv_bytes = {kGiB / 8, kGiB / 8, kGiB / 8};
  in.output_bytes = kGiB / 4;
  in.graph = {kGiB / 2, kGiB / 2};
  const OllamaPlacement p = place_ollama_layers(in);
  CHECK(p.gpu_usable);
  CHECK(p.layers_model == 4);
  CHECK(p.layers_offload == 2);
  CHECK_FALSE(p.fully_loaded);
  CHECK(p.vram_bytes == 4 * kGiB);
  CHECK(p.total_bytes == 5 * kGiB + kGiB / 4);
  // OLLAMA_GPU_OVERHEAD comes off every check: 1 GiB of it leaves room for one layer only.
  in.overhead_bytes = kGiB;
  CHECK(place_ollama_layers(in).layers_offload == 1);
  // num_gpu caps the count; the rest overflows.
  in.overhead_bytes = 0;
  in.num_gpu = 1;
  CHECK(place_ollama_layers(in).layers_offload == 1);
  // A GPU below minimum + graph + two layers (3 GiB here) gets nothing.
  in.num_gpu.reset();
  in.free_bytes = 3 * kGiB - 1;
  CHECK_FALSE(place_ollama_layers(in).gpu_usable);
  CHECK(place_ollama_layers(in).layers_offload == 0);
}

TEST_CASE("Ollama's KV cache: num_ctx × num_parallel, every layer, against printed memory.required.kv") {
  // #8098 above: Llama 3.2 3B, num_ctx 2048, 4 parallel: 8192 × 28 layers × 8 KV heads × (128 + 128) × 2 B =
  // 939,524,096 B; the printed KV and graph are the validation table's rows.
  const Report small = evaluate_json(R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.11.10","context":2048,"batch":4})");
  CHECK(ollama_of(small).kv_bytes == 939'524'096);
  CHECK(test::within_row(static_cast<double>(ollama_of(small).kv_bytes), "ollama-llama-3.2-3b-kv"));
  CHECK(test::within_row(static_cast<double>(ollama_of(small).graph_full_bytes), "ollama-llama-3.2-3b-graph"));
  CHECK(ollama_of(small).graph_formula == "llama");
  // #5913 above (a Qwen2 72B, 80 layers, 8 KV heads): 2048 × 80 × 8 × 256 × 2 B = 671,088,640 B; the printed KV and
  // graphs are the validation table's rows.
  const Report qwen = evaluate_json(R"({"model":"qwen2.5-72b","engine":"ollama","engine_version":"0.11.10","context":2048,"weights":"q4_k_s"})");
  CHECK(ollama_of(qwen).kv_bytes == 671'088'640);
  CHECK(test::within_row(static_cast<double>(ollama_of(qwen).kv_bytes), "ollama-qwen2.5-72b-kv"));
  CHECK(test::within_row(static_cast<double>(ollama_of(qwen).graph_full_bytes), "ollama-qwen2.5-72b-graph-full"));
  CHECK(test::within_row(static_cast<double>(ollama_of(qwen).graph_partial_bytes), "ollama-qwen2.5-72b-graph-partial"));
  // https://github.com/ollama/ollama/issues/9181 (a Llama 70B, num_ctx 64000, flash attention):
  //   layers.model=81 (the printed KV and partial graph: the validation table's rows)
  // 64000 × 80 × 8 × 256 × 2 B = 20,971,520,000 B.
  const Report big = evaluate_json(
      R"({"model":"llama-3.3-70b","engine":"ollama","engine_version":"0.11.10","context":64000,"attention":"sdpa","weights":"q8_0"})");
  CHECK(ollama_of(big).kv_bytes == 20'971'520'000);
  CHECK(ollama_of(big).layers_model == 81);
  CHECK(test::within_row(static_cast<double>(ollama_of(big).kv_bytes), "ollama-llama-70b-64k-kv"));
  CHECK(test::within_row(static_cast<double>(ollama_of(big).graph_partial_bytes), "ollama-llama-70b-64k-graph"));
}

TEST_CASE("Ollama's layers on a GPU: #9181's 11 layers per 22 GiB card at num_ctx 64000") {
  // #9181 above: memory.available="[22.0 GiB 22.0 GiB 22.0 GiB 22.0 GiB]" layers.offload=44 layers.split=11,11,11,11
  // memory.required.allocations="[21.8 GiB ...]": each card checks alone (its minimum, a spare layer, the graph, its
  // layers), so one 22.0 GiB card takes 11 layers of a Q8_0 Llama 70B with 64000 tokens of f16 KV, not the output.
  auto spec = test::preset("llama-3.3-70b");
  InferenceOptions o;
  o.engine = Engine::ollama;
  o.ollama_rule = OllamaRule::num_ctx_4096;  // the estimator, up to 0.11.10
  o.weight_format = parse_weight_format("q8_0").value();
  o.context_tokens = 64000;
  o.attention = Attention::sdpa;
  for (double available : {21.95, 22.05}) {  // "22.0 GiB" as printed
    o.gpu_memory_bytes = static_cast<std::uint64_t>(available * kGiBytes);
    const auto e = estimate_inference(spec, o);
    REQUIRE(e.ok());
    CHECK(e.value().ollama->layers_offload == 11);
    CHECK(gib(e.value().ollama->required_partial_bytes) == doctest::Approx(21.8).epsilon(0.1 / 21.8));
    CHECK(e.value().total == e.value().ollama->required_partial_bytes);
  }
}

TEST_CASE("Ollama's defaults and switches: num_ctx by version, KV quantization only with flash attention") {
  // api.DefaultOptions: NumCtx 2048 up to 0.6.6, 4096 from 0.6.7; flash attention off unless OLLAMA_FLASH_ATTENTION.
  const Report now = evaluate_json(R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.11.10"})");
  CHECK(ollama_of(now).num_ctx == 4096);
  CHECK_FALSE(ollama_of(now).flash_attention);
  const Report old = evaluate_json(R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.5.7"})");
  CHECK(ollama_of(old).num_ctx == 2048);
  bool parallel_noted = false;
  for (const auto& note : old.estimate.notes) parallel_noted = parallel_noted || note.text.find("4 parallel") != std::string::npos;
  CHECK(parallel_noted);
  auto later = request_from_json(R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.12.3"})");
  REQUIRE(later.ok());
  auto refused = evaluate(test::catalog(), later.value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "engine_version");
  // OLLAMA_KV_CACHE_TYPE=q8_0 without flash attention: f16 stays, and a note says so; with it, 1 byte per element.
  const Report ignored = evaluate_json(R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.11.10","kv_dtype":"q8_0"})");
  CHECK(ollama_of(ignored).kv_type_ignored);
  CHECK(ollama_of(ignored).kv_bytes == ollama_of(now).kv_bytes);
  bool noted = false;
  for (const auto& note : ignored.estimate.notes) noted = noted || note.text.find("only with flash attention") != std::string::npos;
  CHECK(noted);
  const Report q8 = evaluate_json(R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.11.10","kv_dtype":"q8_0","attention":"sdpa"})");
  CHECK(ollama_of(q8).kv_bytes * 2 == ollama_of(now).kv_bytes);
  // The command: the server's environment.
  const Report cmd = evaluate_json(
      R"({"model":"llama-3.2-3b","engine":"ollama","engine_version":"0.11.10","context":8192,"kv_dtype":"q8_0","attention":"sdpa"})");
  CHECK(cmd.command == "OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve  # Ollama 0.11.10");
  CHECK(cmd.command_note.text.find("/set parameter num_ctx 8192") != std::string::npos);
}

TEST_CASE("Ollama's layers on one 24 GiB GPU: #5913's 43 of 81 layers of a Qwen2 72B Q4_K_S at num_ctx 2048") {
  // #5913 above: memory.available="[24.0 GiB]" layers.offload=43 memory.required.partial="23.7 GiB"
  // memory.required.allocations="[23.7 GiB]" (an RX 7900 XTX, ROCm: MinimumMemory 457 MiB as CUDA's). That log is
  // Ollama 0.2.x, which walked the layers first to last; 0.11.10 walks them last to first, the same count for layers
  // of one size.
  const Report r = evaluate_json(
      R"({"model":"qwen2.5-72b","engine":"ollama","engine_version":"0.11.10","context":2048,"weights":"q4_k_s","gpu":"rx-7900-xtx"})");
  const OllamaEstimate& c = ollama_of(r);
  CHECK(c.planned);
  CHECK(c.layers_model == 81);
  CHECK(c.layers_offload == 43);
  CHECK(gib(c.required_partial_bytes) == doctest::Approx(23.7).epsilon(0.1 / 23.7));
  // Part of the model runs on the CPU: the GPU alone does not hold it.
  REQUIRE(r.gpus.size() == 1);
  CHECK(r.gpus.front().fit == Fit::does_not_fit);
}

TEST_CASE("Ollama's KV of sliding-window layers: GraphSize's Gemma 3 and gpt-oss rules, against printed memory.required.kv") {
  // https://github.com/ollama/ollama/issues/10341 (gemma3:12b, Ollama 0.6.6, OLLAMA_CONTEXT_LENGTH:2048): "msg=offload
  // library=cuda layers.requested=-1 layers.model=49 layers.offload=49 ... memory.required.kv="608.0 MiB"". By hand
  // from GraphSize: Gemma 3 12B (google/gemma-3-12b-it config.json: 48 layers, 8 KV heads, head_dim 256, window 1024)
  // keeps (256 + 256) × 8 × 2 B = 8 KiB per token and layer; blocks 5, 11, … 47 (8 of them) hold num_ctx 2048 tokens,
  // 8 × 2048 × 8 KiB = 128 MiB, the other 40 hold 1 × 1024 + 512 tokens, 40 × 1536 × 8 KiB = 480 MiB: 608 MiB.
  const Report gemma = evaluate_json(
      R"({"engine":"ollama","engine_version":"0.11.10","context":2048,"config":{"model_type":"gemma3","text_config":{"model_type":"gemma3_text",)"
      R"("hidden_size":3840,"intermediate_size":15360,"num_hidden_layers":48,"num_attention_heads":16,)"
      R"("num_key_value_heads":8,"head_dim":256,"sliding_window":1024,"sliding_window_pattern":6}}})");
  CHECK(ollama_of(gemma).kv_bytes == 608ULL * 1048576);
  CHECK(ollama_of(gemma).layers_model == 49);
  CHECK(ollama_of(gemma).window_layers == 40);
  CHECK(ollama_of(gemma).window_tokens == 1536);
  bool noted = false;
  for (const auto& note : gemma.estimate.notes) noted = noted || note.text.find("1,536 tokens") != std::string::npos;
  CHECK(noted);
  // https://github.com/ollama/ollama/issues/11711 (gpt-oss:20b, num_ctx raised to 8192, q4_0 asked for without flash
  // attention, so f16): "layers.model=25 ... memory.required.kv="300.0 MiB"". By hand: 24 layers, 8 KV heads,
  // head_dim 64: (64 + 64) × 8 × 2 B = 2 KiB per token and layer; the 12 even blocks hold 1 × 4096 + 512 tokens,
  // 12 × 4608 × 2 KiB = 108 MiB, the 12 odd ones 8192, 12 × 8192 × 2 KiB = 192 MiB: 300 MiB.
  const Report oss = evaluate_json(R"({"model":"gpt-oss-20b","engine":"ollama","engine_version":"0.11.10","context":8192})");
  CHECK(ollama_of(oss).kv_bytes == 300ULL * 1048576);
  CHECK(ollama_of(oss).layers_model == 25);
  CHECK(ollama_of(oss).window_tokens == 4608);
  // Gemma 2 slides too, but GraphSize gives it the full context ("Gemma2 also has sliding window attention but we only
  // have an optimized implementation in the Ollama engine"): 42 layers × 4096 × (256 + 256) × 8 × 2 B = 1344 MiB.
  const Report gemma2 = evaluate_json(R"({"model":"gemma-2-9b","engine":"ollama","engine_version":"0.11.10","context":4096})");
  CHECK(ollama_of(gemma2).kv_bytes == 1344ULL * 1048576);
  CHECK(ollama_of(gemma2).window_layers == 0);
}

TEST_CASE("Ollama's Gemma 3 rule: every 6th block full, the others num_parallel × window + batch, whatever fits") {
  // GraphSize: slidingWindow = numParallel × attention.sliding_window + batch, with batch = min(num_ctx, 512), and no
  // cap at the context: at num_ctx 256 the window layers count 1 × 1024 + 256 = 1280 tokens, more than 256.
  const auto tokens = ollama_kv_tokens({OllamaKvRule::gemma3, 12, 256 * 2, 2, 256, 1024});
  REQUIRE(tokens.size() == 12);
  CHECK(tokens[5] == 512);
  CHECK(tokens[11] == 512);
  CHECK(tokens[0] == 2 * 1024 + 256);
  CHECK(tokens[6] == 2 * 1024 + 256);
  const auto oss = ollama_kv_tokens({OllamaKvRule::gpt_oss, 4, 2048, 1, 512, 128});
  CHECK(oss == std::vector<std::uint64_t>{4096 + 512, 2048, 4096 + 512, 2048});
  CHECK(ollama_kv_rule("gemma3_text") == OllamaKvRule::gemma3);
  CHECK(ollama_kv_rule("gemma2") == OllamaKvRule::full);
  CHECK(ollama_kv_rule("gemma3n") == OllamaKvRule::full);
}

TEST_CASE("Ollama's graph for Gemma and gpt-oss: GraphSize's own cases, by hand") {
  // gemma (v0.11.10), Gemma 3 12B at num_ctx 2048 (b 512, emb 3840, 16 heads of 256, vocab 262144):
  // full = max(4·512·(3840 + 262144), 4·512·(2 + 2048 + 2048·16 + 2·3840 + 2·256·16)) = max(544,735,232,
  // 103,813,120); partial = max(4·3840·512 + 3840·262144·105/128 + 4·262144·512, 4·512·(2·3840 + 1 + 2·256·16 +
  // 2048 + 2048·16) + 4·256·2048·8 + 3840·256·16·9/16) = max(1,370,488,832, 129,435,648). Gemma 3n: × 4.
  OllamaGraphInputs gemma{OllamaGraphFormula::gemma, 2048, 512, 3840, 16, 8, 256, 262144, 0, false};
  CHECK(ollama_graph(gemma).full == 544'735'232);
  CHECK(ollama_graph(gemma).partial == 1'370'488'832);
  gemma.formula = OllamaGraphFormula::gemma3n;
  CHECK(ollama_graph(gemma).partial == 4 * 1'370'488'832ULL);
  CHECK(ollama_graph_formula("gemma3_text", false) == OllamaGraphFormula::gemma);
  CHECK(ollama_graph_formula("gemma2", false) == OllamaGraphFormula::gemma);
  // gpt-oss (v0.11.10): partial = 2 × heads / kv_heads_min × kvTotal / 6, kvTotal summed with every block at the
  // full context before the even blocks are cut. gpt-oss-20b at 8192: 24 × 8192 × (64 + 64) × 8 × 2 B = 384 MiB,
  // 2 × 64 / 8 × 384 / 6 = 1024 MiB. The same sum in v0.11.2's "full = 4 × heads / kv × kvTotal / 6, partial = 2 ×
  // full" gives 2048 and 4096 MiB, which #11711 printed (gpt-oss:20b, num_ctx 8192, flash attention off):
  // memory.graph.full="2.0 GiB" memory.graph.partial="4.0 GiB"; with the 300 MiB actually cached it would be 1.6.
  const Report eager = evaluate_json(R"({"model":"gpt-oss-20b","engine":"ollama","engine_version":"0.11.10","context":8192,"attention":"eager"})");
  CHECK(ollama_of(eager).graph_formula == "gpt-oss");
  CHECK(ollama_of(eager).graph_partial_bytes == 1024ULL * 1048576);
  CHECK(ollama_of(eager).graph_full_bytes == 1024ULL * 1048576);  // no full figure: estimateGPULayers takes partial
  // From 0.11.8 gpt-oss turns flash attention on itself (fs/ggml FlashAttention, "model wants flash attention"):
  // the graph is then (4 × num_parallel + ctx / 1024 + 110) MiB = 4 + 8 + 110 = 122 MiB.
  const Report fa = evaluate_json(R"({"model":"gpt-oss-20b","engine":"ollama","engine_version":"0.11.10","context":8192})");
  CHECK(ollama_of(fa).flash_attention);
  CHECK(ollama_of(fa).graph_partial_bytes == 122ULL * 1048576);
  const Report before = evaluate_json(R"({"model":"gpt-oss-20b","engine":"ollama","context":8192,"engine_version":"0.11.7"})");
  CHECK_FALSE(ollama_of(before).flash_attention);
  // No note calls these formulas unmodelled.
  for (const auto& note : fa.estimate.notes) CHECK(note.text.find("not modelled here") == std::string::npos);
}
