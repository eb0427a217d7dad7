// The command an estimate comes with, flag by flag as the engines' docs spell them:
// vLLM https://docs.vllm.ai/en/latest/configuration/engine_args.html (--tensor-parallel-size, --max-model-len,
// --gpu-memory-utilization default 0.92, 0.9 up to 0.20, --kv-cache-dtype auto|fp8, --max-num-seqs, --quantization fp8);
// llama-server https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md (-m, -c, -np, -ngl,
// --n-cpu-moe, -fa on|off|auto, -ctk/-ctv).
#include <nlohmann/json.hpp>
#include <span>  // std::span
#include "../file_builders.hpp"
#include "../test_support.hpp"
#include "json/answer.hpp"
#include "json/request.hpp"
#include "questions/command_line.hpp"

using namespace vramfit;

namespace {

Report report_for(const std::string& json) {
  auto request = request_from_json(json);
  REQUIRE_MESSAGE(request.ok(), json);
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE_MESSAGE(report.ok(), json << ": " << (report.ok() ? "" : report.error().message.text));
  return std::move(report).value();
}

}  // namespace

TEST_CASE("vLLM's command names only the settings that differ from vLLM's defaults") {
  const Report plain = report_for(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm"})");
  // The version whose defaults the flags are measured against closes the line as a shell comment.
  CHECK(plain.command == "vllm serve meta-llama/Llama-3.1-8B  # vLLM 0.27");
  const Report tuned = report_for(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","tp":2,"context":16000,)"
                                  R"("gpu_util":0.85,"kv_dtype":"fp8","max_num_seqs":64,"weights":"fp8"})");
  CHECK(tuned.command ==
        "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --max-model-len 16000 "
        "--gpu-memory-utilization 0.85 --kv-cache-dtype fp8 --max-num-seqs 64 --quantization fp8  # vLLM 0.27");
  // Up to 0.20 gpu_memory_utilization defaults to 0.9 (EngineArgs): 0.9 is no flag there, 0.92 is one.
  const Report old = report_for(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","engine_version":"0.11",)"
                                R"("gpu_util":0.9})");
  CHECK(old.command == "vllm serve meta-llama/Llama-3.1-8B  # vLLM 0.11");
  const Report raised = report_for(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","engine_version":"0.20",)"
                                   R"("gpu_util":0.92})");
  CHECK(raised.command == "vllm serve meta-llama/Llama-3.1-8B --gpu-memory-utilization 0.92  # vLLM 0.20");
}

TEST_CASE("llama-server's command spells out the fit plan: context, layers and --n-cpu-moe") {
  // The 16 GB case of test_llamacpp_fit.cpp: context 4096, the experts of 38 layers in RAM.
  const Report fit = report_for(R"({"model":"qwen3-30b-a3b","engine":"llamacpp","weights":"f16","gpu":"rtx-4060-ti-16gb"})");
  CHECK(fit.command == "llama-server -m Qwen3-30B-A3B-F16.gguf -c 4096 -ngl 48 --n-cpu-moe 38  # llama.cpp b10488");
  // Without a GPU there is no plan: the request's own context (cells for every sequence), -np and cache types.
  const Report no_gpu = report_for(R"({"model":"qwen3-30b-a3b","engine":"llamacpp","weights":"q4_k_m","context":8192,)"
                                   R"("batch":2,"kv_dtype":"q8_0"})");
  CHECK(no_gpu.command ==
        "llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -c 16384 -np 2 -fa on -ctk q8_0 -ctv q8_0  # llama.cpp b10488");
  CHECK(no_gpu.command_note.text == "Replace the .gguf name with your file's path.");
}

TEST_CASE("transformers has no command, and the answer says why") {
  const Report r = report_for(R"({"model":"llama-3.1-8b"})");
  CHECK(r.command.empty());
  CHECK(r.command_note.text.find("transformers is a library") == 0);
  CHECK(r.command_note.id == "command.transformers");
}

TEST_CASE("a command's note carries an id; a number inside a command stays text, as typed") {
  const Report r = report_for(R"({"model":"llama-3.1-8b","engine":"ollama","context":16384,"gpu_layers":20})");
  CHECK(r.command_note.id == "command.ollama_layers");
  CHECK(r.command_note.text.find("/set parameter num_ctx 16384 sets the context for that model alone, /set parameter "
                            "num_gpu 20 the layers on the GPU.") != std::string::npos);
  // Text, not a count: the page must not write "16.384" inside a command.
  CHECK(arg_named(r.command_note, "context").kind == MessageArg::Kind::text);
  CHECK(arg_named(r.command_note, "context").text == "16384");
}

TEST_CASE("The command's closing version is spelled as the answer's engine_version: as asked without a leading v") {
  const Report sglang = report_for(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100-sxm","engine_version":"v0.5.9"})");
  REQUIRE(sglang.estimate.sglang);
  CHECK(sglang.estimate.sglang->engine_version == "0.5.9");
  CHECK(sglang.command.ends_with("  # SGLang 0.5.9"));
  const Report vllm = report_for(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","engine_version":"V0.21.1"})");
  CHECK(vllm.command.ends_with("  # vLLM 0.21.1"));
  const Report mlx = report_for(R"({"model":"qwen3-0.6b","engine":"mlx","engine_version":"v0.26.4"})");
  CHECK(mlx.command.ends_with("  # mlx-lm 0.26.4"));
  const Report ollama = report_for(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"v0.11.10"})");
  CHECK(ollama.ollama_version == "0.11.10");
  CHECK(ollama.command.ends_with("  # Ollama 0.11.10"));
}

TEST_CASE("llama-server gets a Hub GGUF as read: -hff where -hf's tag takes another file, -mu at another revision") {
  // The request as a client sends it after a lookup (plan_hub_reads' revision and gguf.hf_file, test_lookup.cpp); the
  // file's path in the repository is the name the header was read under. -hff: "Hugging Face model file. If
  // specified, it will override the quant in --hf-repo"; -mu: "model download url" (ggml-org/llama.cpp
  // tools/server/README.md at 00dc8057); the Hub's resolve URL takes the revision quoted whole, "/" too, as
  // huggingface_hub's hf_hub_url writes it (quote(revision, safe="")).
  const test::Bytes file = test::tiny_llama_gguf().build();
  auto command = [&](const char* request) {
    const auto j = nlohmann::json::parse(answer_file(test::catalog(), std::span<const std::byte>(file), file.size(),
                                                     "v2/tiny-Q8_0.gguf", request));
    REQUIRE_MESSAGE(j["ok"] == true, j.dump());
    return j["command"];
  };
  const auto by_tag = command(R"({"engine":"llamacpp","context":512,"model_repo":"o/tiny-GGUF"})");
  CHECK(by_tag["text"].get<std::string>().starts_with("llama-server -hf o/tiny-GGUF:Q8_0 --no-mmproj "));
  const auto named = command(R"({"engine":"llamacpp","context":512,"model_repo":"o/tiny-GGUF",)"
                             R"("model_hf_file":"v2/tiny-Q8_0.gguf"})");
  CHECK(named["text"].get<std::string>().starts_with("llama-server -hf o/tiny-GGUF:Q8_0 -hff v2/tiny-Q8_0.gguf --no-mmproj "));
  const auto pr = command(R"({"engine":"llamacpp","context":512,"model_repo":"o/tiny-GGUF","model_revision":"refs/pr/1"})");
  CHECK(pr["text"].get<std::string>().starts_with(
      "llama-server -mu https://huggingface.co/o/tiny-GGUF/resolve/refs%2Fpr%2F1/v2/tiny-Q8_0.gguf "));
  CHECK(pr["text"].get<std::string>().find("--no-mmproj") == std::string::npos);  // -mu fetches no projector
  CHECK(pr["note"]["id"] == "command.llamacpp_hub");
  const auto main = command(R"({"engine":"llamacpp","context":512,"model_repo":"o/tiny-GGUF","model_revision":"main"})");
  CHECK(main["text"] == by_tag["text"]);
}
