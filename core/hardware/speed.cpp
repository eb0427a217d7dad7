#include "hardware/speed.hpp"

#include <algorithm>  // std::max, std::min, std::find_if
#include <cmath>      // std::isfinite, std::ceil, std::pow
#include <numeric>    // std::gcd
#include <utility>    // std::pair

#include "util/json_fields.hpp"
#include "util/number_text.hpp"  // not <sstream> or printf: iostreams and printf pull large code into the wasm

namespace vramfit {

using detail::general_text;

GpuClass gpu_class_of(const Gpu& gpu) noexcept {
  if (gpu.is_apple()) return GpuClass::apple;
  if (gpu.segment == "datacenter") return GpuClass::datacenter;
  return GpuClass::consumer;  // consumer and workstation: discrete GDDR cards
}

namespace {

// Latency of one small all-reduce, seconds. An assumption, not pinned: a small NCCL all-reduce costs
// microseconds over NVLink, tens over PCIe through the host.
Range allreduce_latency_s(const Gpu& gpu) noexcept {
  if (gpu.nvlink_gb_s && *gpu.nvlink_gb_s > 0) return {5e-6, 15e-6};
  return {15e-6, 40e-6};
}

constexpr double kMs = 1e-3;

// llama.cpp's grouped expert products on CUDA (MMQ's mul_mat_id, ggml-cuda/mmq.cu and mmq.cuh): the tokens of a
// micro-batch are sorted by expert, and each expert's run of tokens is cut into tiles of mmq_x columns; mmq_x is chosen
// once for the whole micro-batch from its token count ("ntiles_x = (args.ncols_max + mmq_x - 1) / mmq_x", ncols_max
// = the micro-batch's tokens, mmq_x from 8 to get_mmq_x_max_host: 128 on tensor-core GPUs), as the host does not know
// how many tokens each expert got. A tile is multiplied out whole, so an expert with 16 tokens in a micro-batch of
// 128 runs a 128-column tile. A micro-batch whose experts each run one 128-column tile costs F + 128α + n·β, n the
// tokens routed to an expert and F what the estimate charges apart whatever the tokens per expert: the layers'
// launches and half the weights' read (its slow end adds the read to the arithmetic, its fast end takes the larger of
// the two, here the arithmetic; on the RTX 4090 at micro-batches up to 256 the read, where half the read only
// approximates it), each at its range's middle. Two micro-batch sizes with the same tiles give α, one spare tile column
// over all the experts, charged as a share w of a routed token's product at the middle of the grouped products' share:
// w = α · middle · peak / (2 · routed parameters), so a spare column costs α at the middle whatever the share, which
// is set with w in place.
// From the RTX 3090's gpt-oss-20b pp512 sweep (llama.cpp PR #20586: 1671.74, 2036.35, 3086.19, 4739.20 t/s at ub 64,
// 128, 256, 512; 24 layers of 32 experts, 19.12e9 routed parameters, 4 per token): ub 256 and 512 route 32 and 64
// tokens to an expert, 256/3086.19 = 82.950 and 512/4739.20 = 108.035 ms a micro-batch, F = 11.48 GB / (0.8 · 936
// GB/s) / 2 + 24 · 31.25 µs = 7.67 + 0.75 ms, β = 0.7839 and α = 0.3863 ms; at the Ampere share's middle, 10 % of 284
// int8 TOPS, a column takes 2 · 19.12e9 / 28.4e12 = 1.346 ms, so w = 0.29. The same card's Gemma 4 26B-A4B sweep
// (PR #22298, ub 512 and 1024) gives 0.25 (test_speed_match.cpp). Other architectures without a sweep of their own
// are charged the same w.
constexpr double kLlamaCppMoeTileWeight = 0.29;
// The widest tile MMQ takes on tensor-core GPUs (get_mmq_x_max_host: 128 where turing_mma_available).
constexpr double kMmqTileMax = 128;

// The overhead per layer. Every engine's figure was measured on a model of 32 layers (Llama-2 7B for llama.cpp on
// CUDA and Metal and for transformers, Llama-3.1-8B for vLLM): the time a step took beyond its bytes, divided by those
// 32 layers. The kernels a step launches (and the small ones that take microseconds whatever they do) are per layer,
// so a model of 48 layers pays half as much again, one of 24 a quarter less.
constexpr double kMeasuredLayers = static_cast<double>(kOverheadMeasuredLayers);
constexpr Range per_layer(double low_ms, double high_ms) { return {low_ms * kMs / kMeasuredLayers, high_ms * kMs / kMeasuredLayers}; }

// Gated DeltaNet's recurrence over a prefill chunk, per layer: llama.cpp PR #22587's benchmark of one layer in
// Qwen3.5-35B-A3B's shape ("S_v = 128, hk = 16, hv = 32, B = 1, kda = 0, dtype = f32") on an RTX 5090, the
// master column (the kernel llama.cpp ships; the PR proposes another).
// - llama.cpp's CUDA kernel (ggml-cuda/gated_delta_net.cu) keeps each column of the state in one warp, which steps
//   through the micro-batch's tokens one after another: "128 | 84.7", "256 | 155.6", "512 | 279.6" and
//   "1024 | 525.1" µs, 0.48 µs a token from 512 to 1024 and 0.55 from 128 to 256, where the per-call part cancels.
//   That part (the benchmark's 28.3 µs at one token holds its copies; a maintainer measured about 3 µs for the kernel
//   alone) is left out: the graph's launches are in the layer overhead.
// - flash-linear-attention's chunked kernels, which vLLM and SGLang run, bf16: "512 | ... | 164", "1024 | ... | 163",
//   "2048 | ... | 157", "4096 | ... | 206" µs, at most 164 µs up to 2048 tokens, which a real pass may partly hide
//   behind the GPU's queued work (the low end does), and 0.024 µs a token from 2048 to 4096, 0.050 at 4096 as a whole.
// Other NVIDIA and AMD GPUs (ROCm builds the same kernels) are charged the same, assumed: llama.cpp's kernel waits on
// memory latency at each token rather than on the GPU's size, as long as the GPU holds all of the layer's warps at
// once; a larger layer (more or wider heads) is charged in proportion at the high end.
constexpr Efficiency::Recurrence kLlamaCppCudaGatedDelta{{0, 0}, {0.48e-6, 0.55e-6}};
constexpr Efficiency::Recurrence kFlaGatedDelta{{0, 164e-6}, {0.024e-6, 0.050e-6}};

// Each range is checked in tests/unit/test_speed.cpp against every measurement of its engine and
// class in tests/data/speed_measurements.json; docs/methodology.md lists them with their sources.
constexpr Range kLlamaCppConsumerDense{0.20, 0.35};
constexpr Range kLlamaCppConsumerMoe{0.09, 0.21};
constexpr Range kLlamaCppDatacenterDense{0.065, 0.125};
constexpr Efficiency kLlamaCppConsumer{
    {0.70, 0.90}, per_layer(0.5, 1.5), kLlamaCppConsumerDense, true, kLlamaCppConsumerMoe, {0.35, 0.90}, true,
    "llama.cpp CUDA scoreboard (discussion #15013), Llama-2 7B Q4_0 tg128/pp512: RTX 3060, 3090, 4090, 5080, "
    "5090, PRO 6000; prefill share of int8 tensor TOPS (MMQ); grouped experts pooled over gpt-oss-20b pp512 at "
    "micro-batches of 64 to 512 on an RTX 3090 (PR #20586), gpt-oss-20b and Qwen3-30B-A3B pp4096 on an RTX 4090 (PR "
    "#15631) and pp2048 on a DGX Spark, on Ampere and Ada Lovelace cards from those cards' runs with Gemma 4 26B-A4B "
    "and Qwen3.5-35B-A3B (PR #22298); FlashAttention from pp2048 at depths 0 to 32768 on a DGX Spark "
    "(llama.cpp benches/dgx-spark.md)",
    kLlamaCppMoeTileWeight, {}, kLlamaCppCudaGatedDelta};
// The grouped products by architecture, where llama-bench sweeps of micro-batch sizes on one card measured them: a
// tile's spare column costs less on Ada Lovelace cards, and the share the products reach differs.
// - Ampere: w from the RTX 3090's gpt-oss-20b sweep (kLlamaCppMoeTileWeight).
// - Ada Lovelace: the RTX 4090's Qwen3.5-35B-A3B Q4_0 pp2048 sweep (PR #22298, the pull request's column; 40 layers of
//   256 experts, 32.21e9 routed parameters, 8 per token): ub 256 and 512 route 8 and 16 tokens to an expert,
//   256/5782.42 = 44.272 and 512/7999.83 = 64.001 ms, F = 19.41 GB / (0.8 · 1008 GB/s) / 2 + 40 · 31.25 µs = 12.04 +
//   1.25 ms, β = 2.466 and α = 0.0880 ms; at the Ada share's middle, 7.5 % of 660.6 TOPS, a column takes 1.300 ms,
//   so w = 0.068. With each micro-batch's own F the split puts ub 64 (64-column tiles), 128 and 1024 within 4 % of
//   the runs, 2048 11 % under. The RTX 4090 multiplies int8 2.3 times as fast as the 3090 at about the same bandwidth,
//   likely finishing a tile's spare columns while its weights load.
// Each architecture's share keeps the pooled range's width (21 / 9 ≈ 2.3) and is set so that its card's MoE runs
// lie evenly around the middle, none held out: the RTX 3090's seven from 14 % slow to 17 % fast, the RTX 4090's nine
// from 22 % slow to 23 % fast. One share per architecture does not separate large experts (gpt-oss) from small ones
// (Gemma 4, Qwen3.5): the RTX 4090's gpt-oss runs lie below the middle, its Qwen3.5 runs from ub 256 on above.
// Other architectures, and datacenter cards of these two (A10, A40, L4, L40S: the datacenter class), keep the pooled
// range.
constexpr double kLlamaCppAdaTileWeight = 0.068;
constexpr Range kLlamaCppAmpereMoe{0.06, 0.14};
constexpr Range kLlamaCppAdaMoe{0.045, 0.105};
// The class's figures with the grouped products of `card`'s architecture; the class's source names both.
constexpr Efficiency grouped_on(Efficiency e, Range moe_share, double tile_weight, std::string_view card) {
  e.moe_share = moe_share;
  e.moe_tile_weight = tile_weight;
  e.moe_card = card;
  return e;
}
constexpr Efficiency kLlamaCppAmpere =
    grouped_on(kLlamaCppConsumer, kLlamaCppAmpereMoe, kLlamaCppMoeTileWeight, "RTX 3090");
constexpr Efficiency kLlamaCppAda = grouped_on(kLlamaCppConsumer, kLlamaCppAdaMoe, kLlamaCppAdaTileWeight, "RTX 4090");
// The grouped experts' share at the consumer class's ratio to the dense share (the same MMQ kernels on a bigger GPU).
constexpr Efficiency kLlamaCppDatacenter{
    {0.50, 0.85}, per_layer(1.5, 3.0), kLlamaCppDatacenterDense, true,
    {kLlamaCppConsumerMoe.low / kLlamaCppConsumerDense.low * kLlamaCppDatacenterDense.low,
     kLlamaCppConsumerMoe.high / kLlamaCppConsumerDense.high * kLlamaCppDatacenterDense.high},
    {0.20, 0.60}, false,
    "llama.cpp CUDA scoreboard (discussion #15013), Llama-2 7B Q4_0: A100 80 GB, H100 (HBM3): small matrix-vector "
    "products leave much of a big GPU idle, so a larger fixed cost per layer; grouped experts assumed at the consumer "
    "class's ratio to the dense share, with the consumer cards' cost of a tile's unused column (assumed), attention "
    "assumed",
    kLlamaCppMoeTileWeight, {}, kLlamaCppCudaGatedDelta};
// llama.cpp's Metal prefill: LLaMA 7B v2 pp512 in F16 and Q4_0 on eight Apple GPUs from the M1 Max to the M4 Max
// (discussion #4167) reaches 61–76 % of the FP32 shader rate (the catalog's tflops_fp16), below the ceiling its
// simdgroup_matrix products can reach, 102.5 of 128 FMAs per core and cycle (80 %, philipturner/metal-benchmarks); the
// low end, 55 %, is assumed a little below the slowest run (M2 Ultra, Q4_0) for the chips no run measures.
constexpr Range kLlamaCppAppleDense{0.55, 0.80};
constexpr Efficiency kLlamaCppApple{
    {0.60, 0.95}, per_layer(3.0, 6.0), kLlamaCppAppleDense, true,
    {kLlamaCppConsumerMoe.low / kLlamaCppConsumerDense.low * kLlamaCppAppleDense.low,
     kLlamaCppConsumerMoe.high / kLlamaCppConsumerDense.high * kLlamaCppAppleDense.high},
    {0.20, 0.50}, false,
    "llama.cpp Apple Silicon benchmark (discussion #4167), LLaMA 7B Q4_0 tg128: M1/M2/M3 Ultra, M4 Pro, M4 Max; "
    "Metal spends ~9 ms of a 28 ms token outside the matrix products (llama.cpp k-quants Metal commit notes); prefill "
    "from the same table's pp512 in F16 and Q4_0 on eight GPUs, of the FP32 shader rate; grouped experts assumed at "
    "the CUDA consumer cards' ratio to the dense share, attention assumed, no cost of unused tile columns (measured on "
    "CUDA only)"};
// An Efficiency whose shares are borrowed from another engine: the same figures, none of them pinned by this one.
// The other engine's kernel-specific figures (tiles, an MoE layer's cost, the recurrence) are not borrowed.
constexpr Efficiency borrowed(Efficiency e, std::string_view source) {
  e.compute_pinned = false;
  e.prefill_pinned = false;
  e.source = source;
  e.moe_tile_weight = 0;
  e.moe_layer_overhead_s = {};
  e.gated_delta = {};
  e.moe_card = {};
  return e;
}
// MLX on the same GPUs: llama.cpp's shares stand in (the same memory and ALUs), none of them measured for MLX.
constexpr Efficiency kMlxApple =
    borrowed(kLlamaCppApple, "llama.cpp's Metal shares stand in (discussion #4167's runs); no MLX measurement");
// What an MoE layer adds to a vLLM or SGLang step besides its bytes and a dense layer's kernels, seconds per MoE
// layer: its router, top-k, token sorting (moe_align_block_size), the grouped products' launches and the combine.
// 16- and 8-bit experts, from Qwen's SGLang table (QwenLM/Qwen3 docs/source/getting_started/speed_benchmark.md at
// 7a2f61f, SGLang 0.4.6.post1 on one H20, batch 1, 2048 tokens generated after 1): two dense models of 36 layers in
// the same set-up give the bandwidth reached and a layer's cost, and Qwen3-30B-A3B's 48 layers what an MoE layer
// costs beyond that (the arithmetic: tests/unit/hardware/test_speed_match.cpp). BF16: Qwen3-4B 133.13 and Qwen3-8B
// 81.73 t/s read 8.196 and 15.288 GB a token (weights and the cache at 1025 tokens): 1.501 TB/s and 57.0 µs a layer,
// so Qwen3-30B-A3B (6.184 GB) would take 6.856 ms as dense layers and took 7.290 (137.18 t/s): 9.0 µs more for each
// MoE layer. FP8: 200.61 and 150.25 t/s for 4.563 and 8.342 GB: 2.262 TB/s and 82.4 µs a layer; Qwen3-30B-A3B-FP8
// (3.467 GB, 155.55 t/s) 19.6 µs more. Each figure rests on differences of a few percent in one table (1 % on one
// reading moves the 16-bit one by about 3 µs), so the low end charges a dense layer's kernels only.
// 4-bit experts, from SGLang's gpt-oss-20b (MXFP4) at 4 and 32 requests on an H100 SXM (512 tokens in and 1024 out;
// ai-bot-pro/achatbot PR #183): 5.573 ms a step at 4 requests and 7.867 ms at 32. The step reads 6.7 and 13.3 GB (13
// and 32 distinct experts of 32 per layer), 2.5 and 5.0 ms at the middle of the bandwidth share; with the middle of
// the per-layer overhead (0.94 ms for 24 layers) that leaves 2.13 and 1.97 ms, 89 and 82 µs for each of the 24 MoE
// layers: the same cost per step at both batches, a step's fixed cost, not a token's. Qwen's table also has GPTQ-INT4
// Qwen3-30B-A3B at 31.29 t/s on SGLang 0.4.6 (GPTQ-Marlin, which the table's notes say "needs improvement"), some
// 500 µs a layer: the 4-bit figure is gpt-oss's MXFP4 kernels', and other 4-bit MoE kernels may be much slower.
constexpr Efficiency::MoeLayerOverhead kVllmMoeLayerOverhead{{0, 9.0e-6}, {0, 19.6e-6}, {82e-6, 89e-6}};
constexpr Efficiency kVllmGpu{
    {0.70, 0.90}, per_layer(0.5, 2.0), {0.35, 0.65}, false, {0.15, 0.40}, {0.35, 0.70}, false,
    "vLLM bench serve: Llama-3.1-8B bf16 on A100 40 GB at concurrency 1 and 8 (johnmusgrave.com), Mistral-7B "
    "bf16 on RTX 4090 at concurrency 4 and 8 (mushfiqrahman.dev); prefill shares assumed, not measured; an MoE "
    "layer's own kernels from SGLang's Qwen3 models at batch 1 on an H20 (Qwen's speed benchmark) and gpt-oss-20b "
    "at 4 and 32 requests on an H100 (ai-bot-pro/achatbot PR #183)",
    0, kVllmMoeLayerOverhead, kFlaGatedDelta};
constexpr Efficiency kTransformers{
    {0.50, 0.85}, per_layer(2.0, 10.0), {0.25, 0.50}, false, {0.05, 0.20}, {0.25, 0.60}, false,
    "Hugging Face transformers generate, Llama-2-7B fp16 on A10: 34 ms per token (InternLM/lmdeploy issue #210); "
    "eager PyTorch launches every kernel from Python; prefill shares assumed, not measured"};

bool positive_finite(double x) noexcept { return std::isfinite(x) && x > 0; }

std::optional<double> peak_tflops(const Gpu& gpu, ComputePath path) noexcept {
  switch (path) {
    case ComputePath::fp16: return gpu.tflops_bf16 ? gpu.tflops_bf16 : gpu.tflops_fp16;
    case ComputePath::int8: return gpu.tops_int8;
    case ComputePath::fp8: return gpu.tflops_fp8;
    case ComputePath::fp4: return gpu.tflops_fp4;
  }
  return std::nullopt;
}

// The figure a compute path reads on `gpu`, as spec sheets name it: the 16-bit path reads BF16, else FP16 (Apple's).
std::string_view compute_path_field(const Gpu& gpu, ComputePath path) noexcept {
  switch (path) {
    case ComputePath::fp16:
      return gpu.is_apple() || (!gpu.tflops_bf16 && gpu.tflops_fp16) ? "FP16 TFLOPS" : "BF16 TFLOPS";
    case ComputePath::int8: return "INT8 TOPS";
    case ComputePath::fp8: return "FP8 TFLOPS";
    case ComputePath::fp4: return "FP4 TFLOPS";
  }
  return "BF16 TFLOPS";
}

Result<bool> check_inputs(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& o) {
  if (model.weight_bytes_read == 0 || model.active_params == 0 || model.num_layers == 0)
    return make_error("model", message("speed.no_shapes", "needs weight bytes, active parameters and a layer count"));
  if (!gpu.bandwidth_gb_s || !positive_finite(*gpu.bandwidth_gb_s))
    return make_error("gpu", !gpu.custom.empty()
                                 ? message("speed.no_bandwidth_custom",
                                           "{gpu} is described by your figures, and its memory bandwidth is not among "
                                           "them, so no speed can be estimated",
                                           {arg::text("gpu", gpu.name)})
                                 : message("speed.no_bandwidth",
                                           "{gpu} has no memory bandwidth in the catalog, so no speed can be estimated",
                                           {arg::text("gpu", gpu.name)}));
  if (!runs_on_apple(o.engine) && gpu_class_of(gpu) == GpuClass::apple)
    return make_error("engine", message("speed.no_apple_backend",
                                        "{engine} has no Apple GPU backend; on {gpu} use {engines}",
                                        {arg::text("engine", engine_title(o.engine)), arg::text("gpu", gpu.name),
                                         arg::text("engines", engine_titles_on(true))}));
  if (engine_traits(o.engine).metal_only && gpu_class_of(gpu) != GpuClass::apple)
    return make_error("gpu", message("mlx.speed_apple_only",
                                     "MLX is modelled on Apple GPUs only; choose an Apple GPU or another engine for {gpu}",
                                     {arg::text("gpu", gpu.name)}));
  if (o.batch == 0 || o.batch > 1'000'000) return make_error("batch", message("speed.batch_range", "must be between 1 and 1000000"));
  if (o.tensor_parallel == 0 || o.tensor_parallel > 1024)
    return make_error("tensor_parallel", message("speed.tp_range", "must be between 1 and 1024"));
  if (o.tensor_parallel > 1 && !interconnect_gb_s(gpu))
    return make_error("gpu", message("speed.no_interconnect", "{gpu} has neither NVLink nor a PCIe generation in the catalog",
                                     {arg::text("gpu", gpu.name)}));
  if (o.cpu_expert_layers > model.expert_layers())
    return make_error("cpu_expert_layers", message("speed.cpu_experts_range",
                                                   "must be at most the {layers} layers with routed experts",
                                                   {arg::count("layers", model.expert_layers())}));
  if ((o.gpu_layers && *o.gpu_layers < model.num_layers) || o.cpu_expert_layers > 0 || o.output_on_cpu) {
    if (!ggml_engine(o.engine))
      return make_error("gpu_layers", message("speed.offload_engines", "partial CPU offload is modelled for llama.cpp "
                                                                       "(-ngl, --n-cpu-moe) and Ollama (num_gpu) only"));
    if (o.tensor_parallel > 1)
      return make_error("gpu_layers", message("speed.offload_one_gpu",
                                              "partial CPU offload is modelled on one GPU, not with tensor parallel"));
    if (!positive_finite(o.system_bandwidth_gb_s) || o.system_bandwidth_gb_s > 10'000)
      return make_error("system_bandwidth", message("serving.bandwidth", "must be a positive number of GB/s up to 10000"));
  }
  return true;
}

// The bandwidth layers left in system RAM are read at: the request's, else on a machine whose GPU shares its memory
// the CPU's reads of that memory, else the desktop default.
SpeedOptions with_ram_bandwidth(const Gpu& gpu, SpeedOptions o) {
  if (!o.system_bandwidth_given && gpu.unified_memory && gpu.cpu_bandwidth_gb_s)
    o.system_bandwidth_gb_s = *gpu.cpu_bandwidth_gb_s;
  return o;
}

// Share of the layers held in system RAM (llama.cpp -ngl below the layer count).
double cpu_fraction(const SpeedModel& model, const SpeedOptions& o) noexcept {
  if (!o.gpu_layers || *o.gpu_layers >= model.num_layers) return 0;
  return static_cast<double>(model.num_layers - *o.gpu_layers) / static_cast<double>(model.num_layers);
}

// Two all-reduces per layer (after attention and after the MLP, Megatron-LM §3) of batch · hidden
// 16-bit activations; a ring all-reduce sends 2·(tp−1)/tp of the buffer through each GPU's link.
Range allreduce_seconds(const SpeedModel& model, const Gpu& gpu, std::uint64_t tp, double tokens) {
  if (tp <= 1) return {0, 0};
  const double link_bytes_s = *interconnect_gb_s(gpu) * 1e9;
  const double tpd = static_cast<double>(tp);
  const double buffer = tokens * static_cast<double>(model.hidden_size) * 2.0;
  const double transfer = 2.0 * (tpd - 1.0) / tpd * buffer / link_bytes_s;
  const double count = 2.0 * static_cast<double>(model.num_layers);
  const Range latency = allreduce_latency_s(gpu);
  return {count * (transfer + latency.low), count * (transfer + latency.high)};
}

struct StepTerms {
  double gpu_bytes = 0;  // per GPU
  double cpu_bytes = 0;
  double cpu_expert_bytes = 0;  // the routed experts' part of cpu_bytes
  double split_layers = 0;  // layers whose attention stays on the GPU while the CPU computes their experts
  double handoffs = 0;      // GPU↔CPU hand-offs per step, two at each split layer
  double flops = 0;      // per GPU
};

StepTerms decode_terms(const SpeedModel& model, const SpeedOptions& o) {
  const double cpu = cpu_fraction(model, o);
  const double tp = static_cast<double>(o.tensor_parallel);
  const double batch = static_cast<double>(o.batch);
  // The state is read and written back whole at every step (vLLM's fused_recurrent kernels, llama.cpp's ggml_ssm_scan
  // and gated delta net ops load the state and store the updated one).
  const double kv = batch * (static_cast<double>(o.kv_bytes_per_sequence) +
                             2.0 * static_cast<double>(o.state_bytes_per_sequence));
  // What every token reads (attention, shared experts, router, norms, head), apart from the routed experts, which
  // are read once per step for all the experts the batch touches.
  const double weights = static_cast<double>(model.weight_bytes_read);
  const double routed = model.routed_bytes_read(o.batch);
  const double every_token = std::max(0.0, weights - model.routed_bytes_read(1));
  const double output_cpu = o.output_on_cpu ? std::min(static_cast<double>(model.output_bytes), every_token) : 0.0;
  const double layered = every_token - output_cpu;
  // --n-cpu-moe and -ngl both start from the first layers: the CPU holds the experts of the larger share.
  const double experts_cpu =
      model.expert_layers() == 0
          ? cpu
          : std::min(1.0, std::max(cpu, static_cast<double>(o.cpu_expert_layers) /
                                            static_cast<double>(model.expert_layers())));
  StepTerms t;
  t.gpu_bytes = ((layered + kv) * (1.0 - cpu) + routed * (1.0 - experts_cpu)) / tp;
  t.cpu_bytes = (layered + kv) * cpu + routed * experts_cpu + output_cpu;
  t.cpu_expert_bytes = routed * experts_cpu;
  // A layer held whole by the CPU (-ngl) hands nothing over; one whose attention stays on the GPU hands over twice.
  // Whole layers: the CPU's share of the expert layers is rounded to the layers it holds.
  t.split_layers = std::max(
      0.0, std::round(static_cast<double>(o.cpu_expert_layers) - cpu * static_cast<double>(model.expert_layers())));
  t.handoffs = kHandoffsPerCpuExpertLayer * t.split_layers;
  // 2 FLOPs per active parameter and token, plus QKᵀ and AV over the tokens attended: 4 · Σ_layers width · tokens,
  // tokens = the context, or at most the window of a sliding-window or chunked layer.
  double attended = static_cast<double>(o.context_tokens) * static_cast<double>(model.attention_width);
  for (const auto& w : model.windowed_attention)
    attended -= static_cast<double>(w.width) *
                static_cast<double>(o.context_tokens - std::min(o.context_tokens, w.window));
  t.flops = batch * (2.0 * static_cast<double>(model.active_params) + 4.0 * attended) / tp;
  return t;
}

// One decode step at one end of the efficiency range (share = the bandwidth, compute and overhead
// figures of that end).
struct StepTime {
  double memory = 0, compute = 0, cpu = 0, handoff = 0, total = 0;
};

// The CPU's shares at one end of the range: of the RAM's bandwidth for whole layers and for routed experts, and the
// time one GPU↔CPU hand-off takes.
struct CpuEnd {
  double layer_share = 0;
  double expert_share = 0;
  double handoff_s = 0;
};
constexpr CpuEnd kCpuSlow{kCpuBandwidthShare.low, kCpuExpertBandwidthShare.low, kCpuHandoffSeconds.high};
constexpr CpuEnd kCpuFast{kCpuBandwidthShare.high, kCpuExpertBandwidthShare.high, kCpuHandoffSeconds.low};

StepTime step_time(const StepTerms& t, const Gpu& gpu, const SpeedOptions& o, double bw_share, double overhead,
                   double compute_share, const CpuEnd& cpu, double allreduce) {
  StepTime s;
  s.memory = t.gpu_bytes / (*gpu.bandwidth_gb_s * 1e9 * bw_share);
  const std::optional<double> peak = peak_tflops(gpu, o.compute);
  s.compute = peak && *peak > 0 ? t.flops / (*peak * 1e12 * compute_share) : 0;
  const double ram = o.system_bandwidth_gb_s * 1e9;
  s.handoff = t.handoffs * cpu.handoff_s;
  s.cpu = (t.cpu_bytes - t.cpu_expert_bytes) / (ram * cpu.layer_share) + t.cpu_expert_bytes / (ram * cpu.expert_share) +
          s.handoff;
  s.total = std::max(s.memory, s.compute) + overhead + s.cpu + allreduce;
  return s;
}


}  // namespace

const Efficiency& efficiency(Engine engine, GpuClass gpu_class) noexcept {
  switch (engine) {
    case Engine::llamacpp:
    case Engine::ollama:  // Ollama runs llama.cpp's kernels
      if (gpu_class == GpuClass::apple) return kLlamaCppApple;
      return gpu_class == GpuClass::datacenter ? kLlamaCppDatacenter : kLlamaCppConsumer;
    case Engine::vllm:
    case Engine::sglang: return kVllmGpu;  // the same batched CUDA kernels (FlashInfer, CUTLASS); no SGLang figures of its own
    // No MLX measurements of its own: llama.cpp's Metal shares of bandwidth and compute (the same GPU and memory),
    // said in the estimate's notes; no cost of unused tile columns, which was measured for llama.cpp's CUDA kernels.
    case Engine::mlx: return kMlxApple;
    case Engine::transformers: return kTransformers;
  }
  return kLlamaCppConsumer;
}

const Efficiency& efficiency(Engine engine, const Gpu& gpu) noexcept {
  const Efficiency& by_class = efficiency(engine, gpu_class_of(gpu));
  if (&by_class != &kLlamaCppConsumer || gpu.vendor != "NVIDIA") return by_class;
  if (gpu.architecture == "Ampere") return kLlamaCppAmpere;
  if (gpu.architecture == "Ada Lovelace") return kLlamaCppAda;
  return by_class;
}

static std::uint64_t overhead_layers(const SpeedModel& model) noexcept {
  return model.layers_known ? model.num_layers : kOverheadMeasuredLayers;
}

Range step_overhead_s(const Efficiency& eff, std::uint64_t layers) noexcept {
  const double n = static_cast<double>(layers);
  return {eff.layer_overhead_s.low * n, eff.layer_overhead_s.high * n};
}

// The width class of the routed experts as stored: 16 (BF16, FP16), 8 (FP8, INT8) or 4 bits (MXFP4, NVFP4, AWQ, GPTQ).
enum class ExpertWidth { bits16, bits8, bits4 };

static ExpertWidth expert_width(const SpeedModel& model) noexcept {
  const double bits = model.expert_bits();
  return bits >= 12 ? ExpertWidth::bits16 : bits >= 6 ? ExpertWidth::bits8 : ExpertWidth::bits4;
}

static unsigned width_bits(ExpertWidth w) noexcept {
  switch (w) {
    case ExpertWidth::bits16: return 16;
    case ExpertWidth::bits8: return 8;
    case ExpertWidth::bits4: return 4;
  }
  return 16;
}

Range moe_layer_overhead_for(const Efficiency& eff, const SpeedModel& model) noexcept {
  const Efficiency::MoeLayerOverhead& o = eff.moe_layer_overhead_s;
  switch (expert_width(model)) {
    case ExpertWidth::bits16: return o.bits16;
    case ExpertWidth::bits8: return o.bits8;
    case ExpertWidth::bits4: return o.bits4;
  }
  return o.bits16;
}

Range moe_overhead_s(const Efficiency& eff, const SpeedModel& model) noexcept {
  const double n = static_cast<double>(model.expert_layers());
  const Range per_layer = moe_layer_overhead_for(eff, model);
  return {per_layer.low * n, per_layer.high * n};
}

std::optional<double> pcie_x16_gb_s(double generation) noexcept {
  // Transfer rate per lane doubles each generation from 8 GT/s at PCIe 3.0 (PCI-SIG).
  if (!(generation >= 3 && generation <= 7) || generation != std::floor(generation)) return std::nullopt;
  const double gt_s = 8.0 * static_cast<double>(1u << static_cast<unsigned>(generation - 3));
  return 16.0 * gt_s * 128.0 / 130.0 / 8.0;
}

std::optional<double> interconnect_gb_s(const Gpu& gpu) noexcept {
  if (gpu.nvlink_gb_s && *gpu.nvlink_gb_s > 0) return *gpu.nvlink_gb_s / 2.0;  // catalog: bidirectional
  if (gpu.pcie_gen) return pcie_x16_gb_s(*gpu.pcie_gen);
  return std::nullopt;
}

namespace {

// The weight bytes a token reads, `unread` (the embedding table and the vision tower, `vision` parameters) left out:
// everything but the routed experts it is not sent to, those counted at their own stored width (gpt-oss: MXFP4
// experts beside bf16 attention). Without a tensor list (a bare count), the active parameters' share of the rest.
std::uint64_t weight_bytes_read(const ParamCounts& p, const WeightBytes& w, std::uint64_t unread, std::uint64_t vision) {
  const std::uint64_t text = p.total > vision ? p.total - vision : p.total;
  const double params_share = static_cast<double>(p.active) / static_cast<double>(text);
  const auto by_share = static_cast<std::uint64_t>(static_cast<double>(w.total - unread) * params_share);
  if (w.routed_expert_params == 0 || p.active > text) return by_share;
  const auto routed_per_param =
      static_cast<long double>(w.routed_expert_bytes) / static_cast<long double>(w.routed_expert_params);
  const auto skipped = routed_per_param * static_cast<long double>(text - p.active);
  const auto read = static_cast<long double>(w.total - unread) - skipped;
  return read > 0 ? static_cast<std::uint64_t>(read) : by_share;
}

}  // namespace

std::uint64_t SpeedModel::expert_layers() const noexcept {
  std::uint64_t n = 0;
  for (const ExpertGroup& g : expert_groups) n += g.layers;
  return n;
}

double SpeedModel::expert_bits() const noexcept {
  double bytes = 0, params = 0;
  for (const ExpertGroup& g : expert_groups) bytes += g.bytes, params += g.params;
  return params > 0 ? 8.0 * bytes / params : 0.0;
}

double SpeedModel::routed_active_params() const noexcept {
  double params = 0;
  for (const ExpertGroup& g : expert_groups)
    if (g.experts > 0)
      params += g.params * std::min(1.0, static_cast<double>(g.top_k) / static_cast<double>(g.experts));
  return params;
}

double SpeedModel::routed_bytes_read(std::uint64_t batch) const noexcept {
  double bytes = 0;
  for (const ExpertGroup& g : expert_groups) {
    if (g.experts == 0) continue;
    const double k_share = std::min(1.0, static_cast<double>(g.top_k) / static_cast<double>(g.experts));
    bytes += g.bytes * (1.0 - std::pow(1.0 - k_share, static_cast<double>(batch)));
  }
  return bytes;
}

double SpeedModel::routed_params_touched(std::uint64_t tokens) const noexcept {
  double params = 0;
  for (const ExpertGroup& g : expert_groups) {
    if (g.experts == 0) continue;
    const double k_share = std::min(1.0, static_cast<double>(g.top_k) / static_cast<double>(g.experts));
    params += g.params * (1.0 - std::pow(1.0 - k_share, static_cast<double>(tokens)));
  }
  return params;
}

namespace {

// Expected distinct experts per layer for `batch` sequences, of the group with the most layers; 0 without experts.
double distinct_experts(const SpeedModel& m, std::uint64_t batch) noexcept {
  const SpeedModel::ExpertGroup* most = nullptr;
  for (const auto& g : m.expert_groups)
    if (!most || g.layers > most->layers) most = &g;
  if (!most || most->experts == 0) return 0;
  const double e = static_cast<double>(most->experts);
  const double k_share = std::min(1.0, static_cast<double>(most->top_k) / e);
  return e * (1.0 - std::pow(1.0 - k_share, static_cast<double>(batch)));
}

// The routed experts' bytes split over the layers that route alike, in proportion to their expert parameters
// (layers · E · expert width · input width): the stored width is the same for every expert tensor.
std::vector<SpeedModel::ExpertGroup> expert_groups_of(const ModelSpec& spec, const WeightBytes& weights) {
  std::vector<SpeedModel::ExpertGroup> groups;
  std::vector<double> shares;
  double total = 0;
  for (const LayerRun& run : spec.layers) {
    const MlpBlock& m = run.mlp;
    if (m.kind != MlpKind::moe || m.routed_experts == 0 || m.experts_per_token == 0) continue;
    const double share = static_cast<double>(run.count) * static_cast<double>(m.routed_experts) *
                         static_cast<double>(m.expert_intermediate) *
                         static_cast<double>(m.latent ? m.latent : spec.hidden_size);
    auto same = std::find_if(groups.begin(), groups.end(), [&](const SpeedModel::ExpertGroup& g) {
      return g.experts == m.routed_experts && g.top_k == m.experts_per_token;
    });
    if (same == groups.end()) {
      groups.push_back({0, m.routed_experts, m.experts_per_token, 0});
      shares.push_back(0);
      same = groups.end() - 1;
    }
    same->layers += run.count;
    shares[static_cast<std::size_t>(same - groups.begin())] += share;
    total += share;
  }
  if (total <= 0 || weights.routed_expert_bytes == 0) return {};
  for (std::size_t i = 0; i < groups.size(); ++i) {
    groups[i].bytes = static_cast<double>(weights.routed_expert_bytes) * shares[i] / total;
    groups[i].params = static_cast<double>(weights.routed_expert_params) * shares[i] / total;
  }
  return groups;
}

}  // namespace

Result<SpeedModel> speed_model_from(const ModelSpec& spec, const WeightBytes& weights) {
  auto counts = count_params(spec);
  if (!counts) return counts.error();
  const ParamCounts& p = counts.value();
  if (p.total == 0 || weights.total == 0) return make_error("model", message("speed.no_parameters", "has no parameters"));
  SpeedModel m;
  // The token embedding is a table look-up: one row per token, not the whole matrix (unless tied
  // to the output head, which reads it all).
  std::uint64_t unread = spec.tied_embeddings ? 0 : std::min(weights.embedding, weights.total);
  // The vision tower runs on images in the prompt, not for each generated token.
  for (const WeightGroup& g : weights.groups)
    if (g.what == "vision tower") unread = std::min(unread + g.bytes, weights.total);
  m.weight_bytes_read = weight_bytes_read(p, weights, unread, spec.vision_params);
  m.active_params = p.active;
  m.lookup_params = p.lm_head ? std::min(p.embedding, p.active) : 0;
  m.head_params = p.lm_head ? p.lm_head : spec.tied_embeddings ? spec.vocab_size * spec.hidden_size : 0;
  m.expert_groups = expert_groups_of(spec, weights);
  m.output_bytes = spec.tied_embeddings ? weights.embedding : weights.output;
  m.num_layers = spec.is_bare() ? 1 : spec.num_layers();
  m.layers_known = !spec.is_bare();
  m.hidden_size = spec.hidden_size;
  for (const LayerRun& run : spec.layers) {
    switch (run.mixer) {
      case MixerKind::attention: {
        m.num_attention_heads = std::gcd(m.num_attention_heads, run.attention.heads);
        m.num_kv_heads = std::gcd(m.num_kv_heads, run.attention.kv_heads);
        const auto width = run.count * run.query_width();
        m.attention_width += width;
        const auto& a = run.attention;
        if (const auto window = a.chunk ? a.chunk : a.window; window && !a.compress_ratio)
          m.windowed_attention.push_back({width, window});
        break;
      }
      case MixerKind::latent_attention:
        m.num_attention_heads = std::gcd(m.num_attention_heads, run.latent.heads);
        m.num_kv_heads = std::gcd(m.num_kv_heads, run.latent.heads);
        m.attention_width += run.count * run.query_width();
        break;
      case MixerKind::linear_attention:
        switch (run.linear.kind) {
          case LinearKind::gated_delta_net: {
            const auto& l = run.linear;
            m.gated_delta_layers += run.count;
            m.gated_delta_size += static_cast<double>(run.count * l.value_heads * l.key_head_dim * l.value_head_dim) /
                                  (32.0 * 128 * 128);
            break;
          }
          case LinearKind::kimi_delta: m.kimi_delta_layers += run.count; break;
        }
        break;
      case MixerKind::mamba2: m.mamba_layers += run.count; break;
      case MixerKind::none: break;
    }
  }
  return m;
}

namespace {

// "4.37" and "60–80": the figures the explanations show, rounded as the English writes them.
MessageArg figure(std::string_view name, double v, int precision) { return arg::general(name, v, precision); }

// A clause that is there or not: an empty message renders as nothing in every language.
Message clause_if(bool present, const Message& m) { return present ? m : Message(); }

Message gpu_class_clause(GpuClass gpu_class) {
  switch (gpu_class) {
    case GpuClass::consumer: return message("speed.how.class_consumer", "consumer GPU");
    case GpuClass::datacenter: return message("speed.how.class_datacenter", "datacenter GPU");
    case GpuClass::apple: return message("speed.how.class_apple", "apple GPU");
  }
  return message("speed.how.class_consumer", "consumer GPU");
}

// What a step reads of the weights: all of them, or of a mixture of experts those the batch touches.
Message weights_read_clause(const SpeedModel& model, const SpeedOptions& o, double distinct) {
  if (model.expert_groups.empty()) return message("speed.how.weights_once", "weights once");
  const SpeedModel::ExpertGroup* most = &model.expert_groups.front();
  for (const auto& g : model.expert_groups)
    if (g.layers > most->layers) most = &g;
  return message("speed.how.weights_experts",
                 "the weights every token reads once, and of each layer's {experts} routed experts ({top_k} per "
                 "token) the {distinct} that {batch} sequence(s) touch on average under uniform routing, "
                 "E · (1 − (1 − k/E)^B){bound}",
                 {arg::digits("experts", most->experts), arg::digits("top_k", most->top_k),
                  figure("distinct", distinct, 3), arg::digits("batch", o.batch),
                  // No published measurement of how many distinct experts a decode batch touches under a real router.
                  arg::message("bound", clause_if(o.batch > 1, message("speed.how.uniform_bound",
                                                                       ", the most a batch can touch: real routers "
                                                                       "favour some experts, so it may read fewer")))});
}

// The layers or experts left in system RAM, read by the CPU.
// The overhead per step: per layer where the layers are known; a bare parameter count pays a measured step's.
Message overhead_clause(const SpeedModel& model, const Efficiency& eff) {
  const Range step = step_overhead_s(eff, overhead_layers(model));
  if (!model.layers_known)
    return message("speed.how.overhead_measured",
                   "{overhead_low}–{overhead_high} ms per step (the kernels a model of {layers} layers launches and "
                   "waits for, as measured: this model's layers are not known)",
                   {figure("overhead_low", step.low * 1e3, 3), figure("overhead_high", step.high * 1e3, 3),
                    arg::digits("layers", kOverheadMeasuredLayers)});
  const Range moe = moe_overhead_s(eff, model);
  const Range per_moe_layer = moe_layer_overhead_for(eff, model);
  const Message moe_clause = clause_if(
      moe.high > 0, message("speed.how.overhead_moe",
                            ", and {moe_low}–{moe_high} µs more for each of its {moe_layers} expert layers (experts "
                            "stored in {moe_bits} bits{measured_on}), {moe_step_low}–{moe_step_high} ms per step (the "
                            "router, the top-k, sorting the tokens by expert, the grouped products' launches and the "
                            "combine: kernels a dense layer does not launch)",
                            {figure("moe_low", per_moe_layer.low * 1e6, 3),
                             figure("moe_high", per_moe_layer.high * 1e6, 3),
                             arg::digits("moe_layers", model.expert_layers()),
                             arg::digits("moe_bits", width_bits(expert_width(model))),
                             arg::message("measured_on", clause_if(expert_width(model) == ExpertWidth::bits4,
                                                                   message("speed.how.overhead_moe_4bit",
                                                                           "; measured on gpt-oss's MXFP4 experts, "
                                                                           "other 4-bit kernels may be slower"))),
                             figure("moe_step_low", moe.low * 1e3, 3), figure("moe_step_high", moe.high * 1e3, 3)}));
  return message("speed.how.overhead_layers",
                 "{layer_low}–{layer_high} µs for each of its {layers} layers, {overhead_low}–{overhead_high} ms per "
                 "step (the kernels each layer launches and waits for){moe}",
                 {figure("layer_low", eff.layer_overhead_s.low * 1e6, 3),
                  figure("layer_high", eff.layer_overhead_s.high * 1e6, 3), arg::digits("layers", model.num_layers),
                  figure("overhead_low", step.low * 1e3, 3), figure("overhead_high", step.high * 1e3, 3),
                  arg::message("moe", moe_clause)});
}

Message in_ram_clause(const SpeedOptions& o, const StepTerms& terms) {
  if (terms.cpu_bytes <= 0) return Message();
  if (terms.cpu_expert_bytes > 0 && o.cpu_expert_layers > 0)
    return message("speed.how.cpu_experts",
                   "; the experts of {layers} layers{output} stay in system RAM: {cpu_gb} GB per step read by the "
                   "CPU, which computes them there (no weights cross PCIe while decoding), the experts at "
                   "{share_low}–{share_high} % of {ram_bandwidth} GB/s (many small matrices, the CPU's threads "
                   "waiting for each other after every one); GPU and CPU hand the activations over {handoffs} times "
                   "per step, twice at each of the {split_layers} layers whose attention stays on the GPU, "
                   "{handoff_low}–{handoff_high} µs each",
                   {arg::digits("layers", o.cpu_expert_layers),
                    arg::message("output", clause_if(o.output_on_cpu, message("speed.how.and_output",
                                                                              " and the output layer"))),
                    figure("cpu_gb", terms.cpu_bytes / 1e9, 3),
                    figure("share_low", kCpuExpertBandwidthShare.low * 100, 2),
                    figure("share_high", kCpuExpertBandwidthShare.high * 100, 2),
                    figure("ram_bandwidth", o.system_bandwidth_gb_s, 4),
                    arg::digits("handoffs", static_cast<std::uint64_t>(std::llround(terms.handoffs))),
                    arg::digits("split_layers", static_cast<std::uint64_t>(std::llround(terms.split_layers))),
                    figure("handoff_low", kCpuHandoffSeconds.low * 1e6, 3),
                    figure("handoff_high", kCpuHandoffSeconds.high * 1e6, 3)});
  return message("speed.how.cpu_layers", "; layers in system RAM are read at {ram_bandwidth} GB/s",
                 {figure("ram_bandwidth", o.system_bandwidth_gb_s, 4)});
}

Message decode_explanation(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& o, const Efficiency& eff,
                           const StepTerms& terms, const DecodeSpeed& d) {
  return message(
      "speed.how.decode",
      "Each step reads {step_gb} GB per GPU ({weights}, plus {batch} sequence(s) of KV cache{state}) at "
      "{share_low}–{share_high} % of {bandwidth} GB/s ({engine}, {gpu_class}), plus {overhead}{compute_bound}{in_ram}"
      "{tensor_parallel}.",
      {figure("step_gb", terms.gpu_bytes / 1e9, 3),
       arg::message("weights", weights_read_clause(model, o, d.distinct_experts_per_layer)),
       arg::digits("batch", o.batch),
       arg::message("state", clause_if(o.state_bytes_per_sequence != 0,
                                       message("speed.how.state", " and of recurrent state, read and written back"))),
       figure("share_low", eff.bandwidth_share.low * 100, 2), figure("share_high", eff.bandwidth_share.high * 100, 2),
       figure("bandwidth", *gpu.bandwidth_gb_s, 4), arg::text("engine", engine_title(o.engine)),
       arg::message("gpu_class", gpu_class_clause(gpu_class_of(gpu))),
       arg::message("overhead", overhead_clause(model, eff)),
       arg::message("compute_bound", clause_if(d.compute_bound, message("speed.how.compute_bound",
                                                                         "; at this batch the step is compute-bound"))),
       arg::message("in_ram", in_ram_clause(o, terms)),
       arg::message("tensor_parallel",
                    clause_if(o.tensor_parallel > 1,
                              message("speed.how.tensor_parallel",
                                      "; tensor parallel over {tp} GPUs adds two all-reduces per layer",
                                      {arg::digits("tp", o.tensor_parallel)})))});
}

}  // namespace

Result<DecodeSpeed> estimate_decode(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& given) {
  if (auto ok = check_inputs(model, gpu, given); !ok) return ok.error();
  const SpeedOptions o = with_ram_bandwidth(gpu, given);
  const Efficiency& eff = efficiency(o.engine, gpu);
  const StepTerms terms = decode_terms(model, o);
  const Range allreduce = allreduce_seconds(model, gpu, o.tensor_parallel, static_cast<double>(o.batch));
  const Range overhead = step_overhead_s(eff, overhead_layers(model)) + moe_overhead_s(eff, model);

  // Slow end: low shares, high overhead; fast end: the reverse.
  const StepTime slow = step_time(terms, gpu, o, eff.bandwidth_share.low, overhead.high, eff.compute_share.low,
                                  kCpuSlow, allreduce.high);
  const StepTime fast = step_time(terms, gpu, o, eff.bandwidth_share.high, overhead.low, eff.compute_share.high,
                                  kCpuFast, allreduce.low);
  const double batch = static_cast<double>(o.batch);

  DecodeSpeed d;
  d.step_seconds = {fast.total, slow.total};
  d.tokens_per_second = {batch / slow.total, batch / fast.total};
  d.tokens_per_second_per_sequence = {1.0 / slow.total, 1.0 / fast.total};
  d.bytes_per_step_per_gpu = terms.gpu_bytes;
  d.flops_per_step_per_gpu = terms.flops;
  d.compute_bound = fast.compute > fast.memory;
  d.cpu_seconds = {fast.cpu, slow.cpu};
  d.handoff_seconds = {fast.handoff, slow.handoff};
  d.allreduce_seconds = allreduce;
  if (o.tensor_parallel > 1) {
    SpeedOptions single = o;
    single.tensor_parallel = 1;
    const StepTime one = step_time(decode_terms(model, single), gpu, single, eff.bandwidth_share.high, overhead.low,
                                   eff.compute_share.high, kCpuFast, 0);
    d.tensor_parallel_efficiency = one.total / static_cast<double>(o.tensor_parallel) / fast.total;
  }
  d.bytes_per_step_cpu = terms.cpu_bytes;
  d.distinct_experts_per_layer = distinct_experts(model, o.batch);
  d.explanation = decode_explanation(model, gpu, o, eff, terms, d);
  return d;
}

namespace {

// Σ over the tokens p in [d, d + s) of the keys each attends to under a causal mask, at most `window` (0: no window):
// ∫ min(x, window) dx from d to d + s, which is s · (d + s/2) without a window.
double attended_keys(double d, double s, double window) noexcept {
  if (window <= 0 || d + s <= window) return s * (d + s / 2);
  if (d >= window) return s * window;
  return (window * window - d * d) / 2 + (d + s - window) * window;
}

// llama.cpp's CUDA FlashAttention over a pass of s tokens after d cached ones: the keys it multiplies, not only those
// the mask lets through. The cache's cells are counted in strides of 256 (FATTN_KQ_STRIDE, get_n_kv's padding); from
// 1024 tokens a pass (flash_attn_mask_to_KV_max runs "if (... Q->ne[1] >= 1024 ...)") each block of queries stops at
// the stride after its last unmasked key, 128 keys past it on average, but always starts at cell 0, so a
// sliding-window layer multiplies about everything its cache holds up to the query: the window's cells kept from
// before and the pass's own tokens causally (llama-kv-cache-iswa.cpp: the window's cache is pad(window + n_ubatch,
// 256) cells, sized for the configured micro-batch `ubatch`, so a shorter last pass keeps more). Below 1024 tokens,
// or with FlashAttention off (the KQ product spans the whole cache in use), every query multiplies every cell in use.
// The stride of 256 holds for the versions that pad every cache to it (get_n_kv: max(n_pad, 256)); older ones padded
// to 32 with FlashAttention off, at most 224 keys fewer a query.
double llamacpp_cuda_keys(double d, double s, double window, double ubatch, bool flash_attention) noexcept {
  const auto stride = [](double x) { return 256.0 * std::ceil(x / 256.0); };
  const double kept = window > 0 ? std::min(d, stride(window + std::max(ubatch, s)) - s) : d;
  if (s >= 1024 && flash_attention) return s * (kept + s / 2 + 128.0);
  return s * stride(kept + s);
}

// Whether `gpu` runs the CUDA kernels the prefill figures were read from or measured on: NVIDIA's, and AMD's, for
// which ROCm builds the same kernels. Other back-ends (llama.cpp's Metal, SYCL and Vulkan kernels) are not read here.
bool runs_cuda_kernels(const Gpu& gpu) noexcept { return gpu.vendor == "NVIDIA" || gpu.vendor == "AMD"; }

// Whether prefill's attention runs llama.cpp's CUDA kernels (Ollama from 0.30 runs llama-server); other back-ends
// keep the count the mask lets through, as do the other engines' FlashAttention kernels, which skip the blocks a
// causal or sliding-window mask hides.
bool llamacpp_cuda_attention(const SpeedOptions& o, const Gpu& gpu) noexcept {
  return (o.engine == Engine::llamacpp || o.engine == Engine::ollama) && runs_cuda_kernels(gpu);
}

// Attention FLOPs of one chunk: QKᵀ and AV, 2 FLOPs each per query, key and unit of width; the keys as the mask lets
// through, or as llama.cpp's CUDA kernels multiply them (`cuda_span`, passes of `ubatch` configured).
double chunk_attention_flops(const SpeedModel& m, double d, double s, bool cuda_span, double ubatch,
                             bool flash_attention) noexcept {
  const auto keys = [&](double window) {
    return cuda_span ? llamacpp_cuda_keys(d, s, window, ubatch, flash_attention) : attended_keys(d, s, window);
  };
  double windowed = 0, flops = 0;
  for (const auto& w : m.windowed_attention) {
    windowed += static_cast<double>(w.width);
    flops += 4.0 * static_cast<double>(w.width) * keys(static_cast<double>(w.window));
  }
  const double full = std::max(0.0, static_cast<double>(m.attention_width) - windowed);
  return flops + 4.0 * full * keys(0);
}

// The refusal when the catalog (or the person's figures) has no throughput for the compute path.
Error no_peak_error(const Gpu& gpu, ComputePath path) {
  const auto field = arg::text("field", compute_path_field(gpu, path));
  if (!gpu.custom.empty())
    return make_error("gpu", message("speed.no_tflops_custom",
                                     "{gpu} is described by your figures, and its {field} figure is not among them, "
                                     "so prefill speed cannot be estimated",
                                     {arg::text("gpu", gpu.name), field}));
  return make_error("gpu", message("speed.no_tflops",
                                   "{gpu} has no {field} figure in the catalog, so prefill speed cannot be estimated",
                                   {arg::text("gpu", gpu.name), field}));
}

// The figures every chunk shares: the peaks, the chunking and the parameters by the kind of product they feed.
struct PrefillPlan {
  double peak = 0, attention_peak = 0;
  bool attention_own_peak = false;  // a 16-bit figure of its own, else the path's peak stands in
  double prompt = 0, chunk = 0, chunks = 0;
  double dense_params = 0, routed_active = 0, head = 0, every_token = 0;
  double copy_seconds = 0;  // CPU-held weights copied over PCIe
  bool cuda_span = false;   // attention counted as llama.cpp's CUDA kernels multiply it (llamacpp_cuda_attention)
};

// llama.cpp copies CPU-held weights to the GPU once per micro-batch for large batches (op offload); --n-cpu-moe's
// layers send their whole expert tensors the same way.
Result<double> offload_copy_seconds(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& o, double chunks) {
  const double cpu = cpu_fraction(model, o);
  const double expert_share =
      model.expert_layers() ? std::min(1.0, static_cast<double>(o.cpu_expert_layers) /
                                                static_cast<double>(model.expert_layers()))
                            : 0.0;
  double routed_all = 0;
  for (const auto& g : model.expert_groups) routed_all += g.bytes;
  const double expert_copy = expert_share > cpu ? (expert_share - cpu) * routed_all : 0.0;
  if (cpu <= 0 && expert_copy <= 0) return 0.0;
  const std::optional<double> pcie = gpu.pcie_gen ? pcie_x16_gb_s(*gpu.pcie_gen) : std::nullopt;
  if (!pcie)
    return make_error("gpu", message("speed.no_pcie", "{gpu} has no PCIe generation in the catalog for offloaded prefill",
                                     {arg::text("gpu", gpu.name)}));
  return chunks * (static_cast<double>(model.weight_bytes_read) * cpu + expert_copy) / (*pcie * 1e9);
}

Result<PrefillPlan> plan_prefill(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& o) {
  const std::optional<double> peak = peak_tflops(gpu, o.compute);
  if (!peak || !positive_finite(*peak)) return no_peak_error(gpu, o.compute);
  PrefillPlan p;
  p.peak = *peak;
  // FlashAttention multiplies 16-bit Q, K and V whatever the weights' path; without a 16-bit figure the path's peak
  // stands in, and the explanation says so.
  const std::optional<double> fp16_peak = peak_tflops(gpu, ComputePath::fp16);
  p.attention_own_peak = fp16_peak && positive_finite(*fp16_peak);
  p.attention_peak = p.attention_own_peak ? *fp16_peak : *peak;
  p.prompt = static_cast<double>(o.prompt_tokens);
  p.chunk = o.prefill_chunk ? static_cast<double>(std::min(o.prefill_chunk, o.prompt_tokens)) : p.prompt;
  p.chunks = std::ceil(p.prompt / p.chunk);
  p.routed_active = std::min(model.routed_active_params(), static_cast<double>(model.active_params));
  p.head = static_cast<double>(model.head_params);
  p.dense_params = std::max(0.0, static_cast<double>(model.active_params) - p.routed_active -
                                     static_cast<double>(model.lookup_params) - p.head);
  p.every_token = std::max(0.0, static_cast<double>(model.weight_bytes_read) - model.routed_bytes_read(1));
  auto copy = offload_copy_seconds(model, gpu, o, p.chunks);
  if (!copy) return copy.error();
  p.copy_seconds = copy.value();
  p.cuda_span = llamacpp_cuda_attention(o, gpu);
  return p;
}

}  // namespace

double mmq_tile_columns(double tokens) noexcept {
  const double tiles = std::ceil(tokens / kMmqTileMax);
  const double width = 8.0 * std::ceil(std::ceil(tokens / tiles) / 8.0);
  // mul_mat_q_case skips a width that is not a multiple of its granularity, 16 from 48 columns on tensor-core GPUs
  // (ggml-cuda/mmq.cuh mmq_get_granularity_host: "turing_mma_available(cc) && mmq_x >= 48" → 16, else 8).
  return width >= 48 ? 16.0 * std::ceil(width / 16.0) : width;
}

namespace {

// E[⌈T / m⌉] for T ~ Binomial(n, p): the tiles one expert's tokens fill when each of n tokens picks it with chance p
// (uniform routing), summed over T's distribution in log space so that large n does not underflow.
double expected_tiles(double n, double p, double m) noexcept {
  if (p >= 1.0) return std::ceil(n / m);
  const double mean = n * p;
  const double last = std::min(n, std::ceil(mean + 12.0 * std::sqrt(mean * (1.0 - p)) + 16.0));
  const double log_ratio = std::log(p) - std::log1p(-p);
  double log_pmf = n * std::log1p(-p);  // T = 0
  double tiles = 0;
  for (double t = 1; t <= last; ++t) {
    log_pmf += std::log((n - t + 1.0) / t) + log_ratio;
    tiles += std::exp(log_pmf) * std::ceil(t / m);
  }
  return tiles;
}

// The unused tile columns of the routed products for a chunk of `tokens`, as parameter-columns (× 2: FLOPs): per group
// params · (m · E[tiles] − tokens · k/E), each expert's tiles m columns wide less the tokens routed to it.
double unused_tile_params(const SpeedModel& model, double tokens) noexcept {
  const double m = mmq_tile_columns(tokens);
  double unused = 0;
  for (const SpeedModel::ExpertGroup& g : model.expert_groups) {
    if (g.experts == 0) continue;
    const double k_share = std::min(1.0, static_cast<double>(g.top_k) / static_cast<double>(g.experts));
    unused += g.params * std::max(0.0, m * expected_tiles(tokens, k_share, m) - tokens * k_share);
  }
  return unused;
}

// The recurrence figures for `gpu`: measured on CUDA kernels (runs_cuda_kernels), none for other back-ends.
const Efficiency::Recurrence& recurrence_on(const Efficiency& eff, const Gpu& gpu) noexcept {
  static constexpr Efficiency::Recurrence kNone{};
  return runs_cuda_kernels(gpu) ? eff.gated_delta : kNone;
}

// The Gated DeltaNet layers' recurrence over a chunk of s tokens: each layer after the other, the larger of the floor
// and s · per token each (Efficiency::Recurrence), a layer larger than the measured one in proportion at the high
// end; the recurrence does not overlap the layer's products, which feed it.
Range recurrence_seconds(const Efficiency::Recurrence& r, const SpeedModel& model, double s) noexcept {
  const double layers = static_cast<double>(model.gated_delta_layers);
  return {layers * std::max(r.floor_s.low, r.per_token_s.low * s),
          std::max(layers, model.gated_delta_size) * std::max(r.floor_s.high, r.per_token_s.high * s)};
}

// Each chunk at its own depth: the same FLOPs for the products, attention growing with the tokens before it.
// Slow end: low shares and high overhead; fast end: the reverse. Returns the chunks the weights' read bounds at
// the slow end.
double run_chunks(PrefillSpeed& p, const PrefillPlan& plan, const SpeedModel& model, const Gpu& gpu,
                  const SpeedOptions& o, const Efficiency& eff, double& slow, double& fast) {
  const double tp = static_cast<double>(o.tensor_parallel);
  const double depth = static_cast<double>(o.prefill_depth);
  const Range overhead = step_overhead_s(eff, overhead_layers(model)) + moe_overhead_s(eff, model);
  double memory_bound_chunks = 0;
  double tile_tokens = -1, tile_params = 0;  // the last chunk length's unused tile columns (all but the last are equal)
  const double configured_pass = static_cast<double>(o.prefill_chunk ? o.prefill_chunk : o.prompt_tokens);
  for (double k = 0; k < plan.chunks; ++k) {
    const double s = std::min(plan.chunk, plan.prompt - k * plan.chunk);
    // The output head multiplies the prompt's last token only.
    const double gemm = 2.0 * plan.dense_params * s + (k + 1 == plan.chunks ? 2.0 * plan.head : 0.0);
    const double moe = 2.0 * plan.routed_active * s;
    // The grouped products' tiles run whole: their unused columns at moe_tile_weight of a token's (Efficiency).
    if (s != tile_tokens) tile_tokens = s, tile_params = eff.moe_tile_weight > 0 ? unused_tile_params(model, s) : 0.0;
    const double moe_setup = 2.0 * tile_params * eff.moe_tile_weight;
    const double attention = chunk_attention_flops(model, depth + k * plan.chunk, s, plan.cuda_span, configured_pass,
                                                   o.flash_attention);
    p.gemm_flops += gemm;
    p.moe_flops += moe;
    p.attention_flops += attention;
    // The chunk reads the weights once: what every token reads, and each expert some token of it is routed to.
    const double bytes = (plan.every_token + model.routed_bytes_read(static_cast<std::uint64_t>(s))) / tp;
    auto chunk_seconds = [&](double dense_share, double moe_share, double attention_share, double bw_share,
                             bool overlapped) {
      const double compute = (gemm / (plan.peak * 1e12 * dense_share) +
                              (moe + moe_setup) / (plan.peak * 1e12 * moe_share) +
                              attention / (plan.attention_peak * 1e12 * attention_share)) / tp;
      const double memory = bytes / (*gpu.bandwidth_gb_s * 1e9 * bw_share);
      // llama.cpp's MMQ loads each weight tile into shared memory and then multiplies it, double-buffered across the
      // tile's k-steps: how much of the read hides behind the arithmetic is not measured, so for the routed experts'
      // tiles (moe_tile_weight > 0, a model with experts) the slow end has them follow each other and the fast end
      // overlap whole. A dense model's products are large enough to hide the read (the dense runs lie in the range).
      return std::pair{overlapped ? std::max(compute, memory) : compute + memory, memory > compute};
    };
    const auto [low_end, memory_bound] = chunk_seconds(eff.compute_share.low, eff.moe_share.low,
                                                       eff.attention_share.low, eff.bandwidth_share.low,
                                                       eff.moe_tile_weight <= 0 || model.expert_groups.empty());
    const Range recurrence = recurrence_seconds(recurrence_on(eff, gpu), model, s);
    p.recurrence_seconds = p.recurrence_seconds + recurrence;
    slow += low_end + overhead.high + recurrence.high;
    fast += chunk_seconds(eff.compute_share.high, eff.moe_share.high, eff.attention_share.high,
                          eff.bandwidth_share.high, true).first + overhead.low + recurrence.low;
    if (memory_bound) memory_bound_chunks += 1;
  }
  return memory_bound_chunks;
}

// "60–80 %" of a peak, and " (assumed share)" where no published run pins the share.
Message assumed_clause(bool pinned) {
  return clause_if(!pinned, message("speed.how.assumed", " (assumed share)"));
}

// What each chunk pays besides its arithmetic and reads: the kernels of its layers, as a decode step does.
Message chunk_overhead_clause(const SpeedModel& model, const Efficiency& eff, std::uint64_t chunks) {
  const Range step = step_overhead_s(eff, overhead_layers(model)) + moe_overhead_s(eff, model);
  return message("speed.how.prefill_overhead",
                 "each chunk also pays {overhead_low}–{overhead_high} ms for launching its layers' kernels, "
                 "{total_low}–{total_high} ms in all",
                 {figure("overhead_low", step.low * 1e3, 3), figure("overhead_high", step.high * 1e3, 3),
                  figure("total_low", step.low * 1e3 * static_cast<double>(chunks), 3),
                  figure("total_high", step.high * 1e3 * static_cast<double>(chunks), 3)});
}

// How the attention FLOPs were counted: under the mask, or as llama.cpp's CUDA kernels compute them.
Message attention_rule_clause(const SpeedModel& model, const SpeedOptions& o, bool cuda_span) {
  const bool windowed = !model.windowed_attention.empty();
  if (!cuda_span) return clause_if(windowed, message("speed.how.windows", ", sliding-window layers capped at their window"));
  const Message whole_cache =
      clause_if(windowed, message("speed.how.cuda_span_windows", ", sliding-window layers against their whole cache"));
  if (!o.flash_attention)
    return message("speed.how.cuda_span_no_fa",
                   "; counted instead as llama.cpp computes it with FlashAttention off: each token against every "
                   "cached token{windows}",
                   {arg::message("windows", whole_cache)});
  return message("speed.how.cuda_span",
                 "; llama.cpp's CUDA kernels compute more than the mask needs: in chunks under 1024 tokens each token "
                 "against every cached token, in chunks of 1024 tokens or more against every cached token up to its "
                 "own, rounded up to a multiple of 256{windows}",
                 {arg::message("windows", whole_cache)});
}

// What the recurrent layers add to a prefill, or that it is not counted.
Message recurrence_clause(const PrefillSpeed& p, const SpeedModel& model, const Efficiency& eff, const Gpu& gpu,
                          const SpeedOptions& o) {
  const Efficiency::Recurrence& r = recurrence_on(eff, gpu);
  const auto layers = arg::digits("layers", model.gated_delta_layers);
  const auto scan_low = figure("scan_low", p.recurrence_seconds.low * 1e3, 3);
  const auto scan_high = figure("scan_high", p.recurrence_seconds.high * 1e3, 3);
  const auto token_low = figure("token_low", r.per_token_s.low * 1e6, 3);
  const auto token_high = figure("token_high", r.per_token_s.high * 1e6, 3);
  // A recurrence no figure times, named with its kind.
  const auto not_counted = [&](std::uint64_t n, std::string_view kind) {
    return message("speed.how.recurrence_untimed",
                   "; the recurrence of the {layers} {kind} layers is not counted (no published measurement for "
                   "{engine} on the {gpu})",
                   {arg::digits("layers", n), arg::text("kind", kind), arg::text("engine", engine_title(o.engine)),
                    arg::text("gpu", gpu.name)});
  };
  Message gated;
  if (model.gated_delta_layers > 0 && !r.timed()) {
    gated = not_counted(model.gated_delta_layers, "Gated DeltaNet");
  } else if (model.gated_delta_layers > 0 && r.floor_s.high > 0) {
    gated = message("speed.how.recurrence_chunked",
                    ", and {scan_low}–{scan_high} ms for the recurrence of the {layers} Gated DeltaNet layers in "
                    "flash-linear-attention's chunked kernels (per layer and chunk up to {floor} ms, or "
                    "{token_low}–{token_high} µs a token where that is more; RTX 5090, llama.cpp PR #22587; other GPUs "
                    "assumed alike)",
                    {scan_low, scan_high, layers, figure("floor", r.floor_s.high * 1e3, 3), token_low, token_high});
  } else if (model.gated_delta_layers > 0) {
    gated = message("speed.how.recurrence_sequential",
                    ", and {scan_low}–{scan_high} ms for the recurrence of the {layers} Gated DeltaNet layers, which "
                    "llama.cpp's CUDA kernel runs token by token ({token_low}–{token_high} µs a token and layer; RTX "
                    "5090, llama.cpp PR #22587; other GPUs assumed alike)",
                    {scan_low, scan_high, layers, token_low, token_high});
  }
  return message("speed.how.recurrence", "{gated}{kimi}{mamba}",
                 {arg::message("gated", gated),
                  arg::message("kimi", model.kimi_delta_layers ? not_counted(model.kimi_delta_layers, "Kimi Delta Attention")
                                                               : Message()),
                  arg::message("mamba", model.mamba_layers ? not_counted(model.mamba_layers, "Mamba2") : Message())});
}

Message prefill_explanation(const PrefillSpeed& p, const PrefillPlan& plan, const SpeedModel& model, const Gpu& gpu,
                            const SpeedOptions& o, const Efficiency& eff, double memory_bound_chunks) {
  const std::string_view field = compute_path_field(gpu, o.compute);
  const Message moe =
      clause_if(p.moe_flops > 0,
                message("speed.how.prefill_moe",
                        ", {moe_tflop} in the routed experts' grouped products at {share_low}–{share_high} % of "
                        "it{assumed}{setup}{measured}",
                        {figure("moe_tflop", p.moe_flops / 1e12, 4),
                         figure("share_low", std::round(eff.moe_share.low * 1000) / 10, 3),
                         figure("share_high", std::round(eff.moe_share.high * 1000) / 10, 3),
                         arg::message("measured",
                                      clause_if(!eff.moe_card.empty(),
                                                message("speed.how.prefill_moe_card",
                                                        " (the share and the spare columns' cost from runs on "
                                                        "an {card}, assumed for other {architecture} cards)",
                                                        {arg::text("architecture", gpu.architecture),
                                                         arg::text("card", eff.moe_card)}))),
                         arg::message("setup",
                                      clause_if(eff.moe_tile_weight > 0,
                                                message("speed.how.prefill_moe_tiles",
                                                        ", each expert's tokens multiplied in whole tiles of "
                                                        "{tile} tokens (the width llama.cpp picks for a pass of "
                                                        "{chunk}), a tile's unused column costing {weight} of a "
                                                        "token's",
                                                        {arg::digits("tile", static_cast<std::uint64_t>(
                                                                                 mmq_tile_columns(plan.chunk))),
                                                         arg::digits("chunk", static_cast<std::uint64_t>(plan.chunk)),
                                                         figure("weight", eff.moe_tile_weight, 2)}))),
                         arg::message("assumed", assumed_clause(eff.prefill_pinned))}));
  const Message attention_field =
      plan.attention_own_peak
          ? message("speed.how.field", "{field}", {arg::text("field", compute_path_field(gpu, ComputePath::fp16))})
          : message("speed.how.field_stands_in", "{field} (the catalog has no 16-bit figure)",
                    {arg::text("field", field)});
  const Message passes =
      p.chunks > 1 ? message("speed.how.chunks", "in {chunks} chunks of {chunk} tokens, each",
                             {arg::digits("chunks", p.chunks),
                              arg::digits("chunk", static_cast<std::uint64_t>(plan.chunk))})
                   : message("speed.how.one_pass", "one pass, which");
  return message(
      "speed.how.prefill",
      "{tflop} TFLOP for {tokens} prompt tokens{depth}: {dense_tflop} in dense matrix products at "
      "{dense_low}–{dense_high} % of {peak} {field}{dense_assumed}{moe}, {attention_tflop} in attention over the "
      "cache (4 · width · tokens · (depth + tokens/2) per chunk{windows}) at {attention_low}–{attention_high} % of "
      "{attention_peak} {attention_field}{attention_assumed}{recurrence}; {passes} reads the weights it uses at least "
      "once{memory_bound}{copy}; {chunk_overhead}.",
      {figure("tflop", p.flops / 1e12, 4), arg::digits("tokens", o.prompt_tokens),
       arg::message("depth", clause_if(o.prefill_depth != 0, message("speed.how.depth", " after {depth} cached tokens",
                                                                     {arg::digits("depth", o.prefill_depth)}))),
       figure("dense_tflop", p.gemm_flops / 1e12, 4), figure("dense_low", eff.compute_share.low * 100, 2),
       figure("dense_high", eff.compute_share.high * 100, 2), figure("peak", plan.peak, 5), arg::text("field", field),
       arg::message("dense_assumed", assumed_clause(eff.compute_pinned)), arg::message("moe", moe),
       figure("attention_tflop", p.attention_flops / 1e12, 4),
       arg::message("windows", attention_rule_clause(model, o, plan.cuda_span)),
       figure("attention_low", eff.attention_share.low * 100, 2),
       figure("attention_high", eff.attention_share.high * 100, 2), figure("attention_peak", plan.attention_peak, 5),
       arg::message("attention_field", attention_field),
       arg::message("attention_assumed", assumed_clause(eff.prefill_pinned)),
       arg::message("recurrence", recurrence_clause(p, model, eff, gpu, o)), arg::message("passes", passes),
       arg::message("memory_bound",
                    clause_if(memory_bound_chunks > 0,
                              message("speed.how.memory_bound",
                                      " (at the slow end that read takes longer than the arithmetic)"))),
       arg::message("chunk_overhead", chunk_overhead_clause(model, eff, p.chunks)),
       arg::message("copy", clause_if(plan.copy_seconds > 0,
                                      message("speed.how.copy", "; CPU-held layers are copied over PCIe once per chunk")))});
}

}  // namespace

Result<PrefillSpeed> estimate_prefill(const SpeedModel& model, const Gpu& gpu, const SpeedOptions& o) {
  if (auto ok = check_inputs(model, gpu, o); !ok) return ok.error();
  if (o.prompt_tokens == 0 || o.prompt_tokens > 100'000'000)
    return make_error("prompt_tokens", message("speed.prompt_range", "must be between 1 and 100000000"));
  auto planned = plan_prefill(model, gpu, o);
  if (!planned) return planned.error();
  const PrefillPlan& plan = planned.value();
  const Efficiency& eff = efficiency(o.engine, gpu);
  const Range allreduce = allreduce_seconds(model, gpu, o.tensor_parallel, plan.prompt);

  PrefillSpeed p;
  p.chunks = static_cast<std::uint64_t>(plan.chunks);
  double slow = 0, fast = 0;
  const double memory_bound_chunks = run_chunks(p, plan, model, gpu, o, eff, slow, fast);
  slow += plan.copy_seconds + allreduce.high;
  fast += plan.copy_seconds + allreduce.low;
  p.flops = p.gemm_flops + p.moe_flops + p.attention_flops;
  p.seconds = {fast, slow};
  p.tokens_per_second = {plan.prompt / slow, plan.prompt / fast};
  p.explanation =
      prefill_explanation(p, plan, model, gpu, o, eff, memory_bound_chunks);
  return p;
}

Result<std::vector<SpeedMeasurement>> parse_speed_measurements(std::string_view json_text) {
  auto parsed = detail::parse_json(json_text, "measurements");
  if (!parsed) return parsed.error();
  const detail::json& root = parsed.value();
  detail::FieldReader top(root, "");
  const detail::json* list = top.array("measurements");
  if (top.error()) return *top.error();
  if (!list)
    return make_error("measurements", message("measurements.expected_array", "expected an array of measurements"));
  std::vector<SpeedMeasurement> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string path = "measurements[" + std::to_string(i) + "]";
    detail::FieldReader r((*list)[i], path);
    SpeedMeasurement m;
    m.model = r.string("model").value_or("");
    m.format = r.string("format").value_or("");
    m.gpu = r.string("gpu").value_or("");
    const std::string engine = r.string("engine").value_or("");
    m.metric = r.string("metric").value_or("");
    m.batch = r.uint("batch").value_or(1);
    m.context = r.uint("context").value_or(0);
    m.depth = r.uint("depth").value_or(0);
    m.ubatch = r.uint("ubatch").value_or(0);
    m.cpu_expert_layers = r.uint("cpu_expert_layers").value_or(0);
    m.system_bandwidth_gb_s = r.number("system_bandwidth_gb_s").value_or(0);
    m.tokens_per_second = r.number("tokens_per_second").value_or(0);
    m.source = r.string("source").value_or("");
    if (r.error()) return *r.error();
    const auto e = parse_engine(engine);
    if (!e) return make_error(path + ".engine", message("measurements.engine", "expected llama.cpp, vllm or transformers, got \"{given}\"",
                                                   {arg::text("given", engine)}));
    m.engine = *e;
    if (m.metric != "decode" && m.metric != "prefill")
      return make_error(path + ".metric", message("measurements.metric", "expected \"decode\" or \"prefill\""));
    if (m.model.empty() || m.format.empty() || m.gpu.empty() || m.source.empty() || !(m.tokens_per_second > 0))
      return make_error(path, message("measurements.fields",
                                      "needs model, format, gpu, source and a positive tokens_per_second"));
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace vramfit
