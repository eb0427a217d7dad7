// The request/report path shared by the CLI and the page.
#include "../test_support.hpp"
#include "questions/gpu_ranking.hpp"
#include "questions/evaluate_training.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"

using namespace vramfit;

TEST_CASE("a request in JSON evaluates to the same bytes as the struct") {
  auto request = request_from_json(R"({"model":"llama-3.1-8b","weights":"bf16","context":8192,"batch":1})");
  REQUIRE(request.ok());
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE(report.ok());
  // 8,030,261,248 × 2 B = 16,060,522,496 B of weights; 131,072 B × 8192 of KV.
  CHECK(report.value().estimate.weights == 16'060'522'496ULL);
  CHECK(report.value().estimate.kv_cache == 1'073'741'824ULL);
  const std::string json = report_to_json(report.value());
  CHECK(json.find("\"weights\":16060522496") != std::string::npos);
  CHECK(json.find("\"kv_cache\":1073741824") != std::string::npos);
  CHECK(report.value().gpus.size() == test::catalog().gpus.size());
}

TEST_CASE("the model's default context applies when none is given") {
  auto report = evaluate(test::catalog(), request_from_json(R"({"model":"llama-2-7b"})").value());
  REQUIRE(report.ok());
  CHECK(report.value().estimate.context_tokens == 4096);
}

TEST_CASE("bad requests name the field and what is allowed") {
  struct Case {
    const char* json;
    const char* field;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"model":"llama-9000"})", "model", "drop or paste its config.json"},
      {R"({"model":"llama-3.1-8b","weights":"fp12"})", "weights", "use fp32, fp16, bf16, fp8, int8, int4, nf4"},
      {R"({"model":"llama-3.1-8b","kv_dtype":"int4"})", "kv_dtype", "expected one of fp32, fp16, bf16, fp8, q8_0, q4_0"},
      {R"({"model":"llama-3.1-8b","engine":"tgi"})", "engine", "expected one of transformers, vllm, llamacpp, sglang, ollama, mlx"},
      {R"({"model":"llama-3.1-8b","attention":"fast"})", "attention", "expected one of sdpa, eager"},
      {R"({"model":"llama-3.1-8b","engine":"llamacpp","kv_allocation":"paged"})", "kv_allocation", "static"},
      {R"({"model":"llama-3.1-8b","context":-5})", "context", "whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got -5"},
      {R"({"model":"llama-3.1-8b","batch":0})", "batch", "whole number from 1 to 1,000,000; got 0"},
      {R"({"model":"llama-3.1-8b","gpu":"voodoo"})", "gpu", "unknown GPU"},
      {R"({"model":"llama-3.1-8b","headroom":2})", "headroom", "fraction from 0 to 0.9"},
      {R"({"model":"llama-3.1-8b","colour":"red"})", "colour", "not a known input"},
      {R"({})", "model", "give a preset id"},
      {R"({"model":"gpt2","params":7e9})", "model", "only one of"},
      {R"([1,2])", "request", "JSON object"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.json);
    auto request = request_from_json(c.json);
    Error error;
    if (!request) {
      error = request.error();
    } else {
      auto report = evaluate(test::catalog(), request.value());
      REQUIRE_FALSE(report.ok());
      error = report.error();
    }
    CHECK(error.field == c.field);
    CHECK(error.message.text.find(c.fragment) != std::string::npos);
  }
}

TEST_CASE("a hostile model name in an error survives JSON encoding as text") {
  auto report = evaluate(test::catalog(), request_from_json(R"({"model":"<img src=x onerror=alert(1)>"})").value());
  REQUIRE_FALSE(report.ok());
  const std::string json = error_to_json(report.error());
  CHECK(json.find("<img src=x onerror=alert(1)>") != std::string::npos);  // JS renders it with textContent
  CHECK(error_to_json(Error{"model", message("test.bytes", "\xff\xfe")}).find("\"ok\":false") != std::string::npos);
}

TEST_CASE("a config.json in the request is imported") {
  auto request = request_from_json(R"({"config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
      "num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000},"weights":"fp16","context":4096})");
  REQUIRE(request.ok());
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE(report.ok());
  CHECK(report.value().estimate.weights == 6'738'415'616ULL * 2);  // Llama-2-7B in fp16
}

TEST_CASE("the catalog lists serialise for the page") {
  const std::string json = catalog_to_json(test::catalog());
  CHECK(json.find("\"id\":\"llama-3.1-8b\"") != std::string::npos);
  CHECK(json.find("\"id\":\"h100-sxm\"") != std::string::npos);
  CHECK(json.find("\"name\":\"int4\"") != std::string::npos);
}

TEST_CASE("default context is the engine's, never silently the model's maximum") {
  // A config allowing 131,072 tokens: transformers and llama.cpp assume 4096 (llama.cpp PR #10136);
  // vLLM sizes max_model_len to the maximum, as vLLM does, and says so.
  const char* config = R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,
      "num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,"max_position_embeddings":131072})";
  for (const char* engine : {"transformers", "llamacpp", "vllm"}) {
    Request r;
    r.config_json = config;
    r.engine = *parse_engine(engine);
    auto report = evaluate(test::catalog(), r);
    REQUIRE(report.ok());
    CAPTURE(engine);
    CHECK(report.value().estimate.context_tokens == (std::string(engine) == "vllm" ? 131'072u : 4096u));
  }
  // Presets keep their default_context for transformers.
  CHECK(evaluate(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b"})").value()).value().estimate.context_tokens == 8192);
}

TEST_CASE("a GPTQ config's quantization_config sets the weights unless the request names them") {
  // TheBloke/Llama-2-7B-GPTQ config.json: "quantization_config": {"bits": 4, "group_size": 128,
  // "quant_method": "gptq", "desc_act": false, ...}; the parameter count is the unpacked model's.
  auto r = request_from_json(R"({"config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
      "num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000,"torch_dtype":"float16",
      "quantization_config":{"bits":4,"group_size":128,"quant_method":"gptq","desc_act":false}}})");
  REQUIRE(r.ok());
  auto report = evaluate(test::catalog(), r.value());
  REQUIRE(report.ok());
  CHECK(report.value().model.quantization == "gptq-4bit-128g");
  CHECK(report.value().estimate.weights_format == "gptq-4bit-128g");
  CHECK(report.value().estimate.params.total == 6'738'415'616ULL);
  r.value().weights = "fp16";
  CHECK(evaluate(test::catalog(), r.value()).value().estimate.weights == 6'738'415'616ULL * 2);
}

TEST_CASE("vLLM on a GPU reports KV capacity and concurrency in the JSON") {
  auto report = evaluate(test::catalog(),
                         request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":8192})").value());
  REQUIRE(report.ok());
  const std::string json = report_to_json(report.value());
  CHECK(json.find("\"kv_capacity_bytes\":") != std::string::npos);
  CHECK(json.find("\"max_concurrency\":") != std::string::npos);
  CHECK(json.find("\"range\":{\"drivers\"") != std::string::npos);
  const auto& v = *report.value().estimate.vllm;
  CHECK(v.max_num_batched_tokens == 8192);  // vllm serve on an H100: ≥ 70 GiB and not an A100
  CHECK(v.kv_capacity_tokens == v.num_blocks * 16);
}

TEST_CASE("vLLM's fit is bounded by gpu_memory_utilization (regression: the fit ignored it)") {
  // gpu_util 0.2 on an H100 (80 GiB): vLLM may use 0.2 × 85,899,345,920 = 17,179,869,184 B, less than
  // Llama-3.1-8B's 16,060,522,496 B of bf16 weights plus activations, CUDA graphs and a sequence of KV.
  auto report = evaluate(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm",
      "gpu":"h100-sxm","gpu_util":0.2,"context":8192})").value());
  REQUIRE(report.ok());
  CHECK(report.value().gpus.front().fit == Fit::does_not_fit);
  // At the default 0.9 the same model fits.
  auto ok = evaluate(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm",
      "gpu":"h100-sxm","context":8192})").value());
  REQUIRE(ok.ok());
  CHECK(ok.value().gpus.front().fit == Fit::fits);
}

TEST_CASE("the recommendation judges vLLM fits by gpu_memory_utilization as the single scenario does") {
  // gpu_util 0.5: vLLM leaves half of every GPU unused, so the fit line is 1 − 0.5 = 0.5 of usable memory,
  // above the default 10 % headroom. One RTX 4090 (24 GiB × 0.5 = 12.9e9 B) cannot hold Llama-3.1-8B's
  // 16,060,522,496 B of bf16 weights.
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu_util":0.5,"context":4096,
      "gpus":"rtx-4090"})");
  REQUIRE(request.ok());
  auto advice = rank_gpus_for(test::catalog(), request.value());
  REQUIRE(advice.ok());
  CHECK(advice.value().options.headroom == doctest::Approx(0.5));
  bool one_card_fits = false;
  for (const auto& c : advice.value().ranking.configs)
    if (c.count == 1) one_card_fits = c.fits;
  CHECK_FALSE(one_card_fits);
}

TEST_CASE("the parameter count is explained: how it is counted, the published figure and where it came from") {
  auto find = [](const std::vector<Explanation>& xs) -> const Explanation* {
    for (const auto& x : xs)
      if (x.key == "params") return &x;
    return nullptr;
  };
  // Meta's published count for Llama 3.1 8B is 8,030,261,248 (Hugging Face safetensors total).
  auto preset = evaluate(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b"})").value());
  REQUIRE(preset.ok());
  const Explanation* p = find(preset.value().estimate.explanations);
  REQUIRE(p != nullptr);
  CHECK(p->values.text == "8,030,261,248 parameters (published: 8,030,261,248)");
  CHECK(p->source.text.find("meta-llama/Llama-3.1-8B/blob/main/config.json") != std::string::npos);
  CHECK(p->formula.text.find("embeddings") != std::string::npos);
  // The page words it from ids: the repository and the counts travel as values.
  CHECK(p->source.id == "explain.params.source_hf");
  REQUIRE(p->source.args.size() == 1);
  CHECK(p->source.args[0].text == "meta-llama/Llama-3.1-8B");
  CHECK(p->values.id == "explain.params.values_published");
  CHECK(p->formula.id == "explain.params.formula");

  // Mixtral 8x7B: 46.7 B in total, 12.9 B active per token (two of eight experts; Jiang et al. 2024, §2).
  auto moe = evaluate(test::catalog(), request_from_json(R"({"model":"mixtral-8x7b"})").value());
  REQUIRE(moe.ok());
  const auto& counts = moe.value().estimate.params;
  CHECK(counts.total == doctest::Approx(46.7e9).epsilon(0.002));
  CHECK(counts.active == doctest::Approx(12.9e9).epsilon(0.002));
  CHECK(find(moe.value().estimate.explanations)->values.text.find(" active per token") != std::string::npos);

  // A bare count is the user's own figure, not a derivation.
  auto bare = evaluate(test::catalog(), request_from_json(R"({"params":7000000000})").value());
  REQUIRE(bare.ok());
  const Explanation* b = find(bare.value().estimate.explanations);
  REQUIRE(b != nullptr);
  CHECK(b->formula.text == "as given");
  CHECK(b->values.text == "7,000,000,000 parameters");
  CHECK(b->source.text == "the parameter count given");
  CHECK(b->source.id == "explain.params.source_bare");
  CHECK(b->formula.id == "explain.params.formula_bare");

  // Training reports carry it too.
  auto train = evaluate_training(test::catalog(), training_request_from_json(R"({"mode":"lora","model":"llama-2-7b"})").value());
  REQUIRE(train.ok());
  REQUIRE(find(train.value().estimate.explanations) != nullptr);
  CHECK(find(train.value().estimate.explanations)->values.text == "6,738,415,616 parameters (published: 6,738,415,616)");
}

TEST_CASE("a Mac's GPU is one per machine: several of it, or one in a list of cards, is refused at gpus") {
  auto request = request_from_json(R"({"model":"qwen3-8b","engine":"llamacpp","gpu":"apple-m2-ultra-192gb","gpus":2})");
  REQUIRE(request.ok());
  Request listed = request.value();
  listed.gpu.clear();
  listed.gpu_count = 1;
  listed.devices = {"rtx-3090", "apple-m2-ultra-192gb"};  // the CLI's --gpus rtx-3090,apple-m2-ultra-192gb
  for (const Request& r : {request.value(), listed}) {
    const auto report = evaluate(test::catalog(), r);
    REQUIRE_FALSE(report.ok());
    CHECK(report.error().field == "gpus");
    CHECK(report.error().message.text.find("one GPU per machine") != std::string::npos);
  }
}

TEST_CASE("Ollama over several GPUs is refused at tp, naming llama.cpp's layer split as the way") {
  auto request = request_from_json(R"({"model":"qwen3-8b","engine":"ollama","gpu":"rtx-4090","tp":2})");
  REQUIRE(request.ok());
  const auto report = evaluate(test::catalog(), request.value());
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().field == "tp");
  CHECK(report.error().message.text.find("engine llamacpp with gpus") != std::string::npos);
}

TEST_CASE("vLLM and SGLang on a Mac are refused, naming the engine and what runs there; their tables hold no Mac") {
  // vLLM's platforms are CUDA, ROCm, TPU, XPU and CPU (vllm/platforms/__init__.py), SGLang's CUDA and ROCm: neither
  // has a Metal backend, so a memory verdict on an Apple GPU would be for a run that cannot start.
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    auto request = request_from_json(std::string(R"({"model":"llama-3.1-8b","gpu":"apple-m2-ultra-192gb","engine":")") +
                                     engine + "\"}");
    REQUIRE(request.ok());
    const auto report = evaluate(test::catalog(), request.value());
    REQUIRE_FALSE(report.ok());
    CHECK(report.error().field == "engine");
    const std::string text = report.error().message.text;
    CHECK(text.find(std::string(engine) == "vllm" ? "vLLM has no Apple GPU backend" : "SGLang has no Apple GPU backend") !=
          std::string::npos);
    CHECK(text.find("llama.cpp / Ollama / MLX") != std::string::npos);  // the engines that run on Apple GPUs
    CHECK(report.error().message.id == "engine.no_apple_backend");
    // Without a GPU, the table of every GPU leaves the Macs out under these engines, and keeps them under llama.cpp.
    auto all = evaluate(test::catalog(), request_from_json(std::string(R"({"model":"llama-3.1-8b","engine":")") +
                                                           engine + "\"}").value());
    REQUIRE(all.ok());
    for (const GpuFit& row : all.value().gpus) CHECK(row.gpu->vendor != "Apple");
  }
  auto llamacpp = evaluate(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b","engine":"llamacpp"})").value());
  REQUIRE(llamacpp.ok());
  CHECK(llamacpp.value().gpus.size() == test::catalog().gpus.size());
}

TEST_CASE("gpu_util is vLLM's: refused with engines that do not read it, the version's default only under vLLM") {
  for (const char* engine : {"transformers", "llamacpp", "sglang", "ollama", "mlx"}) {
    CAPTURE(engine);
    auto request = request_from_json(std::string(R"({"model":"llama-3.1-8b","gpu_util":0.8,"engine":")") + engine + "\"}");
    REQUIRE(request.ok());
    const auto report = evaluate(test::catalog(), request.value());
    REQUIRE_FALSE(report.ok());
    CHECK(report.error().field == "gpu_util");
    CHECK(report.error().message.id == "engine.input_not_read");
    CHECK(report.error().message.text.find("applies to vLLM only") != std::string::npos);
  }
  // Without it, vLLM takes its version's default (vllm/engine/arg_utils.py: 0.9; 0.92 from v0.21, PR #38284, still
  // CacheConfig's default at v0.27), which the fit line then keeps free: 1 − 0.9 = 0.1 and, with no headroom of its
  // own asked for, 1 − 0.92 = 0.08.
  auto old = resolve_request(
      test::catalog(), request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.11"})").value());
  REQUIRE(old.ok());
  CHECK(old.value().options.gpu_util == doctest::Approx(0.9));
  CHECK(old.value().fit_headroom == doctest::Approx(0.1));
  auto now = resolve_request(test::catalog(),
                             request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.21","headroom":0})").value());
  REQUIRE(now.ok());
  CHECK(now.value().options.gpu_util == doctest::Approx(0.92));
  auto latest = resolve_request(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm"})").value());
  REQUIRE(latest.ok());
  CHECK(latest.value().options.gpu_util == doctest::Approx(0.92));
  CHECK(now.value().fit_headroom == doctest::Approx(0.08));
  auto given = resolve_request(
      test::catalog(), request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.21","gpu_util":0.7})").value());
  REQUIRE(given.ok());
  CHECK(given.value().options.gpu_util == doctest::Approx(0.7));
}

namespace {
bool has_note(const Report& report, std::string_view text) {
  for (const auto& note : report.model.notes)
    if (note.text.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("an Ollama tag runs under Ollama with the weights the tag ships, unless the request names the engine") {
  // `ollama pull llama3.1:8b` pulls its Q4_K_M file (devtoolkit.sh's Ollama quantization page, cited in models.json).
  auto tagged = evaluate(test::catalog(), request_from_json(R"({"model":"llama3.1:8b"})").value());
  REQUIRE(tagged.ok());
  CHECK(tagged.value().estimate.engine == Engine::ollama);
  CHECK(tagged.value().estimate.weights_format == "q4_k_m");
  CHECK(has_note(tagged.value(), "Ollama's llama3.1:8b: the engine is Ollama, as that name runs there; choose another "
                                 "engine to compare."));
  CHECK(has_note(tagged.value(), "Ollama's llama3.1:8b ships Q4_K_M weights (https://devtoolkit.sh/examples/llama/quantization)."));
  // The same model asked by its id is the checkpoint, under the default engine.
  auto by_id = evaluate(test::catalog(), request_from_json(R"({"model":"llama-3.1-8b"})").value());
  REQUIRE(by_id.ok());
  CHECK(by_id.value().estimate.engine == Engine::transformers);
  CHECK(by_id.value().estimate.weights_format == "bf16");
  // An engine given is kept; llama.cpp runs the same GGUF file, the others the checkpoint.
  auto llamacpp = evaluate(test::catalog(), request_from_json(R"({"model":"llama3.1:8b","engine":"llamacpp"})").value());
  REQUIRE(llamacpp.ok());
  CHECK(llamacpp.value().estimate.engine == Engine::llamacpp);
  CHECK(llamacpp.value().estimate.weights_format == "q4_k_m");
  CHECK_FALSE(has_note(llamacpp.value(), "the engine is Ollama"));
  auto vllm = evaluate(test::catalog(), request_from_json(R"({"model":"llama3.1:8b","engine":"vllm"})").value());
  REQUIRE(vllm.ok());
  CHECK(vllm.value().estimate.engine == Engine::vllm);
  CHECK(vllm.value().estimate.weights_format == "bf16");
  // Weights asked for win over the tag's.
  auto q8 = evaluate(test::catalog(), request_from_json(R"({"model":"llama3.1:8b","weights":"q8_0"})").value());
  REQUIRE(q8.ok());
  CHECK(q8.value().estimate.engine == Engine::ollama);
  CHECK(q8.value().estimate.weights_format == "q8_0");
}

TEST_CASE("an Ollama tag whose weights no source gives says they are assumed, and which") {
  // qwen3:32b lists no quant in models.json: Q4_K_M is assumed and said so.
  auto tagged = evaluate(test::catalog(), request_from_json(R"({"model":"qwen3:32b"})").value());
  REQUIRE(tagged.ok());
  CHECK(tagged.value().estimate.engine == Engine::ollama);
  CHECK(tagged.value().estimate.weights_format == "q4_k_m");
  CHECK(has_note(tagged.value(), "Which weights Ollama's qwen3:32b ships is not known offline: they are counted as "
                                 "Q4_K_M, assumed;"));
  // gpt-oss's checkpoint is MXFP4: the assumption is the GGUF type that checkpoint converts to, not Q4_K_M.
  auto oss = evaluate(test::catalog(), request_from_json(R"({"model":"gpt-oss:20b"})").value());
  REQUIRE(oss.ok());
  CHECK(oss.value().estimate.engine == Engine::ollama);
  CHECK(has_note(oss.value(), "they are counted as mxfp4_moe, assumed"));
}

TEST_CASE("a looked-up file named as an Ollama tag runs under Ollama unless an engine is given") {
  // A config stands in for the file's header: the rule reads the name, not the model.
  const std::string config = R"("config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
      "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256})";
  auto r = request_from_json("{" + config + R"(,"ollama_tag":"phi4:14b"})");
  REQUIRE(r.ok());
  CHECK(r.value().ollama_tag == "phi4:14b");
  auto report = evaluate(test::catalog(), r.value());
  REQUIRE(report.ok());
  CHECK(report.value().estimate.engine == Engine::ollama);
  CHECK(has_note(report.value(), "Ollama's phi4:14b: the engine is Ollama"));
  auto given = request_from_json("{" + config + R"(,"ollama_tag":"phi4:14b","engine":"transformers"})");
  CHECK(evaluate(test::catalog(), given.value()).value().estimate.engine == Engine::transformers);
}

TEST_CASE("a release after the newest one read is estimated by that one's rules, and a note says so") {
  // SGLang's newest rule is 0.5.10's, Ollama's 0.32.15's (the llama.cpp build it bundles, b10488), mlx-lm's 0.31.3's:
  // each takes every later version. vLLM refuses one after 0.27, llama.cpp a build after b10488: no note there.
  CHECK(version_after("v0.5.11", "0.5.10"));
  CHECK(version_after("0.6", "0.5.10"));
  CHECK(version_after("1.0.0", "0.32.15"));
  CHECK_FALSE(version_after("0.5.10", "0.5.10"));
  CHECK_FALSE(version_after("0.5.10rc1", "0.5.10"));
  CHECK_FALSE(version_after("0.5.10.post1", "0.5.10"));
  CHECK_FALSE(version_after("0.5.9", "0.5.10"));
  CHECK_FALSE(version_after("", "0.5.10"));
  struct Case {
    const char* json;
    const char* text;  // the note's English, "" where there is none
  };
  const Case cases[] = {
      {R"({"model":"llama-3.1-8b","engine":"sglang","engine_version":"v0.5.12"})",
       "SGLang 0.5.12 is estimated by the rules of 0.5.10, the newest release read for this estimate; what changed "
       "after it is not counted."},
      {R"({"model":"llama-3.1-8b","engine":"sglang","engine_version":"0.5.10"})", ""},
      {R"({"model":"llama-3.1-8b","engine":"sglang"})", ""},
      {R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.33.0"})",
       "Ollama 0.33.0 is estimated by the rules of 0.32.15, the newest release read for this estimate; what changed "
       "after it is not counted."},
      {R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.32.15"})", ""},
      {R"({"model":"qwen3-0.6b","engine":"mlx","engine_version":"0.32.0"})",
       "mlx-lm 0.32.0 is estimated by the rules of 0.31.3, the newest release read for this estimate; what changed "
       "after it is not counted."},
      {R"({"model":"qwen3-0.6b","engine":"mlx","engine_version":"0.31.3"})", ""},
      {R"({"model":"llama-3.1-8b","engine":"vllm","engine_version":"0.27.2"})", ""},
  };
  for (const Case& c : cases) {
    auto report = evaluate(test::catalog(), request_from_json(c.json).value());
    REQUIRE_MESSAGE(report.ok(), c.json);
    std::string text;
    for (const auto& note : report.value().estimate.notes)
      if (note.id == "engine.version_after_newest") text = note.text;
    CHECK_MESSAGE(text == c.text, c.json);
  }
}

TEST_CASE("vLLM, SGLang and llama.cpp's --fit say the total they start from in one clause per driver, worded once") {
  // data/gpus.json: the RTX 4090's 23.49 GiB is torch's total under CUDA, the MI300X's 191.98 GiB torch's under ROCm
  // ("torch (ROCm) OOM 'GPU 0 has a total capacity of 191.98 GiB'"): an AMD card's clause names ROCm, not CUDA.
  struct Case {
    const char* gpu;
    const char* total;
    const char* driver;
    const char* clause_id;
  };
  const Case gpus[] = {{"rtx-4090", "23.49 GiB", "CUDA", "engine.cuda_total"},
                       {"mi300x", "191.98 GiB", "ROCm", "engine.rocm_total"}};
  const char* engines[][2] = {{"vllm", "vllm.driver_total"},
                              {"sglang", "sglang.driver_total"},
                              {"llamacpp", "llamacpp.fit_driver_total"}};
  for (const Case& g : gpus)
    for (const auto& [engine, id] : engines) {
      const std::string json = std::string(R"({"model":"llama-3.1-8b","engine":")") + engine + R"(","gpu":")" + g.gpu +
                               R"("})";
      auto report = evaluate(test::catalog(), request_from_json(json).value());
      REQUIRE_MESSAGE(report.ok(), json);
      const Message* note = nullptr;
      for (const auto& n : report.value().estimate.notes)
        if (n.id == id) note = &n;
      REQUIRE_MESSAGE(note, json);
      // The total, then the clause as the JSON carries it: a message of its own.
      const std::string said = std::string(g.total) + ", the total " + g.driver +
                               " reports for this GPU under Linux: less than the memory the card is sold with, by "
                               "what the driver keeps.";
      CHECK_MESSAGE(note->text.find(said) != std::string::npos, json);
      const MessageArg clause = arg_named(*note, "cuda_total");
      CHECK(clause.kind == MessageArg::Kind::message);
      REQUIRE(clause.nested.size() == 1);
      CHECK(clause.nested.front().id == g.clause_id);
    }
}
