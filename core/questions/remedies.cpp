#include "questions/remedies.hpp"

#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <utility>   // std::move, std::pair, std::swap

#include "util/text.hpp"
#include "util/units.hpp"    // signed_difference
#include "formats/weight_formats.hpp"  // native_compute_capability

namespace vramfit {
namespace {

using detail::Text;

Message flash_cost() { return message("remedy.flash", "None: exact attention computed block by block, usually faster"); }
constexpr const char* kFlashSource = "Dao et al. 2022, FlashAttention (arXiv 2205.14135)";
constexpr const char* kZeroSource = "Rajbhandari et al. 2020, ZeRO (arXiv 1910.02054)";
// The quality statement of the article "GPU-Speicher" (section Quantisierung) for lower-precision weights.
Message article_quantization() {
  return message("remedy.source.article_quantization",
                 "with good calibration, benchmark accuracy often within 1-2 points of 16-bit (\"GPU-Speicher\", "
                 "Quantisierung)");
}

// The remedies of one scenario, collected against its "before" figure.
class Collector {
 public:
  Collector(RemediesReport& report, double headroom) : report_(report), headroom_(headroom) {}

  // Keeps the remedy when it saves at least 0.5 % of the busiest GPU's memory: a smaller change is noise next to
  // the estimate's own range, not help.
  void add(Remedy r, const InferenceEstimate& after) {
    add(std::move(r), after.per_gpu.total, &after);
  }

  // `after`, when the change was estimated in full, is judged by the table's rule (estimate_fit); a split or a
  // layer count the inputs cannot express by its bytes alone.
  void add(Remedy r, std::uint64_t after_bytes, const InferenceEstimate* after = nullptr) {
    r.bytes = after_bytes;
    r.saved_bytes = signed_difference(report_.bytes, after_bytes);
    if (r.saved_bytes <= 0 || static_cast<std::uint64_t>(r.saved_bytes) * 200 < report_.bytes) return;
    Text change;
    for (const RemedyInput& in : r.inputs) {
      if (&in != &r.inputs.front()) change << ", ";
      change << in.key << " = ";
      if (in.number) change << *in.number;
      else change << in.text;
    }
    r.explanation = {"saved",
                     message("explain.saved.formula", "memory on the busiest GPU as asked − the same with the change"),
                     message("explain.saved.values", "{before} B − {after} B = {saved} B",
                             {arg::count("before", report_.bytes), arg::count("after", after_bytes),
                              arg::count("saved", static_cast<std::uint64_t>(r.saved_bytes))}),
                     message("explain.saved.source", "two full estimates by the same core; the change: {change}",
                             {arg::text("change", change.str())})};
    if (report_.gpu) {
      const std::uint64_t usable = report_.gpu->usable_bytes();
      r.fit = after ? estimate_fit(*after, usable, headroom_) : classify_fit(after_bytes, usable, headroom_);
      r.free_bytes = signed_difference(usable, after_bytes);
    }
    report_.remedies.push_back(std::move(r));
  }

  // A change that saves nothing but lets the GPU use more (a Mac's wired limit), judged on what it allows.
  void add_room(Remedy r, std::uint64_t bytes, Fit fit, std::uint64_t usable) {
    r.bytes = bytes;
    r.fit = fit;
    r.usable_bytes = usable;
    r.free_bytes = signed_difference(usable, bytes);
    r.explanation = {"usable",
                     message("explain.usable.formula",
                             "the smallest whole-GB limit whose share after the headroom holds the scenario"),
                     message("explain.usable.values", "{needed} B ÷ (1 − {headroom}) ≤ {usable} B",
                             {arg::count("needed", bytes), arg::fixed("headroom", headroom_, 2),
                              arg::count("usable", usable)}),
                     message("explain.usable.source",
                             "sudo sysctl iogpu.wired_limit_mb; the estimate as asked, judged against the raised limit")};
    report_.remedies.push_back(std::move(r));
  }

  // Largest saving first, ties in the order tried. An insertion sort of a dozen entries: std::stable_sort would
  // add its merge machinery to the wasm for this one list.
  void finish() {
    auto& list = report_.remedies;
    for (std::size_t i = 1; i < list.size(); ++i)
      for (std::size_t k = i; k > 0 && list[k - 1].saved_bytes < list[k].saved_bytes; --k) std::swap(list[k - 1], list[k]);
  }

 private:
  RemediesReport& report_;
  double headroom_;
};

Remedy remedy(const char* id, std::vector<RemedyInput> inputs, Message cost, Message source) {
  Remedy r;
  r.id = id;
  r.inputs = std::move(inputs);
  r.cost = std::move(cost);
  r.source = std::move(source);
  return r;
}

RemedyInput text_input(const char* key, std::string value) { return {key, std::move(value), std::nullopt}; }
RemedyInput number_input(const char* key, std::uint64_t value) { return {key, {}, value}; }

// The engine's own 8-bit and 4-bit formats (among those biggest_formats() tries), with what each costs. A bare
// parameter count has no tensor roles for the mixed formats: plain int8 and int4, the article's own rule.
struct Lower {
  const char* weights;
  Message cost;
  Message source;
};

// vLLM's FP8 on `gpu`: native where its tensor cores multiply FP8 (native_compute_capability), else weight-only.
Message fp8_cost(const Gpu* gpu) {
  const std::uint32_t cc = gpu ? compute_capability(*gpu) : 0;
  const auto fp8 = parse_weight_format("fp8");
  const std::uint32_t native = fp8 ? native_compute_capability(fp8.value()) : 0;
  if (cc == 0)
    return message("remedy.fp8", "Slight quality loss; FP8 runs natively on Ada and Hopper GPUs, weight-only (FP8 "
                                 "Marlin) on Ampere");
  if (cc >= native)
    return message("remedy.fp8_native", "Slight quality loss; FP8 runs natively on the {gpu}'s tensor cores",
                   {arg::text("gpu", gpu->name)});
  return message("remedy.fp8_weight_only",
                 "Slight quality loss; the {gpu} (sm_{cc}) has no FP8 tensor cores (sm_{native}+), so vLLM runs FP8 "
                 "weight-only (FP8 Marlin): less memory, no faster prefill",
                 {arg::text("gpu", gpu->name), arg::digits("cc", cc), arg::digits("native", native)});
}

Lower eight_bit(Engine engine, bool bare, const Gpu* gpu) {
  if (ggml_engine(engine))
    return {"q8_0", message("remedy.q8_0", "Perplexity close to f16 (q8_0 keeps 8.5 bits per weight)"),
            "llama.cpp quantization types (ggml-org/llama.cpp, tools/quantize)"};
  if (bare) return {"int8", message("remedy.int8", "Slight quality loss"), article_quantization()};
  if (engine == Engine::mlx)
    return {"mlx-8bit",
            message("remedy.mlx_8bit",
                    "Slight quality loss; mlx_lm.convert -q --q-bits 8 (or an mlx-community 8-bit checkpoint)"),
            message("remedy.source.mlx_quantization", "mlx-lm docs (quantization)")};
  if (engine == Engine::vllm)
    return {"fp8", fp8_cost(gpu), message("remedy.source.vllm_fp8", "vLLM docs (FP8 W8A8)")};
  if (engine == Engine::sglang)
    return {"fp8",
            message("remedy.sglang_fp8", "Slight quality loss; --quantization fp8 quantizes a 16-bit checkpoint as it loads"),
            message("remedy.source.sglang_quantization", "SGLang docs (quantization)")};
  return {"bnb-int8",
          message("remedy.bnb_int8",
                  "Slight quality loss; bitsandbytes' int8 matrix multiplications decode more slowly than 16-bit"),
          "Dettmers et al. 2022, LLM.int8() (arXiv 2208.07339)"};
}
// vLLM on a GPU with FP4 tensor cores (Blackwell): an NVFP4 checkpoint computes FP4 × FP4 there, where AWQ
// only dequantizes.
bool fp4_native(const Gpu* gpu) {
  const auto nvfp4 = parse_weight_format("nvfp4");
  const std::uint32_t cc = gpu ? compute_capability(*gpu) : 0;
  return nvfp4 && cc != 0 && cc >= native_compute_capability(nvfp4.value());
}

Lower four_bit(Engine engine, bool bare, const Gpu* gpu) {
  if (engine == Engine::vllm && !bare && fp4_native(gpu))
    return {"nvfp4",
            message("remedy.nvfp4",
                    "Measurable quality loss, acceptable for many uses; needs an NVFP4 checkpoint (NVIDIA Model "
                    "Optimizer), whose products run on the {gpu}'s FP4 tensor cores",
                    {arg::text("gpu", gpu->name)}),
            message("remedy.source.nvfp4", "NVIDIA TensorRT Model Optimizer docs (NVFP4); vLLM docs (ModelOpt NVFP4)")};
  if (ggml_engine(engine))
    return {"q4_k_m", message("remedy.q4_k_m", "Measurable quality loss, acceptable for many uses; a GGUF file quantized to Q4_K_M"),
            article_quantization()};
  if (bare) return {"int4", message("remedy.int4", "Measurable quality loss, acceptable for many uses"), article_quantization()};
  if (engine == Engine::mlx)
    return {"mlx-4bit",
            message("remedy.mlx_4bit",
                    "Measurable quality loss, acceptable for many uses; mlx_lm.convert -q (4 bits, groups of 64)"),
            article_quantization()};
  if (engine == Engine::vllm || engine == Engine::sglang)
    return {"awq-4bit-128g",
            message("remedy.awq", "Measurable quality loss, acceptable for many uses; needs an AWQ-quantized checkpoint"),
            article_quantization()};
  return {"nf4",
          message("remedy.nf4", "Measurable quality loss, acceptable for many uses; bitsandbytes dequantizes NF4 on the "
                                "fly, so decoding is slower than 16-bit"),
          "Dettmers et al. 2023, QLoRA (arXiv 2305.14314)"};
}

template <class Fits>  // GpuFit or TrainingGpuFit
std::optional<Fit> fit_on(const Fits& fits, const Gpu* gpu) {
  for (const auto& f : fits)
    if (f.gpu == gpu) return f.fit;
  return std::nullopt;
}

// bitsandbytes and DeepSpeed are CUDA (and ROCm) libraries: on an Apple GPU their formats, optimizers and
// offloading are not there to choose (and "host RAM" is the same unified memory).
bool apple(const Gpu* gpu) { return gpu && gpu->vendor == "Apple"; }

// Architectures older than Ampere: no FP8 path in vLLM, no bf16 tensor cores.
bool pre_ampere(const Gpu* gpu) {
  return gpu && (gpu->architecture == "Pascal" || gpu->architecture == "Volta" || gpu->architecture == "Turing");
}

// The fewest of 2, 4 or 8 of the request's GPU, above the `from` it has, (`more` sets the count on the request)
// whose estimate fits it; a count the estimate refuses (heads that do not divide) is skipped.
template <class More>
std::optional<std::pair<std::uint64_t, Report>> fewest_that_fit(const Catalog& catalog, const Request& request,
                                                                  std::uint64_t from, More more) {
  for (std::uint64_t n : {2u, 4u, 8u}) {
    if (n <= from) continue;
    Request v = request;
    more(v, n);
    auto after = evaluate(catalog, v);
    if (after && after.value().gpus.size() == 1 && after.value().gpus.front().fit == Fit::fits)
      return std::pair{n, std::move(after).value()};
  }
  return std::nullopt;
}

// vLLM or SGLang on `n` GPUs as `after` serves them: tensor parallel, or pipeline parallel where the heads do not
// divide.
Message serving_gpus_cost(const Report& after, std::uint64_t n) {
  const bool sglang = after.estimate.engine == Engine::sglang;
  const std::string& gpu = after.gpus.front().gpu->name;
  const std::uint64_t tp = sglang ? after.estimate.sglang->tensor_parallel : after.estimate.vllm->tensor_parallel;
  if (tp != n)
    return message("remedy.pipeline_parallel",
                   "{n} × {gpu} with {flag} {n}: that many GPUs to buy or rent; the layers run one GPU after "
                   "another, so no faster than one",
                   {arg::digits("n", n), arg::text("gpu", gpu),
                    arg::text("flag", sglang ? "--pp-size" : "--pipeline-parallel-size")});
  return sglang ? message("remedy.tensor_parallel_sglang",
                          "{n} × {gpu} with --tp {n}: that many GPUs to buy or rent, and two all-reduces per layer",
                          {arg::digits("n", n), arg::text("gpu", gpu)})
                : message("remedy.tensor_parallel",
                          "{n} × {gpu} with --tensor-parallel-size {n}: that many GPUs to buy or rent, and two "
                          "all-reduces per layer",
                          {arg::digits("n", n), arg::text("gpu", gpu)});
}

Message serving_gpus_source(Engine engine) {
  return engine == Engine::sglang
             ? message("remedy.source.sglang_tp",
                       "Shoeybi et al. 2019, Megatron-LM (arXiv 1909.08053); SGLang docs (server arguments, --tp)")
             : message("remedy.source.vllm_tp",
                       "Shoeybi et al. 2019, Megatron-LM (arXiv 1909.08053); vLLM docs (distributed serving)");
}

// vLLM or SGLang on several of the request's GPU with tensor parallelism.
void add_tensor_parallel(Collector& out, const Catalog& catalog, const Request& request) {
  const auto found = fewest_that_fit(catalog, request, 1, [](Request& v, std::uint64_t n) { v.tp = n; });
  if (!found) return;
  const auto& [n, after] = *found;
  out.add(remedy("tensor-parallel", {number_input("tp", n)}, serving_gpus_cost(after, n),
                 serving_gpus_source(after.estimate.engine)),
          after.estimate);
}

// More of the request's GPU than the `gpus` it has: transformers and llama.cpp put whole layers on each (the
// busiest GPU decides), vLLM and SGLang serve them as they serve the GPUs given.
void add_more_gpus(Collector& out, const Catalog& catalog, const Request& request, Engine engine) {
  const auto found =
      fewest_that_fit(catalog, request, request.gpu_count, [](Request& v, std::uint64_t n) { v.gpu_count = n; });
  if (!found) return;
  const auto& [n, after] = *found;
  if (engine == Engine::vllm || engine == Engine::sglang) {
    out.add(remedy("more-gpus", {number_input("gpus", n)}, serving_gpus_cost(after, n), serving_gpus_source(engine)),
            after.estimate);
    return;
  }
  Message cost = message("remedy.split_layers",
                         "{n} × {gpu} with {how}: that many GPUs to buy or rent; the layers run one GPU after "
                         "another, so no faster than one",
                         {arg::digits("n", n), arg::text("gpu", after.gpus.front().gpu->name),
                          arg::text("how", engine == Engine::llamacpp ? "--split-mode layer" : "device_map=\"auto\"")});
  out.add(remedy("more-gpus", {number_input("gpus", n)}, std::move(cost),
                 engine == Engine::llamacpp
                     ? message("remedy.source.llamacpp_split", "llama.cpp README (--split-mode)")
                     : message("remedy.source.accelerate", "Hugging Face Accelerate docs (big model inference)")),
          after.estimate);
}

// macOS and its apps keep at least this much of a Mac's RAM when the GPU's wired limit is raised: the floor a Mac
// LLM app reserves before wiring a model (osaurus-ai/vmlx-swift PR #421, "floor 8 GB").
constexpr std::uint64_t kMacOsReserve = 8ull << 30;

// The wired limit in MiB (whole GiB) that lets a Mac's GPU hold `bytes` within `headroom`, if that leaves macOS its
// reserve and is more than the GPU may use now; none otherwise.
std::optional<std::uint64_t> wired_limit_needed(const Gpu& gpu, std::uint64_t bytes, double headroom) {
  if (!gpu.unified_memory) return std::nullopt;
  const double needed = static_cast<double>(bytes) / (1.0 - headroom);
  const std::uint64_t gib = static_cast<std::uint64_t>(needed / static_cast<double>(1ull << 30)) + 1;
  if ((gib << 30) <= gpu.usable_bytes() || (gib << 30) + kMacOsReserve > gpu.memory_bytes) return std::nullopt;
  return gib << 10;
}

Message wired_limit_cost(const Gpu& gpu, std::uint64_t limit_mib) {
  const std::uint64_t left_gib = (gpu.memory_bytes >> 30) - (limit_mib >> 10);
  return message("remedy.wired_limit",
                 "Run sudo sysctl iogpu.wired_limit_mb={limit} before loading the model (it lasts until the Mac "
                 "restarts). Wired memory cannot be paged out: macOS and every other app then share the remaining "
                 "{left_bytes}, and if they need more the Mac can freeze or restart",
                 {arg::text("limit", std::to_string(limit_mib)), arg::gib("left_bytes", left_gib << 30, 0)});
}

Message wired_source() {
  return message("remedy.source.wired",
                 "macOS iogpu.wired_limit_mb (0: the default); Metal's recommendedMaxWorkingSetSize follows it "
                 "(antirez/ds4 PR #893)");
}

// A Mac whose GPU share is too small for the scenario (inference or training, judged on `gpus`): the wired limit
// that holds it, the scenario estimated again with it by `again` (the raised catalog, the request with the limit).
template <class Fits, class Again>
void add_wired_limit(Collector& out, const Catalog& catalog, const std::string& gpu_name, const Fits& gpus,
                     std::uint64_t bytes, double headroom, Again again) {
  const Gpu* gpu = gpus.size() == 1 ? gpus.front().gpu : nullptr;
  if (!gpu || gpus.front().fit == Fit::fits) return;
  const auto limit = wired_limit_needed(*gpu, bytes, headroom);
  if (!limit) return;
  const auto raised = with_wired_limit(catalog, gpu_name, *limit);
  if (!raised) return;
  const auto after = again(raised.value(), *limit);  // {bytes, fit} afterwards, or none
  if (!after) return;
  out.add_room(remedy("wired-limit", {number_input("wired_limit_mb", *limit)}, wired_limit_cost(*gpu, *limit),
                      wired_source()),
               after->first, after->second, *limit << 20);
}

}  // namespace

Result<RemediesReport> remedies_for(const Catalog& catalog, const Request& request) {
  auto base = evaluate(catalog, request);
  if (!base) return base.error();
  return remedies_for(catalog, request, base.value());
}

namespace {

// One inference scenario being advised on: the request, its report, and where the remedies go.
struct Advice {
  const Catalog& catalog;
  const Request& request;
  const Report& base;
  const Gpu* gpu;      // the request's GPU, when the report has its verdict
  bool too_small;      // that GPU does not hold the scenario
  Collector& out;

  // The request with one change, estimated again; a change the scenario refuses offers no help. One function, not
  // a lambda per remedy, which would instantiate the whole evaluation once per remedy.
  void attempt(Remedy r, const Request& variant) const {
    if (auto after = evaluate(catalog, variant)) out.add(std::move(r), after.value().estimate);
  }
};

// 8-bit and 4-bit weights in the engine's own formats. A model file's weights are its exact bytes; another format
// is another file, sized nominally: no fair comparison. bitsandbytes has no Apple build; vLLM's FP8 needs Ampere
// or newer.
void add_weight_remedies(const Advice& a) {
  const InferenceEstimate& e = a.base.estimate;
  const bool bare = a.base.model.is_bare();
  if (a.request.imported || (e.engine == Engine::transformers && apple(a.gpu))) return;
  const Lower eight = eight_bit(e.engine, bare, a.gpu), four = four_bit(e.engine, bare, a.gpu);
  Request v;
  if (!(e.engine == Engine::vllm && !bare && pre_ampere(a.gpu))) {
    v = a.request;
    v.weights = eight.weights;
    a.attempt(remedy("weights-8bit", {text_input("weights", eight.weights)}, eight.cost, eight.source), v);
  }
  v = a.request;
  v.weights = four.weights;
  a.attempt(remedy("weights-4bit", {text_input("weights", four.weights)}, four.cost, four.source), v);
}

// An 8-bit KV cache where the engine has one, and exact attention instead of eager. transformers' cache classes
// quantize through quanto or HQQ (int2/int4), which the estimate does not model; vLLM and llama.cpp have an 8-bit
// cache switch. llama.cpp quantizes the V cache only with flash attention on.
void add_cache_remedies(const Advice& a) {
  const InferenceEstimate& e = a.base.estimate;
  const bool wide_kv = e.kv_dtype == KvDType::fp16 || e.kv_dtype == KvDType::bf16 || e.kv_dtype == KvDType::fp32;
  Request v;
  if (wide_kv && (e.engine == Engine::vllm || e.engine == Engine::sglang)) {
    const bool vllm = e.engine == Engine::vllm;
    v = a.request;
    v.kv_dtype = "fp8";
    a.attempt(remedy("kv-8bit", {text_input("kv_dtype", "fp8")},
                     vllm ? message("remedy.kv_fp8", "Small accuracy loss in long contexts; --kv-cache-dtype fp8 (E4M3)")
                          : message("remedy.kv_fp8_sglang",
                                    "Small accuracy loss in long contexts; --kv-cache-dtype fp8_e4m3"),
                     vllm ? message("remedy.source.vllm_kv", "vLLM docs (Quantized KV Cache)")
                          : message("remedy.source.sglang_args", "SGLang docs (server arguments)")),
              v);
  }
  if (wide_kv && e.engine == Engine::mlx && !a.request.max_kv_size) {
    v = a.request;
    v.kv_dtype = "q8_0";
    a.attempt(remedy("kv-8bit", {text_input("kv_dtype", "q8_0")},
                     message("remedy.kv_bits_mlx",
                             "Small accuracy loss in long contexts; --kv-bits 8 (groups of 64); attention then runs unfused"),
                     "mlx-lm generate.py (--kv-bits, QuantizedKVCache)"),
              v);
  }
  if (wide_kv && ggml_engine(e.engine)) {
    const bool ollama = e.engine == Engine::ollama;
    v = a.request;
    v.kv_dtype = "q8_0";
    std::vector<RemedyInput> inputs{text_input("kv_dtype", "q8_0")};
    if (e.attention == Attention::eager) {
      v.attention = "sdpa";
      inputs.push_back(text_input("attention", "sdpa"));
    }
    a.attempt(remedy("kv-8bit", std::move(inputs),
                     ollama ? message("remedy.kv_q8_0_ollama",
                                      "Small accuracy loss; OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1")
                            : message("remedy.kv_q8_0", "Small accuracy loss; -ctk q8_0 -ctv q8_0 with -fa on"),
                     ollama ? "Ollama FAQ (OLLAMA_KV_CACHE_TYPE needs flash attention)"
                            : "llama.cpp server README (--cache-type-k, --cache-type-v, --flash-attn)"),
              v);
  }
  if (e.attention == Attention::eager) {
    v = a.request;
    v.attention = "sdpa";
    a.attempt(remedy("attention-sdpa", {text_input("attention", "sdpa")}, flash_cost(), kFlashSource), v);
  }
}

// Half the context, one sequence at a time.
void add_workload_remedies(const Advice& a) {
  const InferenceEstimate& e = a.base.estimate;
  Request v;
  if (e.context_tokens >= 1024) {
    const std::uint64_t half = e.context_tokens / 2;
    v = a.request;
    v.context = half;
    a.attempt(remedy("context-half", {number_input("context", half)},
                     message("remedy.context_half", "Each sequence holds at most {tokens} tokens of prompt and answer",
                             {arg::count("tokens", half)}),
                     message("remedy.source.kv_context", "the KV cache grows with the context")),
              v);
  }
  if (e.batch > 1) {
    v = a.request;
    v.batch = 1;
    a.attempt(remedy("batch-1", {number_input("batch", 1)},
                     message("remedy.batch_1", "One sequence at a time: lower throughput when many users share the GPU"),
                     message("remedy.source.kv_batch", "the KV cache grows with the batch")),
              v);
  }
}

// llama.cpp on GPUs too small: the most repeating layers (-ngl) that fit, the rest on the CPU, found by bisection
// since memory grows with every layer moved to the GPUs. Advice only: -ngl is not a page input.
void add_gpu_layers(const Advice& a) {
  const InferenceEstimate& e = a.base.estimate;
  if (!a.too_small || e.engine != Engine::llamacpp || !e.llamacpp || a.request.gpu_layers || e.llamacpp->total_layers < 2)
    return;
  std::optional<Report> best;
  std::uint64_t lo = 0, hi = e.llamacpp->total_layers - 1;  // all layers is the scenario itself
  while (lo <= hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    Request v = a.request;
    v.gpu_layers = mid;
    auto after = evaluate(a.catalog, v);
    if (after && !after.value().gpus.empty() && after.value().gpus.front().fit == Fit::fits) {
      best = std::move(after).value();
      lo = mid + 1;
    } else {
      if (mid == 0) break;
      hi = mid - 1;
    }
  }
  if (!best) return;
  const LlamaCppBuffers& l = *best->estimate.llamacpp;
  const std::uint64_t gpus = best->estimate.per_gpu.gpus;
  Message cost = gpus > 1 ? message("remedy.gpu_layers_split",
                                    "{n} of {total} layers on the {gpus} GPUs (-ngl {n}, split by layer), the rest "
                                    "in system RAM",
                                    {arg::digits("n", l.gpu_layers), arg::digits("total", l.total_layers),
                                     arg::digits("gpus", gpus)})
                          : message("remedy.gpu_layers", "{n} of {total} layers on the GPU (-ngl {n}), the rest in system RAM",
                                    {arg::digits("n", l.gpu_layers), arg::digits("total", l.total_layers)});
  if (best->serving && best->serving->speed) {
    const Range& tps = best->serving->speed->decode.tokens_per_second;
    cost = gpus > 1 ? message("remedy.gpu_layers_split_speed",
                              "{n} of {total} layers on the {gpus} GPUs (-ngl {n}, split by layer), the rest in "
                              "system RAM: decoding at {low}-{high} tokens/s, as the CPU reads its layers at "
                              "system-RAM bandwidth",
                              {arg::digits("n", l.gpu_layers), arg::digits("total", l.total_layers),
                               arg::digits("gpus", gpus), arg::fixed("low", tps.low, 1), arg::fixed("high", tps.high, 1)})
                    : message("remedy.gpu_layers_speed",
                              "{n} of {total} layers on the GPU (-ngl {n}), the rest in system RAM: decoding at "
                              "{low}-{high} tokens/s, as the CPU reads its layers at system-RAM bandwidth",
                              {arg::digits("n", l.gpu_layers), arg::digits("total", l.total_layers),
                               arg::fixed("low", tps.low, 1), arg::fixed("high", tps.high, 1)});
  }
  Remedy r = remedy("gpu-layers", {number_input("gpu_layers", l.gpu_layers)}, std::move(cost),
                    message("remedy.source.ngl", "llama.cpp --n-gpu-layers; the speed model's CPU share (methodology: Speed)"));
  r.applicable = false;
  r.host_ram_bytes = l.host_ram_bytes;
  a.out.add(std::move(r), best->estimate.per_gpu.total);  // the busiest GPU, as the scenario's figure
}

// GPUs too small for the whole scenario: the fewest of them (2, 4 or 8, more than it has) that hold it, estimated
// in full. vLLM and SGLang on one GPU get tensor parallelism (--tensor-parallel-size n: weights and KV heads
// divided, the sampler's peak on every rank); with `gpus` given, more of them served the same way. transformers
// (device_map="auto") and llama.cpp (--split-mode layer) put whole layers on each GPU (the input gpus).
void add_more_hardware(const Advice& a) {
  if (!a.too_small || a.gpu->one_per_machine() || a.request.tp * a.request.pp > 1) return;
  const Engine engine = a.base.estimate.engine;
  const bool serving = engine == Engine::vllm || engine == Engine::sglang;
  if (serving && a.request.gpu_count == 1) add_tensor_parallel(a.out, a.catalog, a.request);
  else add_more_gpus(a.out, a.catalog, a.request, engine);
}

}  // namespace

Result<RemediesReport> remedies_for(const Catalog& catalog, const Request& request, const Report& b) {
  const InferenceEstimate& e = b.estimate;

  RemediesReport report;
  report.mode = "inference";
  report.bytes = e.per_gpu.total;
  // Over different cards the fullest one changes from one variant to the next, so a saving would compare one card's
  // part with another's: none is given.
  if (!request.devices.empty()) {
    report.notes.push_back(message("remedy.unlike_cards",
                                   "What would help is worked out for cards of one kind; for different cards together "
                                   "it is not estimated yet."));
    return report;
  }
  std::optional<GpuFit> gpu_fit;
  if (!request.gpu.empty() && b.gpus.size() == 1) {
    gpu_fit = b.gpus.front();
    report.gpu = gpu_fit->gpu;
    report.fit = gpu_fit->fit;
  }
  if (e.engine == Engine::vllm)
    report.notes.push_back(message("remedy.vllm_pool",
                                   "vLLM takes gpu_memory_utilization of the GPU whatever the model needs: memory "
                                   "saved here becomes KV cache room for more concurrent tokens, not free memory."));
  if (e.engine == Engine::sglang)
    report.notes.push_back(message("remedy.sglang_pool",
                                   "SGLang takes mem_fraction_static of the GPU for weights and KV pool whatever the "
                                   "model needs: memory saved here becomes KV pool room for more concurrent tokens, "
                                   "not free memory."));
  Collector out(report, b.headroom);
  const Advice advice{catalog, request, b, report.gpu, gpu_fit && gpu_fit->fit == Fit::does_not_fit, out};
  add_weight_remedies(advice);
  add_cache_remedies(advice);
  add_workload_remedies(advice);
  if (gpu_fit)
    add_wired_limit(out, catalog, request.gpu, b.gpus, e.total, b.headroom,
                    [&](const Catalog& raised, std::uint64_t limit) -> std::optional<std::pair<std::uint64_t, Fit>> {
                      Request w = request;
                      w.wired_limit_mb = limit;
                      auto after = evaluate(raised, w);
                      if (!after || after.value().gpus.size() != 1) return std::nullopt;
                      return std::pair{after.value().estimate.total, after.value().gpus.front().fit};
                    });
  add_gpu_layers(advice);
  add_more_hardware(advice);
  out.finish();
  return report;
}

Result<RemediesReport> remedies_for(const Catalog& catalog, const TrainingRequest& request) {
  auto base = evaluate_training(catalog, request);
  if (!base) return base.error();
  return remedies_for(catalog, request, base.value());
}

Result<RemediesReport> remedies_for(const Catalog& catalog, const TrainingRequest& request, const TrainingReport& b) {
  const TrainingOptions& o = b.options;
  const TrainingEstimate& e = b.estimate;

  RemediesReport report;
  // GRPO trains its policy as `policy` says: there LoRA and QLoRA set that input, not the mode.
  const bool grpo = o.grpo.has_value();
  const char* method_key = grpo ? "policy" : "mode";
  report.mode = grpo ? "grpo" : training_mode_name(o.mode);
  report.bytes = e.breakdown.total;
  report.gpu = b.gpu;
  if (b.gpu) report.fit = fit_on(b.gpus, b.gpu);
  Collector out(report, b.headroom);

  auto attempt = [&](Remedy r, const TrainingRequest& variant) {
    if (auto after = evaluate_training(catalog, variant)) {
      r.host_ram_bytes = after.value().estimate.host_ram_bytes;
      out.add(std::move(r), after.value().estimate.breakdown.total);
    }
  };
  TrainingRequest v;
  // A bare parameter count has no activations, and LoRA needs the model's layers.
  const bool shapes = e.activations.has_value();
  const bool cuda_libraries = !apple(b.gpu);  // bitsandbytes, DeepSpeed
  if (shapes && o.checkpointing != Checkpointing::full) {
    v = request;
    v.checkpointing = "full";
    attempt(remedy("checkpointing", {text_input("checkpointing", "full")},
                   message("remedy.checkpointing", "The backward pass reruns each layer's forward: about a third "
                                                   "more compute (the article \"GPU-Speicher\" reports 20-30 % "
                                                   "longer training)"),
                   "Chen et al. 2016 (arXiv 1604.06174)"),
            v);
  }
  if (shapes && keeps_attention_scores(o.attn_implementation)) {
    v = request;
    v.attn_implementation = "sdpa";
    attempt(remedy("flash-attention", {text_input("attn_implementation", "sdpa")}, flash_cost(), kFlashSource), v);
  }
  if (cuda_libraries && (o.optimizer == Optimizer::adamw || o.optimizer == Optimizer::paged_adamw)) {
    const char* eight = o.optimizer == Optimizer::adamw ? "adamw-8bit" : "paged-adamw-8bit";
    v = request;
    v.optimizer = eight;
    attempt(remedy("optimizer-8bit", {text_input("optimizer", eight)},
                   message("remedy.optimizer_8bit", "Adam's two states in 8 bits: the paper matches 32-bit Adam on its benchmarks"),
                   "Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization (arXiv 2110.02861)"),
            v);
  }
  if (shapes && o.mode == TrainingMode::full) {
    v = request;
    (grpo ? v.policy : v.mode) = "lora";
    attempt(remedy("lora", {text_input(method_key, "lora")},
                   message("remedy.lora", "Only low-rank adapters learn: on par with full fine-tuning in the paper's "
                                          "benchmarks (RoBERTa, DeBERTa, GPT-2, GPT-3)"),
                   "Hu et al. 2021, LoRA (arXiv 2106.09685)"),
            v);
  }
  if (shapes && cuda_libraries && o.mode != TrainingMode::qlora) {
    v = request;
    (grpo ? v.policy : v.mode) = "qlora";
    attempt(remedy("qlora", {text_input(method_key, "qlora")},
                   message("remedy.qlora", "Adapters over a 4-bit NF4 base: the paper matches 16-bit fine-tuning; "
                                           "steps are slower (dequantization)"),
                   "Dettmers et al. 2023, QLoRA (arXiv 2305.14314)"),
            v);
  }
  if (o.precision == Precision::fp32) {
    // bf16 needs Ampere or newer; older GPUs train in fp16 with loss scaling.
    const char* mixed = pre_ampere(b.gpu) || (b.gpu && !b.gpu->tflops_bf16) ? "mixed-fp16" : "mixed-bf16";
    v = request;
    v.precision = mixed;
    attempt(remedy("mixed-precision", {text_input("precision", mixed)},
                   message("remedy.mixed_precision",
                           "16-bit compute with fp32 master weights: about the same accuracy, faster on tensor cores"),
                   "Micikevicius et al. 2018 (arXiv 1710.03740)"),
            v);
  }
  // ZeRO-Offload of a full fine-tune, where the optimizer states are most of the memory (LoRA's are a few MB).
  // DeepSpeed offloads the partitioned optimizer: it runs with stage 2, on one GPU too.
  if (cuda_libraries && o.mode == TrainingMode::full && o.parallel.offload == Offload::none) {
    v = request;
    v.offload = "optimizer";
    std::vector<RemedyInput> inputs{text_input("offload", "optimizer")};
    if (o.parallel.zero == ZeroStage::none) {
      v.zero = "2";
      inputs.push_back(text_input("zero", "2"));
    }
    if (auto after = evaluate_training(catalog, v)) {
      const TrainingEstimate& a = after.value().estimate;
      Remedy r = remedy("offload-optimizer", std::move(inputs),
                        message("remedy.offload_optimizer",
                                "Training takes {min}-{max} times as long; the optimizer states and gradients move to "
                                "host RAM",
                                {arg::fixed("min", a.slowdown.min, 1), arg::fixed("max", a.slowdown.max, 1)}),
                        a.slowdown.source);
      r.host_ram_bytes = a.host_ram_bytes;
      out.add(std::move(r), a.breakdown.total);
    }
  }
  if (o.parallel.gpus > 1 && o.parallel.zero != ZeroStage::parameters && o.parallel.offload == Offload::none) {
    v = request;
    v.zero = "3";
    attempt(remedy("zero-3", {text_input("zero", "3")},
                   message("remedy.zero_3", "Weights, gradients and optimizer states split across the GPUs: 1.5 × "
                                            "the data-parallel communication"),
                   kZeroSource),
            v);
  }
  if (b.gpu)
    add_wired_limit(out, catalog, request.gpu, b.gpus, e.breakdown.total, b.headroom,
                    [&](const Catalog& raised, std::uint64_t limit) -> std::optional<std::pair<std::uint64_t, Fit>> {
                      TrainingRequest w = request;
                      w.wired_limit_mb = limit;
                      auto after = evaluate_training(raised, w);
                      if (!after || after.value().gpus.size() != 1) return std::nullopt;
                      return std::pair{after.value().estimate.breakdown.total, after.value().gpus.front().fit};
                    });
  // The request's GPU is too small: the fewest of them (2, 4 or 8) that hold the job with ZeRO-3.
  if (b.gpu && report.fit == Fit::does_not_fit && o.parallel.gpus == 1 && !b.gpu->one_per_machine()) {
    for (std::uint64_t n : {2u, 4u, 8u}) {
      v = request;
      v.gpus = n;
      v.zero = "3";
      auto after = evaluate_training(catalog, v);
      if (!after || fit_on(after.value().gpus, b.gpu) == Fit::does_not_fit) continue;
      Remedy r = remedy("more-gpus", {number_input("gpus", n), text_input("zero", "3")},
                        message("remedy.more_gpus_zero3",
                                "{n} × {gpu} with ZeRO-3: {n} times the GPUs, and 1.5 × the data-parallel communication",
                                {arg::digits("n", n), arg::text("gpu", b.gpu->name)}),
                        kZeroSource);
      r.host_ram_bytes = after.value().estimate.host_ram_bytes;
      out.add(std::move(r), after.value().estimate.breakdown.total);
      break;
    }
  }
  if (shapes && o.parallel.micro_batch > 1) {
    const std::uint64_t m = o.parallel.micro_batch, accum = o.parallel.gradient_accumulation * m;
    v = request;
    v.micro_batch = 1;
    v.grad_accum = accum;
    attempt(remedy("micro-batch-1", {number_input("micro_batch", 1), number_input("grad_accum", accum)},
                   message("remedy.micro_batch_1",
                           "The same effective batch in {n} times as many smaller steps (gradient accumulation): "
                           "lower GPU utilisation",
                           {arg::digits("n", m)}),
                   message("remedy.source.micro_batch", "activations grow with the micro-batch (Korthikanti et al. 2022, arXiv 2205.05198)")),
            v);
  }
  out.finish();
  return report;
}

}  // namespace vramfit
