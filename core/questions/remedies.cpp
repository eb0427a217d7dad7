#include "questions/remedies.hpp"

#include <algorithm>    // std::sort, std::greater, std::any_of
#include <cmath>        // std::round
#include <cstddef>      // std::size_t
#include <cstdio>       // std::snprintf
#include <functional>   // std::greater
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <utility>      // std::move, std::pair
#include <variant>      // std::get_if

#include "formats/weight_formats.hpp"  // native_compute_capability, parse_weight_format
#include "util/small_sort.hpp"         // small_stable_sort
#include "util/text.hpp"
#include "util/units.hpp"              // signed_difference

namespace vramfit {
namespace {

using detail::Text;

Message flash_cost() { return message("remedy.flash", "None: exact attention computed block by block, usually faster"); }
Message flash_source() { return message("remedy.source.flash", "Dao et al. 2022, FlashAttention (arXiv 2205.14135)"); }
Message zero_source() { return message("remedy.source.zero", "Rajbhandari et al. 2020, ZeRO (arXiv 1910.02054)"); }
Message qlora_source() { return message("remedy.source.qlora", "Dettmers et al. 2023, QLoRA (arXiv 2305.14314)"); }
// The quality statement of the article "GPU-Speicher" (section Quantisierung) for lower-precision weights.
Message article_quantization() {
  return message("remedy.source.article_quantization",
                 "with good calibration, benchmark accuracy often within 1-2 points of 16-bit (\"GPU-Speicher\", "
                 "Quantisierung)");
}

// Which part of the list a remedy belongs in, first to last: it fits; it runs with a cost (less than the headroom
// free, or part of the model in system RAM); it does not fit or the engine would not start; more GPUs. Without a
// GPU to judge by, every saving is in the first.
int list_part(std::optional<Fit> fit) {
  if (!fit || *fit == Fit::fits) return 0;
  return *fit == Fit::tight ? 1 : 2;
}
int list_part(const Remedy& r) {
  if (std::any_of(r.sizes.begin(), r.sizes.end(), [](ChangeSize s) { return s == ChangeSize::more_gpus; })) return 3;
  return list_part(r.fit);
}

// The colour of a verdict as a fit: running with part of the model in system RAM is a yes with a cost (tight), an
// engine that would not start a no (verdict_fit_name).
Fit fit_of(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::fits: return Fit::fits;
    case VerdictKind::tight:
    case VerdictKind::runs_split: return Fit::tight;
    default: return Fit::does_not_fit;
  }
}

// The smaller change of two: fewer changes, then the larger of each one's sizes smaller, then the other's; a larger
// saving breaks a tie.
bool smaller_change(const Remedy& a, const Remedy& b) {
  if (a.sizes.size() != b.sizes.size()) return a.sizes.size() < b.sizes.size();
  std::vector<ChangeSize> x = a.sizes, y = b.sizes;
  std::sort(x.begin(), x.end(), std::greater<>());
  std::sort(y.begin(), y.end(), std::greater<>());
  if (x != y) return x < y;
  return a.saved_bytes > b.saved_bytes;
}

// The list's order (docs/methodology.md, "Remedies"): by part; in the parts that run, the smallest change first; in
// the part that does not, the closest first (the most free memory afterwards), which the summary names.
bool listed_before(const Remedy& a, const Remedy& b) {
  const int pa = list_part(a), pb = list_part(b);
  if (pa != pb) return pa < pb;
  if (pa == 2 && a.free_bytes != b.free_bytes) return a.free_bytes > b.free_bytes;
  return smaller_change(a, b);
}

// Where a scenario's memory goes: the busiest GPU's part, and what stays in system RAM where the engine places part
// of the model there (llama.cpp's --fit or -ngl, Ollama's layers): what the headline's GPU row counts on the card.
struct Placement {
  std::uint64_t gpu_bytes = 0;
  std::uint64_t ram_bytes = 0;
  std::uint64_t all() const noexcept { return gpu_bytes + ram_bytes; }
};
Placement placement_of(const Report& r) {
  const InferenceEstimate& e = r.estimate;
  const auto& plan = r.llamacpp_fit;
  if (r.verdict.kind == VerdictKind::runs_split && plan &&
      (plan->step == LlamaFitStep::experts || plan->step == LlamaFitStep::layers))
    return {placed_on_card(*plan, e), plan->host_ram_bytes};
  if (e.ollama && e.ollama->planned && e.ollama->layers_offload > 0 && e.ollama->layers_offload < e.ollama->layers_model)
    return {e.ollama->required_partial_bytes, e.ollama->system_ram_bytes};
  if (e.llamacpp && e.llamacpp->gpu_layers < e.llamacpp->total_layers) return {e.per_gpu.total, e.llamacpp->host_ram_bytes};
  return {e.per_gpu.total, 0};
}

// The remedies of one scenario, collected against its "before" figure.
class Collector {
 public:
  Collector(RemediesReport& report, double headroom, std::uint64_t before_ram = 0)
      : report_(report), headroom_(headroom), before_ram_(before_ram) {}

  // Inference: `r` judged by the report of the scenario with its change, `after`: its memory on the busiest GPU (and
  // in system RAM where the scenario as asked keeps some there, its GPU then full either way), and the verdict the
  // headline would give, which runs with a cost wherever layers stay in system RAM. True when it is kept: it saves at
  // least 0.5 % of the memory as asked (a smaller change is noise next to the estimate's own range, not help), or it
  // runs where the scenario did not.
  bool judge(Remedy& r, const Report& after) const {
    const Placement p = placement_of(after);
    r.bytes = p.gpu_bytes;
    r.host_ram_bytes = p.ram_bytes;
    if (report_.gpu) {
      VerdictKind kind = after.verdict.kind;
      if (p.ram_bytes > 0 && (kind == VerdictKind::fits || kind == VerdictKind::tight)) kind = VerdictKind::runs_split;
      r.verdict = kind;
      r.headline = after.verdict.message;
      r.fit = fit_of(kind);
      r.free_bytes = signed_difference(usable_for(*report_.gpu, after.estimate.in_use), p.gpu_bytes);
    }
    explain(r, before_ram_ > 0 ? p.all() : p.gpu_bytes, before_ram_ > 0);
    return saves_enough(r) || list_part(r.fit) < list_part(report_.fit);
  }

  // `r` does better than the scenario as asked, or than `other`: it is in a better part of the list; or in the same
  // part, where `other` keeps some of the model in system RAM, which the CPU reads each step, a twentieth less there
  // (about a twentieth faster); else 0.5 % of the memory as asked saved beyond it.
  bool better(const Remedy& r, const Remedy* other) const {
    const int part = list_part(r), than = other ? list_part(*other) : list_part(report_.fit);
    if (part != than) return part < than;
    const std::uint64_t ram = other ? other->host_ram_bytes : before_ram_;
    if (ram > 0) return r.host_ram_bytes * 20 <= ram * 19;
    const std::int64_t saved = other ? other->saved_bytes : 0;
    return r.saved_bytes > saved && static_cast<std::uint64_t>(r.saved_bytes - saved) * 200 >= before();
  }

  void add(Remedy r, const Report& after) {
    if (judge(r, after)) keep(std::move(r));
  }

  // Training: the busiest GPU's memory afterwards, judged by the table's rule.
  void add(Remedy r, std::uint64_t after_bytes) {
    r.bytes = after_bytes;
    explain(r, after_bytes, false);
    if (!saves_enough(r)) return;
    if (report_.gpu) {
      const std::uint64_t usable = report_.gpu->usable_bytes();
      r.fit = classify_fit(after_bytes, usable, headroom_);
      r.free_bytes = signed_difference(usable, after_bytes);
    }
    keep(std::move(r));
  }

  // A change that saves nothing but lets the GPU use more (a Mac's wired limit, an AMD APU's GTT limit), judged on what
  // it allows.
  void add_room(Remedy r, std::uint64_t bytes, Fit fit, std::uint64_t usable, const Report* after = nullptr) {
    r.bytes = bytes;
    r.fit = fit;
    if (after) {
      r.verdict = after->verdict.kind;
      r.headline = after->verdict.message;
    }
    r.usable_bytes = usable;
    r.free_bytes = signed_difference(usable, bytes);
    r.explanation = {"usable",
                     message("explain.usable.formula",
                             "the smallest whole-GB limit whose share after the headroom holds the scenario"),
                     message("explain.usable.values", "{needed} B ÷ (1 − {headroom}) ≤ {usable} B",
                             {arg::count("needed", bytes), arg::fixed("headroom", headroom_, 2),
                              arg::count("usable", usable)}),
                     report_.gpu && report_.gpu->shared == SharedMemory::amd_apu
                         ? message("explain.usable.source_gtt",
                                   "Linux's ttm.pages_limit; the estimate as asked, judged against the raised limit")
                         : message("explain.usable.source", "sudo sysctl iogpu.wired_limit_mb; the estimate as asked, "
                                                            "judged against the raised limit")};
    keep(std::move(r));
  }

  void keep(Remedy r) { report_.remedies.push_back(std::move(r)); }

  const std::vector<Remedy>& kept() const noexcept { return report_.remedies; }
  const Remedy* find(std::string_view id) const {
    for (const Remedy& r : report_.remedies)
      if (r.id == id) return &r;
    return nullptr;
  }
  // The memory as asked, on the busiest GPU and in system RAM: 0.5 % of it is the least a change must save.
  std::uint64_t before() const noexcept { return report_.bytes + before_ram_; }
  bool saves_enough(const Remedy& r) const {
    return r.saved_bytes > 0 && static_cast<std::uint64_t>(r.saved_bytes) * 200 >= before();
  }

  void finish() { detail::small_stable_sort(report_.remedies, listed_before); }

 private:
  // The saving, before − after, and its explanation: on the busiest GPU, and in system RAM where either keeps some.
  void explain(Remedy& r, std::uint64_t after, bool with_ram) const {
    r.saved_bytes = signed_difference(before(), after);
    Text change;
    for (const RemedyInput& in : r.inputs) {
      if (&in != &r.inputs.front()) change << ", ";
      change << in.key << " = ";
      if (in.number) change << *in.number;
      else change << in.text;
    }
    r.explanation = {"saved",
                     with_ram ? message("explain.saved.formula_ram",
                                        "memory on the busiest GPU and in system RAM as asked − the same with the "
                                        "change")
                              : message("explain.saved.formula",
                                        "memory on the busiest GPU as asked − the same with the change"),
                     message("explain.saved.values", "{before} B − {after} B = {saved} B",
                             {arg::count("before", before()), arg::count("after", after),
                              arg::signed_count("saved", r.saved_bytes)}),
                     message("explain.saved.source", "two full estimates by the same core; the change: {change}",
                             {arg::text("change", change.str())})};
  }

  RemediesReport& report_;
  double headroom_;
  std::uint64_t before_ram_;
};

Remedy remedy(const char* id, ChangeSize size, std::vector<RemedyInput> inputs, Message cost, Message source) {
  Remedy r;
  r.id = id;
  r.parts = {id};
  r.sizes = {size};
  r.inputs = std::move(inputs);
  r.cost = std::move(cost);
  r.source = std::move(source);
  return r;
}

RemedyInput text_input(const char* key, std::string value) { return {key, std::move(value), std::nullopt, {}}; }
RemedyInput number_input(const char* key, std::uint64_t value) { return {key, {}, value, {}}; }
// The inference choices: the value itself, named as the request names it.
RemedyInput choice_input(Engine engine) { return {"engine", std::string(engine_name(engine)), std::nullopt, engine}; }
RemedyInput choice_input(KvDType dtype) {
  return {"kv_dtype", std::string(kv_dtype_info(dtype).name), std::nullopt, dtype};
}
RemedyInput choice_input(Attention attention) {
  return {"attention", std::string(attention_name(attention)), std::nullopt, attention};
}
// vLLM's gpu_memory_utilization to two decimals, as the request JSON writes it and the remedy applies it.
RemedyInput gpu_util_input(double util) {
  const double hundredths = std::round(util * 100) / 100;
  char text[8];
  std::snprintf(text, sizeof text, "%.2f", hundredths);
  return {"gpu_util", text, std::nullopt, hundredths};
}

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
            message("remedy.source.llamacpp_quantize", "llama.cpp quantization types (ggml-org/llama.cpp, tools/quantize)")};
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
          message("remedy.source.llm_int8", "Dettmers et al. 2022, LLM.int8() (arXiv 2208.07339)")};
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
  if (kv_pool_engine(engine))
    return {"awq-4bit-128g",
            message("remedy.awq", "Measurable quality loss, acceptable for many uses; needs an AWQ-quantized checkpoint"),
            article_quantization()};
  return {"nf4",
          message("remedy.nf4", "Measurable quality loss, acceptable for many uses; bitsandbytes dequantizes NF4 on the "
                                "fly, so decoding is slower than 16-bit"),
          qlora_source()};
}

std::optional<Fit> fit_on(const std::vector<GpuFit>& fits, const Gpu* gpu) {
  for (const auto& f : fits)
    if (f.gpu == gpu) return f.fit;
  return std::nullopt;
}

// bitsandbytes and DeepSpeed are CUDA (and ROCm) libraries: on an Apple GPU their formats, optimizers and
// offloading are not there to choose (and "host RAM" is the same unified memory).
bool apple(const Gpu* gpu) { return gpu && gpu->is_apple(); }

// Architectures older than Ampere: no FP8 path in vLLM, no bf16 tensor cores.
bool pre_ampere(const Gpu* gpu) {
  return gpu && (gpu->architecture == "Pascal" || gpu->architecture == "Volta" || gpu->architecture == "Turing");
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

// The operating system and its programs keep at least this much of a shared-memory machine's RAM when the GPU's
// share is raised: the floor a Mac LLM app reserves before wiring a model (osaurus-ai/vmlx-swift PR #421, "floor 8
// GB"), and what AMD's MI300A guide leaves the OS of 128 GB ("if the OS requires 8GB on a 128GB system ... up to
// 120GB", ROCm/amdgpu-docs docs/system-optimization/mi300a.rst).
constexpr std::uint64_t kSystemReserve = 8ull << 30;

// The share in MiB (whole GiB) that lets the GPU of a machine whose share can be set (a Mac's wired limit, an AMD
// APU's GTT limit) hold `bytes` within `headroom`, if that leaves the system its reserve and is more than the GPU may
// use now; none otherwise. A DGX Spark or Jetson has no share to set: CUDA takes what is free.
std::optional<std::uint64_t> wired_limit_needed(const Gpu& gpu, std::uint64_t bytes, double headroom) {
  if (!gpu.unified_memory || gpu.shared == SharedMemory::nvidia_unified) return std::nullopt;
  const double needed = static_cast<double>(bytes) / (1.0 - headroom);
  const std::uint64_t gib = static_cast<std::uint64_t>(needed / static_cast<double>(1ull << 30)) + 1;
  if ((gib << 30) <= gpu.usable_bytes() || (gib << 30) + kSystemReserve > gpu.memory_bytes) return std::nullopt;
  return gib << 10;
}

// Linux counts TTM's limit in 4 KiB pages (ttm.pages_limit): a share of N MiB is N × 256 pages.
std::uint64_t ttm_pages(std::uint64_t limit_mib) { return (limit_mib << 20) / kLinuxPageBytes; }

Message wired_limit_cost(const Gpu& gpu, std::uint64_t limit_mib) {
  const std::uint64_t left_gib = (gpu.memory_bytes >> 30) - (limit_mib >> 10);
  if (gpu.shared == SharedMemory::amd_apu && gpu.default_share_bytes)
    // ROCm's amdttm counts one limit for all the machine's APUs: each one's pages times their number.
    return message("remedy.amdttm_limit",
                   "Load amdttm with pages_limit and page_pool_size of {pages} (4 KiB pages: {limit_bytes} for each "
                   "of the machine's {apus} APUs), then reload amdgpu. The system and every other program then share "
                   "the remaining {left_bytes} of each",
                   {arg::text("pages", std::to_string(ttm_pages(limit_mib) * gpu.gpus_per_machine)),
                    arg::gib("limit_bytes", limit_mib << 20, 0), arg::digits("apus", gpu.gpus_per_machine),
                    arg::gib("left_bytes", left_gib << 30, 0)});
  if (gpu.shared == SharedMemory::amd_apu)
    // The page count as typed on the kernel command line: text, so no page groups its digits.
    return message("remedy.gtt_limit",
                   "Start Linux with the kernel parameter ttm.pages_limit={pages} (4 KiB pages: {limit_bytes}; in "
                   "GRUB_CMDLINE_LINUX, then reboot), or set the BIOS carve-out to that much. The system and every "
                   "other program then share the remaining {left_bytes}",
                   {arg::text("pages", std::to_string(ttm_pages(limit_mib))),
                    arg::gib("limit_bytes", limit_mib << 20, 0),
                    arg::gib("left_bytes", left_gib << 30, 0)});
  return message("remedy.wired_limit",
                 "Run sudo sysctl iogpu.wired_limit_mb={limit} before loading the model (it lasts until the Mac "
                 "restarts). Wired memory cannot be paged out: macOS and every other app then share the remaining "
                 "{left_bytes}, and if they need more the Mac can freeze or restart",
                 {arg::text("limit", std::to_string(limit_mib)), arg::gib("left_bytes", left_gib << 30, 0)});
}

Message wired_source(const Gpu& gpu) {
  if (gpu.shared == SharedMemory::amd_apu && gpu.default_share_bytes)
    return message("remedy.source.amdttm",
                   "AMD Instinct MI300A system optimization (ROCm/amdgpu-docs, docs/system-optimization/mi300a.rst): "
                   "pages_limit and page_pool_size in 4 KiB pages for all APUs together: 33554432 per APU of 128 GiB, "
                   "134217728 for four");
  if (gpu.shared == SharedMemory::amd_apu)
    return message("remedy.source.gtt",
                   "Linux ttm.pages_limit, in 4 KiB pages (drivers/gpu/drm/ttm/ttm_device.c); amdgpu sizes GTT by it "
                   "(amdgpu_ttm.c); ttm.pages_limit=25165824 gave llama.cpp 98304 MiB (noamsto/nix-amd-ai issue #42)");
  return message("remedy.source.wired",
                 "macOS iogpu.wired_limit_mb (0: the default); Metal's recommendedMaxWorkingSetSize follows it "
                 "(antirez/ds4 PR #893)");
}

// A Mac or AMD APU whose GPU share is too small for the scenario (inference or training, judged on `gpus`): the share
// that holds it, for `again` to estimate the scenario with (the raised catalog, the limit, the remedy to fill in).
template <class Fits, class Again>
void add_wired_limit(const std::string& gpu_name, const Catalog& catalog, const Fits& gpus, std::uint64_t bytes,
                     double headroom, Again again) {
  const Gpu* gpu = gpus.size() == 1 ? gpus.front().gpu : nullptr;
  if (!gpu || gpus.front().fit == Fit::fits) return;
  const auto limit = wired_limit_needed(*gpu, bytes, headroom);
  if (!limit) return;
  const auto raised = with_wired_limit(catalog, gpu_name, *limit);
  if (!raised) return;
  again(raised.value(), *limit,
        remedy("wired-limit", ChangeSize::setting, {number_input("wired_limit_mb", *limit)}, wired_limit_cost(*gpu, *limit),
               wired_source(*gpu)));
}

// One change to an inference request as the request's own inputs: applying them (with_inputs) is the change.
struct Change {
  const char* id;
  ChangeSize size;
  std::vector<RemedyInput> inputs;
  Message cost;
  Message source;
};

void set_input(Request& v, const RemedyInput& in) {
  const std::string_view key = in.key;
  if (const auto* engine = std::get_if<Engine>(&in.value)) v.engine = *engine;
  else if (const auto* dtype = std::get_if<KvDType>(&in.value)) v.kv_dtype = *dtype;
  else if (const auto* attention = std::get_if<Attention>(&in.value)) v.attention = *attention;
  else if (const auto* util = std::get_if<double>(&in.value)) v.gpu_util = *util;
  else if (key == "weights") v.weights = in.text;
  else if (key == "context") v.context = in.number;
  else if (key == "batch") v.batch = in.number.value_or(1);
  else if (key == "gpu_layers") v.gpu_layers = in.number;
  else if (key == "gpus") v.gpu_count = in.number.value_or(1);
  else if (key == "tp") v.tp = in.number.value_or(1);
}

Request with_inputs(Request v, const std::vector<RemedyInput>& inputs) {
  for (const RemedyInput& in : inputs) set_input(v, in);
  return v;
}

// `b`'s inputs after `a`'s; one that `b` sets again replaces `a`'s.
std::vector<RemedyInput> merged(std::vector<RemedyInput> a, const std::vector<RemedyInput>& b) {
  for (const RemedyInput& in : b) {
    const auto same = std::find_if(a.begin(), a.end(), [&](const RemedyInput& x) { return std::string_view(x.key) == in.key; });
    if (same != a.end()) *same = in;
    else a.push_back(in);
  }
  return a;
}

Remedy remedy_of(const Change& c) { return remedy(c.id, c.size, c.inputs, c.cost, c.source); }

// Two changes made together: both ids, sizes, inputs, costs and sources.
Remedy together(Remedy first, const Remedy& second) {
  first.id += "+" + second.id;
  first.parts.insert(first.parts.end(), second.parts.begin(), second.parts.end());
  first.sizes.insert(first.sizes.end(), second.sizes.begin(), second.sizes.end());
  first.inputs = merged(std::move(first.inputs), second.inputs);
  first.applicable = first.applicable && second.applicable;
  first.cost = message("remedy.both", "{first}; {second}",
                       {arg::message("first", first.cost), arg::message("second", second.cost)});
  first.source = message("remedy.both", "{first}; {second}",
                         {arg::message("first", first.source), arg::message("second", second.source)});
  return first;
}

// The changes one input makes, in the engine's own terms: 8-bit and 4-bit weights, an 8-bit KV cache, exact
// attention instead of eager, half the context, batch 1. Each is tried alone, and two together where none fits.
//
// Weights in the engine's own formats. A model file's weights are its exact bytes; another format is another file,
// sized nominally: no fair comparison. bitsandbytes has no Apple build; vLLM's FP8 needs Ampere or newer.
void weight_changes(std::vector<Change>& out, const Request& request, const Report& base, const Gpu* gpu) {
  const InferenceEstimate& e = base.estimate;
  const bool bare = base.model.is_bare();
  if (request.imported || (e.engine == Engine::transformers && apple(gpu))) return;
  Lower eight = eight_bit(e.engine, bare, gpu), four = four_bit(e.engine, bare, gpu);
  if (!(e.engine == Engine::vllm && !bare && pre_ampere(gpu)))
    out.push_back({"weights-8bit", ChangeSize::weights_8bit, {text_input("weights", eight.weights)},
                   std::move(eight.cost), std::move(eight.source)});
  out.push_back({"weights-4bit", ChangeSize::method, {text_input("weights", four.weights)}, std::move(four.cost),
                 std::move(four.source)});
}

// An 8-bit KV cache where the engine has one, and exact attention instead of eager. transformers' cache classes
// quantize through quanto or HQQ (int2/int4), which the estimate does not model; vLLM and llama.cpp have an 8-bit
// cache switch. llama.cpp quantizes the V cache only with flash attention on.
void cache_changes(std::vector<Change>& out, const Request& request, const InferenceEstimate& e) {
  const bool wide_kv = e.kv_dtype == KvDType::fp16 || e.kv_dtype == KvDType::bf16 || e.kv_dtype == KvDType::fp32;
  if (wide_kv && kv_pool_engine(e.engine)) {
    const bool vllm = e.engine == Engine::vllm;
    out.push_back({"kv-8bit", ChangeSize::precision, {choice_input(KvDType::fp8)},
                   vllm ? message("remedy.kv_fp8", "Small accuracy loss in long contexts; --kv-cache-dtype fp8 (E4M3)")
                        : message("remedy.kv_fp8_sglang", "Small accuracy loss in long contexts; --kv-cache-dtype fp8_e4m3"),
                   vllm ? message("remedy.source.vllm_kv", "vLLM docs (Quantized KV Cache)")
                        : message("remedy.source.sglang_args", "SGLang docs (server arguments)")});
  }
  if (wide_kv && e.engine == Engine::mlx && !request.max_kv_size)
    out.push_back({"kv-8bit", ChangeSize::precision, {choice_input(KvDType::q8_0)},
                   message("remedy.kv_bits_mlx",
                           "Small accuracy loss in long contexts; --kv-bits 8 (groups of 64); attention then runs unfused"),
                   message("remedy.source.mlx_kv_bits", "mlx-lm generate.py (--kv-bits, QuantizedKVCache)")});
  if (wide_kv && ggml_engine(e.engine)) {
    const bool ollama = e.engine == Engine::ollama;
    // Ollama from 0.30 (an estimate without its own estimator's figures) passes OLLAMA_KV_CACHE_TYPE to llama-server
    // as --cache-type-k/v and leaves flash attention to it (--flash-attn auto) unless OLLAMA_FLASH_ATTENTION is set;
    // before, its FAQ: the cache type applies only with OLLAMA_FLASH_ATTENTION=1.
    const bool server = ollama && !e.ollama;
    std::vector<RemedyInput> inputs{choice_input(KvDType::q8_0)};
    if (e.attention == Attention::eager) inputs.push_back(choice_input(Attention::sdpa));
    Message cost = message("remedy.kv_q8_0", "Small accuracy loss; -ctk q8_0 -ctv q8_0 with -fa on");
    if (server)
      cost = e.attention == Attention::eager
                 ? message("remedy.kv_q8_0_ollama_server_fa",
                           "Small accuracy loss; OLLAMA_KV_CACHE_TYPE=q8_0, and OLLAMA_FLASH_ATTENTION=1 or unset "
                           "(llama-server needs flash attention for it)")
                 : message("remedy.kv_q8_0_ollama_server",
                           "Small accuracy loss; OLLAMA_KV_CACHE_TYPE=q8_0 (flash attention is on where the GPU "
                           "supports it)");
    else if (ollama)
      cost = message("remedy.kv_q8_0_ollama", "Small accuracy loss; OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1");
    out.push_back({"kv-8bit", ChangeSize::precision, std::move(inputs), cost,
                   server   ? message("remedy.source.ollama_server",
                                      "Ollama llm/llama_server.go (--cache-type-k/v from OLLAMA_KV_CACHE_TYPE, "
                                      "--flash-attn auto)")
                   : ollama ? message("remedy.source.ollama_faq", "Ollama FAQ (OLLAMA_KV_CACHE_TYPE needs flash attention)")
                            : message("remedy.source.llamacpp_kv",
                                      "llama.cpp server README (--cache-type-k, --cache-type-v, --flash-attn)")});
  }
  if (e.attention == Attention::eager)
    out.push_back({"attention-sdpa", ChangeSize::exact, {choice_input(Attention::sdpa)}, flash_cost(), flash_source()});
}

// Half the context, one sequence at a time.
void workload_changes(std::vector<Change>& out, const InferenceEstimate& e) {
  if (e.context_tokens >= 1024) {
    const std::uint64_t half = e.context_tokens / 2;
    out.push_back({"context-half", ChangeSize::workload, {number_input("context", half)},
                   message("remedy.context_half", "Each sequence holds at most {tokens} tokens of prompt and answer",
                           {arg::count("tokens", half)}),
                   message("remedy.source.kv_context", "the KV cache grows with the context")});
  }
  if (e.batch > 1)
    out.push_back({"batch-1", ChangeSize::workload, {number_input("batch", 1)},
                   message("remedy.batch_1", "One sequence at a time: lower throughput when many users share the GPU"),
                   message("remedy.source.kv_batch", "the KV cache grows with the batch")});
}

// vLLM that would not start beside the memory other programs hold: the largest gpu_memory_utilization that starts
// (its budget, and so its KV pool, shrinks with it). No saving of the model's memory would help: the check compares
// the free memory with the share asked of the total, whatever the model (vLLM PR #19312, request_memory).
void start_changes(std::vector<Change>& out, const InferenceEstimate& e) {
  if (!e.vllm_start || e.vllm_start->starts || e.vllm_start->util_that_fits <= 0) return;
  if (!e.vllm_start->fits_holds_sequence) return;  // its pool at that share holds no sequence: it stops there too
  out.push_back({"gpu-util-in-use", ChangeSize::setting, {gpu_util_input(e.vllm_start->util_that_fits)},
                 message("remedy.gpu_util_in_use", "A smaller KV pool: fewer tokens and requests held at once"),
                 message("remedy.source.vllm_start",
                         "vLLM PR #19312 (0.9.1): vllm/v1/worker/utils.py request_memory checks the free memory "
                         "against gpu_memory_utilization × total at start")});
}

std::vector<Change> changes_for(const Request& request, const Report& base, const Gpu* gpu) {
  std::vector<Change> out;
  start_changes(out, base.estimate);
  weight_changes(out, request, base, gpu);
  cache_changes(out, request, base.estimate);
  workload_changes(out, base.estimate);
  return out;
}

// The GGUF form of the scenario's weights, as llama.cpp loads them: 16- and 32-bit weights and GGUF types stay, MXFP4
// has its GGUF type (gpt-oss's MXFP4_MOE files), other quantized formats become the GGUF type of their width: 8 bits
// q8_0, fewer q4_k_m. Empty: the request's own weights (none given: the checkpoint's 16 bits).
std::string gguf_weights(const Request& request, const InferenceEstimate& e) {
  const auto format = parse_weight_format(e.weights_format);
  if (!format) return {};
  const WeightFormat& f = format.value();
  const bool wide = f.dtype == DType::fp32 || f.dtype == DType::fp16 || f.dtype == DType::bf16;
  if (f.scheme == WeightScheme::gguf || (f.scheme == WeightScheme::plain && wide)) return request.weights;
  if (f.scheme == WeightScheme::mxfp4) return "mxfp4_moe";
  const WeightBytes& w = e.weight_detail;
  const bool eight = w.params > 0 && w.total * 8 >= w.params * 7;  // at least 7 bits a weight: an 8-bit format
  return eight ? "q8_0" : "q4_k_m";
}

// The scenario run by llama.cpp instead, from a GGUF file of the same model at the same context and batch, with what
// does not fit its GPUs in system RAM: the remedy's inputs, or none where llama.cpp is no change or cannot run it (a
// Mac's RAM is the GPU's; Ollama places layers itself; a bare count has no layers; a model file is what it is).
std::optional<std::vector<RemedyInput>> llamacpp_inputs(const Request& request, const Report& base, const Gpu* gpu) {
  const InferenceEstimate& e = base.estimate;
  if (!gpu || gpu->one_per_machine() || request.imported || base.model.is_bare() || request.tp * request.pp > 1) return {};
  if (!engine_traits(e.engine).torch) return {};  // llama.cpp, Ollama and MLX already run GGUF or their own files
  std::vector<RemedyInput> inputs{choice_input(Engine::llamacpp), number_input("context", e.context_tokens)};
  const std::string weights = gguf_weights(request, e);
  if (weights != request.weights) inputs.push_back(text_input("weights", weights));
  if (e.kv_dtype == KvDType::fp8) inputs.push_back(choice_input(KvDType::q8_0));  // llama.cpp has no FP8 cache
  return inputs;
}

// The request without the inputs only its engine reads, for running it by llama.cpp.
Request without_engine_inputs(Request v) {
  v.engine_inputs.clear();
  v.gpu_util.reset();
  v.engine_version.clear();
  v.mem_fraction_static.reset();
  v.max_total_tokens.reset();
  v.max_num_seqs.reset();
  v.max_num_batched_tokens.reset();
  v.enforce_eager = false;
  v.kv_allocation.reset();
  v.avg_tokens.reset();
  v.expandable_segments = false;
  v.max_kv_size.reset();
  v.ollama_gpu_overhead.reset();
  return v;
}

// llama.cpp's placement of `v` on the request's GPUs, estimated in full: on one GPU as --fit places it (no -ngl),
// over several (or with -ngl given) the most repeating layers (-ngl) that fit, found by bisection since memory grows
// with every layer moved to the GPUs. The report, and the -ngl it took where it took one.
struct Placed {
  Report report;
  std::optional<std::uint64_t> gpu_layers;
};
std::optional<Placed> place_layers(const Catalog& catalog, Request v) {
  if (v.gpu_count == 1 && !v.gpu_layers) {
    auto fitted = evaluate(catalog, v);
    if (!fitted) return std::nullopt;
    return Placed{std::move(fitted).value(), std::nullopt};
  }
  v.gpu_layers.reset();
  auto all = evaluate(catalog, v);
  if (!all || !all.value().estimate.llamacpp || all.value().estimate.llamacpp->total_layers < 2) return std::nullopt;
  std::optional<Placed> best;
  std::uint64_t lo = 0, hi = all.value().estimate.llamacpp->total_layers - 1;  // all layers: the scenario itself
  while (lo <= hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    v.gpu_layers = mid;
    auto after = evaluate(catalog, v);
    if (after && !after.value().gpus.empty() && after.value().gpus.front().fit == Fit::fits) {
      best = Placed{std::move(after).value(), mid};
      lo = mid + 1;
    } else {
      if (mid == 0) break;
      hi = mid - 1;
    }
  }
  return best;
}

// Where llama.cpp put the model, in words, with the speed the core estimates for that placement.
Message placement_cost(const Report& after) {
  const InferenceEstimate& e = after.estimate;
  const Range* tps = after.serving && after.serving->speed ? &after.serving->speed->decode.tokens_per_second : nullptr;
  const auto& plan = after.llamacpp_fit;
  if (e.llamacpp && e.llamacpp->gpu_layers < e.llamacpp->total_layers) {
    const LlamaCppBuffers& l = *e.llamacpp;
    const std::uint64_t gpus = e.per_gpu.gpus;
    const MessageArg n = arg::digits("n", l.gpu_layers), total = arg::digits("total", l.total_layers);
    if (tps)
      return gpus > 1 ? message("remedy.gpu_layers_split_speed",
                                "{n} of {total} layers on the {gpus} GPUs (-ngl {n}, split by layer), the rest in "
                                "system RAM: decoding at {low}-{high} tokens/s, as the CPU reads its layers at "
                                "system-RAM bandwidth",
                                {n, total, arg::digits("gpus", gpus), arg::fixed("low", tps->low, 1),
                                 arg::fixed("high", tps->high, 1)})
                      : message("remedy.gpu_layers_speed",
                                "{n} of {total} layers on the GPU (-ngl {n}), the rest in system RAM: decoding at "
                                "{low}-{high} tokens/s, as the CPU reads its layers at system-RAM bandwidth",
                                {n, total, arg::fixed("low", tps->low, 1), arg::fixed("high", tps->high, 1)});
    return gpus > 1 ? message("remedy.gpu_layers_split",
                              "{n} of {total} layers on the {gpus} GPUs (-ngl {n}, split by layer), the rest in system RAM",
                              {n, total, arg::digits("gpus", gpus)})
                    : message("remedy.gpu_layers", "{n} of {total} layers on the GPU (-ngl {n}), the rest in system RAM",
                              {n, total});
  }
  if (after.verdict.kind == VerdictKind::runs_split && plan && plan->step == LlamaFitStep::layers) {
    const MessageArg n = arg::digits("n", plan->gpu_layers), total = arg::digits("total", plan->total_layers);
    if (tps)
      return message("remedy.fit_layers_speed",
                     "{n} of {total} layers on the GPU as --fit places them, the rest in system RAM: decoding at "
                     "{low}-{high} tokens/s, as the CPU reads its layers at system-RAM bandwidth",
                     {n, total, arg::fixed("low", tps->low, 1), arg::fixed("high", tps->high, 1)});
    return message("remedy.fit_layers", "{n} of {total} layers on the GPU as --fit places them, the rest in system RAM",
                   {n, total});
  }
  if (after.verdict.kind == VerdictKind::runs_split && plan && plan->step == LlamaFitStep::experts) {
    if (tps)
      return message("remedy.fit_experts_speed",
                     "the experts of {n} layers in system RAM as --fit places them: decoding at {low}–{high} "
                     "tokens/s, as the CPU computes the experts each token picks there from system RAM and hands the "
                     "activations to and from the GPU at each such layer",
                     {arg::digits("n", plan->cpu_expert_layers), arg::fixed("low", tps->low, 1),
                      arg::fixed("high", tps->high, 1)});
    return message("remedy.fit_experts",
                   "the experts of {n} layers in system RAM as --fit places them; how fast it then decodes is not "
                   "estimated yet",
                   {arg::digits("n", plan->cpu_expert_layers)});
  }
  return message("remedy.fit_all", "every layer on the GPU");
}

// One inference scenario being advised on: the request, its report, and where the remedies go.
struct Advice {
  const Catalog& catalog;
  const Request& request;
  const Report& base;
  const Gpu* gpu;  // the request's GPU, when the report has its verdict
  Collector& out;

  // The headline's verdict is not a plain fit: the GPU is too small, the engine would not start, or it runs with
  // part of the model in system RAM.
  bool short_of_room() const {
    const VerdictKind k = base.verdict.kind;
    return gpu && (k == VerdictKind::does_not_fit || k == VerdictKind::refuses || k == VerdictKind::runs_split);
  }
  bool does_not_run() const {
    const VerdictKind k = base.verdict.kind;
    return gpu && (k == VerdictKind::does_not_fit || k == VerdictKind::refuses);
  }

  // The request with `r`'s inputs, estimated again and judged: the remedy filled in, or none where the scenario
  // refuses the change (a change it refuses offers no help) or it is not kept. One function, not a lambda per
  // remedy, which would instantiate the whole evaluation once per remedy.
  std::optional<Remedy> tried(Remedy r, const Request& on) const {
    auto after = evaluate(catalog, with_inputs(on, r.inputs));
    if (!after || !out.judge(r, after.value())) return std::nullopt;
    return r;
  }

  // The request `on` with `change`'s inputs (or `on` itself), placed by llama.cpp on the request's GPUs: the change
  // and the placement together. `switch_inputs`: llama.cpp runs what another engine was asked to, from a GGUF file
  // (the engine, context and weights that takes; the change's own inputs come after them). The -ngl a placement
  // took joins the inputs as advice: -ngl is not a page input.
  std::optional<Remedy> placed(const Request& on, std::optional<Remedy> change,
                               const std::vector<RemedyInput>& switch_inputs) const {
    auto p = place_layers(catalog, change ? with_inputs(on, change->inputs) : on);
    if (!p) return std::nullopt;
    const bool switched = !switch_inputs.empty();
    const Message where = placement_cost(p->report);
    // llama.cpp keeping every layer on the GPU is another program, not offloading: a setting-sized change.
    const bool in_ram = placement_of(p->report).ram_bytes > 0;
    Remedy place = remedy(!switched ? "gpu-layers" : in_ram ? "offload" : "llamacpp",
                          switched && !in_ram ? ChangeSize::setting : ChangeSize::system_ram, {},
                          switched ? message("remedy.offload", "llama.cpp from a GGUF file: {placement}",
                                             {arg::message("placement", where)})
                                   : where,
                          p->gpu_layers ? message("remedy.source.ngl", "llama.cpp --n-gpu-layers; the speed model's "
                                                                       "CPU share (methodology: Speed)")
                                        : message("remedy.source.fit", "llama.cpp --fit (common/fit.cpp); the speed "
                                                                       "model's CPU share (methodology: Speed)"));
    std::vector<RemedyInput> inputs = merged(switch_inputs, change ? change->inputs : std::vector<RemedyInput>{});
    if (p->gpu_layers) {
      inputs.push_back(number_input("gpu_layers", *p->gpu_layers));
      place.applicable = false;
    }
    Remedy all = change ? together(std::move(*change), place) : std::move(place);
    all.inputs = std::move(inputs);
    if (!out.judge(all, p->report)) return std::nullopt;
    return all;
  }
};

// llama.cpp with what does not fit in system RAM: the scenario's other engines switched to it ("offload"), or
// llama.cpp's own request with -ngl where no --fit plan places it ("gpu-layers"). Each with its placement's cost.
void add_offload(const Advice& a) {
  if (!a.does_not_run()) return;
  if (const auto inputs = llamacpp_inputs(a.request, a.base, a.gpu)) {
    if (auto r = a.placed(with_inputs(without_engine_inputs(a.request), *inputs), std::nullopt, *inputs))
      a.out.keep(std::move(*r));
    return;
  }
  const InferenceEstimate& e = a.base.estimate;
  if (e.engine == Engine::llamacpp && e.llamacpp && !a.base.llamacpp_fit)
    if (auto r = a.placed(a.request, std::nullopt, {})) a.out.keep(std::move(*r));
}

// No single change fits: two together, each pair of the engine's own changes (two weight formats excepted), and each
// of llama.cpp's changes with its placement. Kept where it does better than the scenario as asked and than each of
// its parts alone (Collector::better); of those that run, the three smallest changes, or else the closest.
void add_pairs(const Advice& a) {
  const auto runs = [](const Remedy& r) { return list_part(r) < 2; };
  if (!a.does_not_run() && a.base.verdict.kind != VerdictKind::runs_split) return;
  if (std::any_of(a.out.kept().begin(), a.out.kept().end(), [](const Remedy& r) { return list_part(r) == 0; })) return;
  std::vector<Remedy> pairs;
  const auto better_than_parts = [&](const Remedy& r) {
    if (!a.out.better(r, nullptr)) return false;
    for (const std::string& part : r.parts)
      if (const Remedy* alone = a.out.find(part); alone && !a.out.better(r, alone)) return false;
    return true;
  };
  const auto consider = [&](std::optional<Remedy> r) {
    if (r && better_than_parts(*r)) pairs.push_back(std::move(*r));
  };
  const std::vector<Change> changes = changes_for(a.request, a.base, a.gpu);
  for (std::size_t i = 0; i < changes.size(); ++i)
    for (std::size_t k = i + 1; k < changes.size(); ++k) {
      const std::string_view x = changes[i].id, y = changes[k].id;
      if (x.starts_with("weights-") && y.starts_with("weights-")) continue;
      consider(a.tried(together(remedy_of(changes[i]), remedy_of(changes[k])), a.request));
    }
  if (const auto inputs = llamacpp_inputs(a.request, a.base, a.gpu)) {
    // llama.cpp's own changes, from its estimate of the scenario.
    const Request on = with_inputs(without_engine_inputs(a.request), *inputs);
    if (auto switched = evaluate(a.catalog, on))
      for (const Change& c : changes_for(on, switched.value(), a.gpu)) consider(a.placed(on, remedy_of(c), *inputs));
  } else if (a.base.estimate.engine == Engine::llamacpp && a.base.estimate.llamacpp && !a.base.llamacpp_fit) {
    for (const Change& c : changes_for(a.request, a.base, a.gpu)) consider(a.placed(a.request, remedy_of(c), {}));
  }
  detail::small_stable_sort(pairs, listed_before);
  std::size_t running = 0;
  for (Remedy& r : pairs)
    if (runs(r) && running < 3) {
      a.out.keep(std::move(r));
      ++running;
    }
  if (running == 0 && !pairs.empty()) a.out.keep(std::move(pairs.front()));
}

// The fewest of the request's GPU above the `from` it has, up to 8 (`more` sets the count on the request), whose
// estimate fits them by the headline's verdict; a count the estimate refuses (heads that do not divide) is skipped.
template <class More>
std::optional<std::pair<std::uint64_t, Report>> fewest_that_fit(const Catalog& catalog, const Request& request,
                                                                  std::uint64_t from, More more) {
  for (std::uint64_t n = from + 1; n <= 8; ++n) {
    Request v = request;
    more(v, n);
    auto after = evaluate(catalog, v);
    if (after && after.value().verdict.kind == VerdictKind::fits) return std::pair{n, std::move(after).value()};
  }
  return std::nullopt;
}

// vLLM or SGLang on several of the request's GPU with tensor parallelism.
void add_tensor_parallel(Collector& out, const Catalog& catalog, const Request& request) {
  const auto found = fewest_that_fit(catalog, request, 1, [](Request& v, std::uint64_t n) { v.tp = n; });
  if (!found) return;
  const auto& [n, after] = *found;
  out.add(remedy("tensor-parallel", ChangeSize::more_gpus, {number_input("tp", n)}, serving_gpus_cost(after, n),
                 serving_gpus_source(after.estimate.engine)),
          after);
}

// More of the request's GPU than the `gpus` it has: transformers and llama.cpp put whole layers on each (the
// busiest GPU decides), vLLM and SGLang serve them as they serve the GPUs given.
void add_more_gpus(Collector& out, const Catalog& catalog, const Request& request, Engine engine) {
  const auto found =
      fewest_that_fit(catalog, request, request.gpu_count, [](Request& v, std::uint64_t n) { v.gpu_count = n; });
  if (!found) return;
  const auto& [n, after] = *found;
  if (kv_pool_engine(engine)) {
    out.add(remedy("more-gpus", ChangeSize::more_gpus, {number_input("gpus", n)}, serving_gpus_cost(after, n),
                   serving_gpus_source(engine)),
            after);
    return;
  }
  Message cost = message("remedy.split_layers",
                         "{n} × {gpu} with {how}: that many GPUs to buy or rent; the layers run one GPU after "
                         "another, so no faster than one",
                         {arg::digits("n", n), arg::text("gpu", after.gpus.front().gpu->name),
                          arg::text("how", engine == Engine::llamacpp ? "--split-mode layer" : "device_map=\"auto\"")});
  out.add(remedy("more-gpus", ChangeSize::more_gpus, {number_input("gpus", n)}, std::move(cost),
                 engine == Engine::llamacpp
                     ? message("remedy.source.llamacpp_split", "llama.cpp README (--split-mode)")
                     : message("remedy.source.accelerate", "Hugging Face Accelerate docs (big model inference)")),
          after);
}

// GPUs too small for the whole scenario: the fewest of them (more than it has, up to 8) that hold it, estimated
// in full. vLLM and SGLang on one GPU get tensor parallelism (--tensor-parallel-size n: weights and KV heads
// divided, the sampler's peak on every rank); with `gpus` given, more of them served the same way. transformers
// (device_map="auto") and llama.cpp (--split-mode layer) put whole layers on each GPU (the input gpus).
void add_more_hardware(const Advice& a) {
  if (!a.short_of_room() || a.gpu->one_per_machine() || a.request.tp * a.request.pp > 1) return;
  const Engine engine = a.base.estimate.engine;
  const bool serving = kv_pool_engine(engine);
  if (serving && a.request.gpu_count == 1) add_tensor_parallel(a.out, a.catalog, a.request);
  else add_more_gpus(a.out, a.catalog, a.request, engine);
}

// The GPUs the person has, as the summary names them.
Message your_gpus(const Gpu& gpu, std::uint64_t count) {
  return count > 1 ? message("remedy.your_gpus", "your {count} × {gpu}", {arg::count("count", count), arg::text("gpu", gpu.name)})
                   : message("remedy.your_gpu", "your {gpu}", {arg::text("gpu", gpu.name)});
}

// What the ordered list says to someone whose GPUs the scenario does not fit: that what fits comes first; or that
// only what runs with a cost does; or, when nothing runs, the closest change's verdict and whether more GPUs would.
Message summary_of(const RemediesReport& report, std::uint64_t count) {
  int best = 4;
  bool more = false;
  const Remedy* closest = nullptr;
  for (const Remedy& r : report.remedies) {
    const int part = list_part(r);
    if (part == 3) more = true;
    else best = std::min(best, part);
    if (part == 2 && !closest) closest = &r;  // the list is in order: the first is the closest
  }
  const MessageArg gpus = arg::message("gpus", your_gpus(*report.gpu, count));
  if (best == 0) return message("remedy.summary.fits", "What fits on {gpus} comes first, the smallest change first.", {gpus});
  if (best == 1)
    return message("remedy.summary.runs",
                   "Nothing here fits on {gpus} with the headroom free; what runs with a cost (part of the model in "
                   "system RAM, or less free than the headroom) comes first, the smallest change first.",
                   {gpus});
  if (!closest)
    return more ? message("remedy.summary.only_more", "Nothing here runs on {gpus}; only more GPUs would hold it.", {gpus})
                : Message{};
  // Short by its GPU's usable memory, as the headline words it; an engine that would not start for want of KV cache
  // room is short of tokens, which its verdict names.
  if (closest->free_bytes < 0) {
    const MessageArg gap = arg::gb("short_bytes", static_cast<std::uint64_t>(-closest->free_bytes), 1);
    return more ? message("remedy.summary.short_more",
                          "Nothing here runs on {gpus}: the closest change, listed first, is still {short_bytes} short; "
                          "only more GPUs (listed last) would hold it.",
                          {gpus, gap})
                : message("remedy.summary.short",
                          "Nothing here runs on {gpus}: the closest change, listed first, is still {short_bytes} short.",
                          {gpus, gap});
  }
  const MessageArg verdict = arg::message("verdict", closest->headline);
  return more ? message("remedy.summary.none_more",
                        "Nothing here runs on {gpus}; only more GPUs (listed last) would hold it. The closest change, "
                        "listed first: {verdict}.",
                        {gpus, verdict})
              : message("remedy.summary.none", "Nothing here runs on {gpus}. The closest change, listed first: {verdict}.",
                        {gpus, verdict});
}

// A training request's remedies: each a changed request, estimated again and kept by the collector.
struct TrainingAdvice {
  const Catalog& catalog;
  const TrainingRequest& request;
  const TrainingReport& b;
  const RemediesReport& report;
  Collector& out;
  // A bare parameter count has no activations, and LoRA needs the model's layers.
  bool shapes = b.estimate.activations.has_value();
  bool cuda_libraries = !apple(b.gpu);  // bitsandbytes, DeepSpeed

  void attempt(Remedy r, const TrainingRequest& variant) const {
    if (auto after = evaluate_training(catalog, variant)) {
      r.host_ram_bytes = after.value().estimate.host_ram_bytes;
      out.add(std::move(r), after.value().estimate.breakdown.total);
    }
  }
};

// Settings that trade compute or precision for memory: recomputed activations, fused attention, 8-bit Adam.
void add_compute_trades(const TrainingAdvice& a) {
  const TrainingOptions& o = a.b.options;
  const TrainingRequest& request = a.request;
  TrainingRequest v;
  if (a.shapes && o.checkpointing != Checkpointing::full) {
    v = request;
    v.checkpointing = Checkpointing::full;
    a.attempt(remedy("checkpointing", ChangeSize::slower, {text_input("checkpointing", "full")},
                     message("remedy.checkpointing", "The backward pass reruns each layer's forward: about a third "
                                                     "more compute (the article \"GPU-Speicher\" reports 20-30 % "
                                                     "longer training)"),
                     message("remedy.source.checkpointing", "Chen et al. 2016 (arXiv 1604.06174)")),
              v);
  }
  if (a.shapes && keeps_attention_scores(o.attn_implementation)) {
    v = request;
    v.attn_implementation = AttnImplementation::sdpa;
    a.attempt(remedy("flash-attention", ChangeSize::exact, {text_input("attn_implementation", "sdpa")}, flash_cost(), flash_source()), v);
  }
  if (a.cuda_libraries && (o.optimizer == Optimizer::adamw || o.optimizer == Optimizer::paged_adamw)) {
    const Optimizer eight = o.optimizer == Optimizer::adamw ? Optimizer::adamw_8bit : Optimizer::paged_adamw_8bit;
    v = request;
    v.optimizer = eight;
    a.attempt(remedy("optimizer-8bit", ChangeSize::precision, {text_input("optimizer", std::string(optimizer_info(eight).name))},
                     message("remedy.optimizer_8bit", "Adam's two states in 8 bits: the paper matches 32-bit Adam on its benchmarks"),
                     message("remedy.source.optimizer_8bit",
                             "Dettmers et al. 2021, 8-bit Optimizers via Block-wise Quantization (arXiv 2110.02861)")),
              v);
  }
}

// Methods that train fewer or smaller numbers: LoRA, QLoRA, mixed precision.
void add_lighter_methods(const TrainingAdvice& a) {
  const TrainingReport& b = a.b;
  const TrainingOptions& o = a.b.options;
  const TrainingRequest& request = a.request;
  TrainingRequest v;
  // GRPO trains its policy as `policy` says: there LoRA and QLoRA set that input, not the mode.
  const bool grpo = o.grpo.has_value();
  const char* method_key = grpo ? "policy" : "mode";
  if (a.shapes && o.mode == TrainingMode::full) {
    v = request;
    if (grpo) v.policy = TrainingMode::lora;
    else v.mode = TrainingMode::lora;
    a.attempt(remedy("lora", ChangeSize::method, {text_input(method_key, "lora")},
                     message("remedy.lora", "Only low-rank adapters learn: on par with full fine-tuning in the paper's "
                                            "benchmarks (RoBERTa, DeBERTa, GPT-2, GPT-3)"),
                     message("remedy.source.lora", "Hu et al. 2021, LoRA (arXiv 2106.09685)")),
              v);
  }
  if (a.shapes && a.cuda_libraries && o.mode != TrainingMode::qlora) {
    v = request;
    if (grpo) v.policy = TrainingMode::qlora;
    else v.mode = TrainingMode::qlora;
    a.attempt(remedy("qlora", ChangeSize::method, {text_input(method_key, "qlora")},
                     message("remedy.qlora", "Adapters over a 4-bit NF4 base: the paper matches 16-bit fine-tuning; "
                                             "steps are slower (dequantization)"),
                     qlora_source()),
              v);
  }
  if (o.precision == Precision::fp32) {
    // bf16 needs Ampere or newer; older GPUs train in fp16 with loss scaling.
    const Precision mixed = pre_ampere(b.gpu) || (b.gpu && !b.gpu->tflops_bf16) ? Precision::mixed_fp16
                                                                                : Precision::mixed_bf16;
    v = request;
    v.precision = mixed;
    a.attempt(remedy("mixed-precision", ChangeSize::precision, {text_input("precision", std::string(precision_name(mixed)))},
                     message("remedy.mixed_precision",
                             "16-bit compute with fp32 master weights: about the same accuracy, faster on tensor cores"),
                     message("remedy.source.mixed_precision", "Micikevicius et al. 2018 (arXiv 1710.03740)")),
              v);
  }
}

void add_optimizer_offload(const TrainingAdvice& a) {
  const Catalog& catalog = a.catalog;
  Collector& out = a.out;
  const TrainingOptions& o = a.b.options;
  const TrainingRequest& request = a.request;
  TrainingRequest v;
  // ZeRO-Offload of a full fine-tune, where the optimizer states are most of the memory (LoRA's are a few MB).
  // DeepSpeed offloads the partitioned optimizer: it runs with stage 2, on one GPU too.
  if (a.cuda_libraries && o.mode == TrainingMode::full && o.parallel.offload == Offload::none) {
    v = request;
    v.offload = Offload::optimizer;
    std::vector<RemedyInput> inputs{text_input("offload", "optimizer")};
    if (o.parallel.zero == ZeroStage::none) {
      v.zero = ZeroStage::gradients;
      inputs.push_back(text_input("zero", "2"));
    }
    if (auto after = evaluate_training(catalog, v)) {
      const TrainingEstimate& after_e = after.value().estimate;
      Remedy r = remedy("offload-optimizer", ChangeSize::system_ram, std::move(inputs),
                        message("remedy.offload_optimizer",
                                "Training takes {min}-{max} times as long; the optimizer states and gradients move to "
                                "host RAM",
                                {arg::fixed("min", after_e.slowdown.min, 1), arg::fixed("max", after_e.slowdown.max, 1)}),
                        after_e.slowdown.source);
      r.host_ram_bytes = after_e.host_ram_bytes;
      out.add(std::move(r), after_e.breakdown.total);
    }
  }
}

// More or other GPU memory: ZeRO-3 across the GPUs, a raised wired limit, more GPUs.
void add_training_gpu_remedies(const TrainingAdvice& a) {
  const TrainingReport& b = a.b;
  const Catalog& catalog = a.catalog;
  Collector& out = a.out;
  const RemediesReport& report = a.report;
  const TrainingOptions& o = a.b.options;
  const TrainingEstimate& e = a.b.estimate;
  const TrainingRequest& request = a.request;
  TrainingRequest v;
  if (o.parallel.gpus > 1 && o.parallel.zero != ZeroStage::parameters && o.parallel.offload == Offload::none) {
    v = request;
    v.zero = ZeroStage::parameters;
    a.attempt(remedy("zero-3", ChangeSize::slower, {text_input("zero", "3")},
                     message("remedy.zero_3", "Weights, gradients and optimizer states split across the GPUs: 1.5 × "
                                              "the data-parallel communication"),
                     zero_source()),
              v);
  }
  if (b.gpu)
    add_wired_limit(request.gpu, catalog, b.gpus, e.breakdown.total, b.headroom,
                    [&](const Catalog& raised, std::uint64_t limit, Remedy r) {
                      TrainingRequest w = request;
                      w.wired_limit_mb = limit;
                      auto after = evaluate_training(raised, w);
                      if (!after || after.value().gpus.size() != 1) return;
                      out.add_room(std::move(r), after.value().estimate.breakdown.total, after.value().gpus.front().fit,
                                   limit << 20);
                    });
  // The request's GPU is too small: the fewest of them (2, 4 or 8) that hold the job with ZeRO-3.
  if (b.gpu && report.fit == Fit::does_not_fit && o.parallel.gpus == 1 && !b.gpu->one_per_machine()) {
    for (std::uint64_t n : {2u, 4u, 8u}) {
      v = request;
      v.gpus = n;
      v.zero = ZeroStage::parameters;
      auto after = evaluate_training(catalog, v);
      if (!after || fit_on(after.value().gpus, b.gpu) == Fit::does_not_fit) continue;
      Remedy r = remedy("more-gpus", ChangeSize::more_gpus, {number_input("gpus", n), text_input("zero", "3")},
                        message("remedy.more_gpus_zero3",
                                "{n} × {gpu} with ZeRO-3: {n} times the GPUs, and 1.5 × the data-parallel communication",
                                {arg::digits("n", n), arg::text("gpu", b.gpu->name)}),
                        zero_source());
      r.host_ram_bytes = after.value().estimate.host_ram_bytes;
      out.add(std::move(r), after.value().estimate.breakdown.total);
      break;
    }
  }
}

void add_micro_batch_one(const TrainingAdvice& a) {
  const TrainingOptions& o = a.b.options;
  const TrainingRequest& request = a.request;
  TrainingRequest v;
  if (a.shapes && o.parallel.micro_batch > 1) {
    const std::uint64_t m = o.parallel.micro_batch, accum = o.parallel.gradient_accumulation * m;
    v = request;
    v.micro_batch = 1;
    v.grad_accum = accum;
    a.attempt(remedy("micro-batch-1", ChangeSize::slower, {number_input("micro_batch", 1), number_input("grad_accum", accum)},
                     message("remedy.micro_batch_1",
                             "The same effective batch in {n} times as many smaller steps (gradient accumulation): "
                             "lower GPU utilisation",
                             {arg::digits("n", m)}),
                     message("remedy.source.micro_batch", "activations grow with the micro-batch (Korthikanti et al. 2022, arXiv 2205.05198)")),
              v);
  }
}

}  // namespace

Result<RemediesReport> remedies_for(const Catalog& catalog, const Request& request) {
  auto base = evaluate(catalog, request);
  if (!base) return base.error();
  return remedies_for(catalog, request, base.value());
}

Result<RemediesReport> remedies_for(const Catalog& catalog, const Request& request, const Report& b) {
  const InferenceEstimate& e = b.estimate;

  RemediesReport report;
  report.mode = "inference";
  const Placement before = placement_of(b);
  report.bytes = before.gpu_bytes;
  report.host_ram_bytes = before.ram_bytes;
  // Over different cards the fullest one changes from one variant to the next, so a saving would compare one card's
  // part with another's: none is given.
  if (!request.devices.empty()) {
    report.notes.push_back(message("remedy.unlike_cards",
                                   "What would help is worked out for cards of one kind; for different cards together "
                                   "it is not estimated yet."));
    return report;
  }
  if (!request.gpu.empty() && b.gpus.size() == 1) {
    report.gpu = b.gpus.front().gpu;
    report.verdict = b.verdict.kind;
    report.fit = fit_of(b.verdict.kind);
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
  Collector out(report, b.headroom, before.ram_bytes);
  const Advice advice{catalog, request, b, report.gpu, out};
  for (const Change& c : changes_for(request, b, report.gpu))
    if (auto r = advice.tried(remedy_of(c), request)) out.keep(std::move(*r));
  if (report.gpu)
    add_wired_limit(request.gpu, catalog, b.gpus, e.total, b.headroom,
                    [&](const Catalog& raised, std::uint64_t limit, Remedy r) {
                      Request w = request;
                      w.wired_limit_mb = limit;
                      auto after = evaluate(raised, w);
                      if (!after || after.value().gpus.size() != 1) return;
                      out.add_room(std::move(r), after.value().estimate.total, fit_of(after.value().verdict.kind),
                                   limit << 20, &after.value());
                    });
  add_offload(advice);
  add_pairs(advice);
  add_more_hardware(advice);
  out.finish();
  if (report.gpu && advice.short_of_room() && !report.remedies.empty())
    report.summary = summary_of(report, e.per_gpu.gpus);
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
  report.mode = o.grpo.has_value() ? "grpo" : training_mode_name(o.mode);
  report.bytes = e.breakdown.total;
  report.gpu = b.gpu;
  if (b.gpu) report.fit = fit_on(b.gpus, b.gpu);
  Collector out(report, b.headroom);
  const TrainingAdvice advice{catalog, request, b, report, out};
  add_compute_trades(advice);
  add_lighter_methods(advice);
  add_optimizer_offload(advice);
  add_training_gpu_remedies(advice);
  add_micro_batch_one(advice);
  out.finish();
  if (b.gpu && report.fit != Fit::fits && !report.remedies.empty()) report.summary = summary_of(report, o.parallel.gpus);
  return report;
}

}  // namespace vramfit
