// Inference on several GPUs that each hold whole layers. llama.cpp's rule, src/llama-model.cpp (load_tensors):
//   float split_sum = 0.0f;
//   for (size_t i = 0; i < n_devices(); ++i) { split_sum += splits[i]; splits[i] = split_sum; }
//   for (size_t i = 0; i < n_devices(); ++i) { splits[i] /= split_sum; }
//   const int i_gpu_start = std::max(n_layer_all + 1 - n_gpu_layers, 0);
//   const int act_gpu_layers = devices.empty() ? 0 : std::min(n_gpu_layers, n_layer_all + 1);
//   const int layer_gpu = std::upper_bound(splits.begin(), splits.begin() + n_devices(),
//                                          float(il - i_gpu_start)/act_gpu_layers) - splits.begin();
//   pimpl->dev_input = { cpu_dev, &pimpl->cpu_buft_list };         // the input layer stays on the CPU
//   pimpl->dev_output = get_layer_buft_list(n_layer_all);           // the output layer is slot n_layer
// accelerate's device_map "auto" = "balanced" (accelerate/utils/modeling.py, get_balanced_memory):
//   per_gpu = module_sizes[""] // num_devices; buffer = int(1.25 * max(buffer, mean_leaves)); per_gpu += buffer
//   for idx in gpus_idx_list[:-1]: max_memory[idx] = min(per_gpu, max_memory[idx])   # the last keeps the rest
#include "../test_support.hpp"
#include "json/request.hpp"
#include "memory/device_split.hpp"
#include "questions/evaluate.hpp"

using namespace vramfit;

namespace {

// The estimate's request as the question "estimate" reads it (GPU names are the cards one has there).
Report evaluated(const char* json) {
  auto r = parse_request(json);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().field + ": " + r.error().message.text));
  auto report = evaluate(test::catalog(), r.value().inference);
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().field + ": " + report.error().message.text));
  return std::move(report).value();
}

}  // namespace

TEST_CASE("llama.cpp puts layers 0-40 of an 80-layer model on the first of two equal GPUs, the rest and the output "
          "on the second") {
  // By hand: slots 0..80 (81 with the output layer), cuts {0.5, 1}. Slot il is on CUDA0 while il / 81 < 0.5, i.e.
  // il <= 40 (40/81 = 0.494, 41/81 = 0.506): 41 layers there, 39 layers and the output on CUDA1.
  const double equal[] = {1, 1};
  const auto devices = llamacpp_layer_devices(equal, 80);
  REQUIRE(devices.size() == 81);
  CHECK(devices[40] == 0);
  CHECK(devices[41] == 1);
  CHECK(devices[80] == 1);
  // Three equal GPUs, cuts {1/3, 2/3, 1} in float: 27/81 is the same float as 1/3, and upper_bound wants a cut
  // above it, so slot 27 is the second GPU's first; likewise slot 54 the third's. 27 + 27 + 26 layers.
  const double three[] = {1, 1, 1};
  const auto by3 = llamacpp_layer_devices(three, 80);
  CHECK(by3[26] == 0);
  CHECK(by3[27] == 1);
  CHECK(by3[53] == 1);
  CHECK(by3[54] == 2);
}

TEST_CASE("llama.cpp's KV buffers per GPU match a two-GPU log: 1536 MiB on CUDA0, 3584 MiB on CUDA1") {
  // ggml-org/llama.cpp PR #6122, a comment's log (RTX 4070 Ti as CUDA0, RTX 3090 Ti as CUDA1; 40 layers, n_ctx 4096,
  // freq_base 8e6: Command-R 35B, hidden 8192, 64 KV heads of 128, f16 cache):
  //   llm_load_tensors: offloaded 41/41 layers to GPU
  //   llama_kv_cache_init:      CUDA0 KV buffer size =  1536.00 MiB
  //   llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB
  // One layer's cache: 2 (K, V) × 4096 cells × 8192 × 2 B = 128 MiB, so CUDA0 held 12 layers and CUDA1 28. The log
  // does not print the free memory the default split used; any share of CUDA0 in (11/41, 12/41] gives 12 layers,
  // e.g. 9 GiB free on the 12 GiB card (a desktop on it) beside 23 GiB on the 24 GiB one: 9/32 = 0.281.
  LayerBytes b;
  b.layers = 40;
  b.layer_kv = 2ULL * 4096 * 8192 * 2;
  const double free_gib[] = {9, 23};
  const auto shares = llamacpp_device_shares(b, free_gib, 0, 0, 0);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].layers == 12);
  CHECK(shares[0].kv_cache == 1536 * kMiB);
  CHECK(shares[1].kv_cache == 3584 * kMiB);
  CHECK(shares[1].output);
  CHECK_FALSE(shares[0].output);
}

TEST_CASE("accelerate's balanced map caps every GPU but the last at model / n + 1.25 layers") {
  // By hand: embeddings 50, 80 layers of 100, output 50: model 8100, cap 8100 / 2 + 125 = 4175. GPU 0 takes the
  // embeddings and 41 layers (50 + 4100 = 4150; a 42nd would make 4250), GPU 1 the other 39 and the output (3950).
  LayerBytes b;
  b.layers = 80;
  b.layer_weights = 100;
  b.input = 50;
  b.output = 50;
  const auto shares = accelerate_device_shares(b, 2, 30, 10, 5);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].input);
  CHECK(shares[0].layers == 41);
  CHECK(shares[0].weights == 4150);
  CHECK(shares[1].first_layer == 41);
  CHECK(shares[1].weights == 3950);
  CHECK(shares[1].output);
  // The logits (10 of the 30-byte peak) are on the GPU that runs lm_head; both pay the CUDA context.
  CHECK(shares[0].activations == 20);
  CHECK(shares[1].activations == 30);
  CHECK(shares[0].total == 4150 + 20 + 5);
  CHECK(busiest_device(shares) == 0);
}

TEST_CASE("gpus N under llama.cpp splits the layers: the devices add up to the whole estimate") {
  const Report one = evaluated(R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","context":8192})");
  const Report two =
      evaluated(R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","context":8192,"gpus":2})");
  const auto& d = two.estimate.devices;
  REQUIRE(d.size() == 2);
  CHECK(two.estimate.per_gpu.gpus == 2);
  CHECK(d[0].layers == 41);  // by hand above
  CHECK(d[1].layers == 39);
  // Both devices together hold what one GPU held (weights to a byte per layer of rounding, the cache exactly).
  const InferenceEstimate& e = one.estimate;
  CHECK(d[0].kv_cache + d[1].kv_cache == e.kv_cache);
  CHECK(d[0].weights + d[1].weights <= e.weights);
  CHECK(d[0].weights + d[1].weights + 80 >= e.weights);
  CHECK(d[0].overhead == e.overhead);
  CHECK(d[1].activations == e.activations);  // the output layer's GPU reserves the graph with the logits
  CHECK(d[0].activations <= d[1].activations);
  CHECK(two.estimate.per_gpu.total == std::max(d[0].total, d[1].total));
  CHECK(two.command.find("--tensor-split 1,1") != std::string::npos);
  // A 70B model at 4 bits is 39 GiB of weights: one RTX 3090 (24 GiB) cannot hold it, each of two holds its half
  // (about 20 GiB with the cache of 4096 tokens) within the 10 % headroom.
  const Report owned = evaluated(
      R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","context":4096,"gpus":2,"gpu":"rtx-3090"})");
  REQUIRE(owned.gpus.size() == 1);
  CHECK(owned.gpus.front().fit == Fit::fits);
  CHECK(owned.gpus.front().gpus_needed == 2);
}

TEST_CASE("gpus N under transformers follows device_map=auto; the sum of the weights is the model's") {
  const Report r = evaluated(R"({"model":"llama-3.1-8b","gpus":2,"context":4096})");
  const auto& d = r.estimate.devices;
  REQUIRE(d.size() == 2);
  CHECK(d[0].input);
  CHECK(d[1].output);
  CHECK(d[0].layers + d[1].layers == 32);
  const std::uint64_t layer = (r.estimate.weight_detail.attention + r.estimate.weight_detail.mlp +
                               r.estimate.weight_detail.norms + r.estimate.weight_detail.other) / 32;
  CHECK(d[0].weights + d[1].weights + 32 >= r.estimate.weight_detail.total);
  // GPU 0 stops within one layer of its cap, model / 2 + 1.25 layers.
  const std::uint64_t cap = r.estimate.weight_detail.total / 2 + layer * 5 / 4;
  CHECK(d[0].weights <= cap);
  CHECK(d[0].weights + layer > cap);
}

TEST_CASE("gpus N under vLLM is tensor parallel where the heads divide, else pipeline parallel, said in a note") {
  const Report tp = evaluated(R"({"model":"llama-3.1-70b","engine":"vllm","gpus":2,"gpu":"h100-sxm"})");
  REQUIRE(tp.estimate.vllm);
  CHECK(tp.estimate.vllm->tensor_parallel == 2);
  CHECK(tp.command.find("--tensor-parallel-size 2") != std::string::npos);
  // 64 attention heads do not divide by 3: three GPUs run as three pipeline stages.
  const Report pp = evaluated(R"({"model":"llama-3.1-70b","engine":"vllm","gpus":3,"gpu":"h100-sxm"})");
  CHECK(pp.estimate.vllm->tensor_parallel == 1);
  CHECK(pp.estimate.vllm->pipeline_parallel == 3);
  bool said = false;
  for (const auto& n : pp.estimate.notes) said = said || n.text.find("pipeline parallel") != std::string::npos;
  CHECK(said);
  auto mismatch = request_from_json(R"({"model":"llama-3.1-70b","engine":"vllm","gpus":4,"tp":2})");
  REQUIRE(mismatch.ok());
  auto refused = evaluate(test::catalog(), mismatch.value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "gpus");
}

TEST_CASE("gpus reads a count as a number or digits, GPU names as a list; a count out of range names the field") {
  CHECK(request_from_json(R"({"model":"llama-3.1-8b","gpus":2})").value().gpu_count == 2);
  CHECK(request_from_json(R"({"model":"llama-3.1-8b","gpus":"3"})").value().gpu_count == 3);
  const Request named = request_from_json(R"({"model":"llama-3.1-8b","gpus":"rtx-3090,rtx-4090"})").value();
  CHECK(named.gpu_count == 1);
  CHECK(named.gpus.size() == 2);
  // Outside the ranking the names are the cards one has.
  auto estimate = parse_request(R"({"model":"llama-3.1-8b","gpus":"rtx-3090,rtx-4090"})");
  REQUIRE(estimate.ok());
  CHECK(estimate.value().inference.devices.size() == 2);
  auto zero = request_from_json(R"({"model":"llama-3.1-8b","gpus":0})");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().field == "gpus");
  auto bare = request_from_json(R"({"params":7e9,"engine":"llamacpp","gpus":2})");
  REQUIRE(bare.ok());
  CHECK(evaluate(test::catalog(), bare.value()).error().field == "gpus");
}

TEST_CASE("different cards under llama.cpp: the split follows each card's free memory, each card judged by its part") {
  // Free memory at start as llama.cpp's default split reads it: what the driver reports less the CUDA context
  // (512 MiB) and cuBLAS workspace (32 MiB). RTX 3090: 23.68 GiB visible (data/gpus.json) = 24,248 MiB, so 23,704
  // MiB free; RTX 4060 Ti 16GB: 15.57 GiB visible = 15,943.68 MiB, less 544 = 15,399 whole MiB. The 3090's share
  // 23,704 / 39,103 = 0.60619 cuts Llama 3.1 8B's 33 slots at il / 33 < 0.60619, i.e. il <= 20 (20/33 = 0.60606,
  // 21/33 = 0.636): layers 0-20 on the 3090, 21-31 and the output on the 4060 Ti.
  const Report r = evaluated(R"({"model":"llama-3.1-8b","engine":"llamacpp","context":8192,)"
                             R"("gpus":"rtx-3090,rtx-4060-ti-16gb"})");
  const auto& d = r.estimate.devices;
  REQUIRE(d.size() == 2);
  CHECK(d[0].layers == 21);
  CHECK(d[1].first_layer == 21);
  CHECK(d[1].output);
  REQUIRE(r.gpus.size() == 2);
  CHECK(r.gpus[0].gpu->id == "rtx-3090");
  CHECK(r.gpus[1].gpu->id == "rtx-4060-ti-16gb");
  CHECK(r.gpus[0].free_bytes == signed_difference(r.gpus[0].gpu->usable_bytes(), d[0].total));
  CHECK(r.gpus[1].free_bytes == signed_difference(r.gpus[1].gpu->usable_bytes(), d[1].total));
  CHECK(r.command.find("--tensor-split 23704,15399") != std::string::npos);
  // vLLM splits every layer: different cards are refused, naming the field.
  auto vllm = parse_request(R"({"model":"llama-3.1-8b","engine":"vllm","gpus":"rtx-3090,rtx-4090"})");
  REQUIRE(vllm.ok());
  CHECK(evaluate(test::catalog(), vllm.value().inference).error().field == "gpus");
}

TEST_CASE("llama.cpp takes at most 16 cards: a longer list is refused, naming the field and the limit") {
  // ggml-cuda.h: #define GGML_CUDA_MAX_DEVICES 16 (the CUDA backend's per-device arrays).
  std::string sixteen, seventeen;
  for (int i = 0; i < 16; ++i) sixteen += i == 0 ? "rtx-3090" : (i % 2 ? ",rtx-4060-ti-16gb" : ",rtx-3090");
  seventeen = sixteen + ",rtx-3090";
  const std::string base = R"({"model":"llama-3.1-8b","engine":"llamacpp","context":4096,"gpus":")";
  CHECK(evaluated((base + sixteen + "\"}").c_str()).estimate.devices.size() == 16);
  auto refused = parse_request(base + seventeen + "\"}");
  REQUIRE(refused.ok());
  const auto answer = evaluate(test::catalog(), refused.value().inference);
  REQUIRE_FALSE(answer.ok());
  CHECK(answer.error().field == "gpus");
  CHECK(answer.error().message.text.find("at most 16") != std::string::npos);
  // The same limit for a count of one card.
  auto counted = request_from_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","gpu":"rtx-3090","gpus":17})");
  REQUIRE(counted.ok());
  const auto too_many = evaluate(test::catalog(), counted.value());
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().field == "gpus");
  CHECK(evaluate(test::catalog(), request_from_json(
      R"({"model":"llama-3.1-8b","engine":"llamacpp","gpu":"rtx-3090","gpus":16})").value()).ok());
}

TEST_CASE("llama.cpp with -ngl over two GPUs: the offloaded layers split among them, the others and the output on the CPU") {
  // load_tensors: i_gpu_start = n_layer − n_gpu_layers, act_gpu_layers = min(n_gpu_layers, n_layer + 1); slot il is
  // on the CPU below i_gpu_start or from i_gpu_start + act on, else on the device upper_bound(cuts, (il −
  // i_gpu_start) / act). By hand for -ngl 40 of 80 on two equal GPUs: slots 0..39 CPU; (il − 40) / 40 < 0.5 for
  // il ≤ 59: 40..59 on CUDA0, 60..79 on CUDA1; the output slot 80 gives 40 / 40 = 1, at act: CPU.
  const double equal[] = {1, 1};
  const auto devices = llamacpp_layer_devices(equal, 80, 40);
  REQUIRE(devices.size() == 81);
  CHECK(devices[39] == kOnCpu);
  CHECK(devices[40] == 0);
  CHECK(devices[59] == 0);
  CHECK(devices[60] == 1);
  CHECK(devices[79] == 1);
  CHECK(devices[80] == kOnCpu);
  LayerBytes b;
  b.layers = 80;
  b.layer_weights = 1000;
  b.layer_kv = 10;
  b.output = 500;
  const auto shares = llamacpp_device_shares(b, equal, 7, 9, 0, 40);
  CHECK(shares[0].layers == 20);
  CHECK(shares[1].layers == 20);
  CHECK(shares[0].weights == 20'000);
  CHECK(shares[1].weights == 20'000);  // no output layer: it stays on the CPU
  CHECK(shares[1].kv_cache == 200);
  CHECK_FALSE(shares[1].output);
  CHECK(shares[1].activations == 7);  // the compute buffer without the logits
}
