#include "questions/verdict.hpp"

#include <algorithm>  // std::min_element
#include <cmath>      // std::round
#include <optional>   // std::optional

#include "util/number_text.hpp"  // detail::fixed_text
#include "util/units.hpp"        // kGiB

namespace vramfit {

std::uint64_t clip_beside_fit(const LlamaCppFitPlan& plan, const InferenceEstimate& e) noexcept {
  return e.vision && !e.vision->apart && plan.projector_bytes > 0 && !plan.margin_holds_projector
             ? e.vision->compute_bytes
             : 0;
}

std::uint64_t placed_on_card(const LlamaCppFitPlan& plan, const InferenceEstimate& e) noexcept {
  return plan.gpu_bytes + e.overhead + e.draft + clip_beside_fit(plan, e);
}

std::string_view verdict_kind_name(VerdictKind kind) noexcept {
  switch (kind) {
    case VerdictKind::fits: return "fits";
    case VerdictKind::tight: return "tight";
    case VerdictKind::does_not_fit: return "does_not_fit";
    case VerdictKind::runs_split: return "runs_split";
    case VerdictKind::refuses: return "refuses";
    case VerdictKind::none: return "none";
  }
  return "none";
}

std::string_view verdict_fit_name(VerdictKind kind) noexcept {
  switch (kind) {
    case VerdictKind::fits: return "fits";
    case VerdictKind::tight:
    case VerdictKind::runs_split: return "tight";
    case VerdictKind::does_not_fit:
    case VerdictKind::refuses: return "does_not_fit";
    case VerdictKind::none: return "none";
  }
  return "none";
}

std::string_view certainty_name(Certainty c) noexcept {
  switch (c) {
    case Certainty::certain: return "certain";
    case Certainty::likely: return "likely";
    case Certainty::unknown: return "unknown";
  }
  return "certain";
}

namespace {
// Runs on the GPU as asked, whatever the headroom; an engine that refuses to start does not.
bool runs(VerdictKind k) { return k == VerdictKind::fits || k == VerdictKind::tight || k == VerdictKind::runs_split; }
}  // namespace

Certainty certainty_of(VerdictKind assumed, const std::vector<VerdictKind>& alternatives) noexcept {
  Certainty out = Certainty::certain;
  for (VerdictKind k : alternatives) {
    if (runs(k) != runs(assumed)) return Certainty::unknown;
    if (k != assumed) out = Certainty::likely;
  }
  return out;
}

namespace {

using About = VerdictScene::About;

// Byte figures in a headline show with one decimal, as the page's dense lists do.
MessageArg gb(std::string_view name, std::int64_t v) { return arg::gb(name, v > 0 ? static_cast<std::uint64_t>(v) : 0, 1); }
// A card's memory in both units, so people recognise it whichever its maker names ("25.8 GB (24 GiB) cards"); the
// page shows it in its chosen unit, as its GPU table does.
MessageArg card_bytes(std::uint64_t v) {
  MessageArg a = arg::gb("card_bytes", v, 1);
  const double gib = static_cast<double>(v) / static_cast<double>(kGiB);
  a.english += " (" + detail::fixed_text(gib, gib == std::round(gib) ? 0 : 1) + " GiB)";
  return a;
}
MessageArg gpu_name(const GpuFit& row) { return arg::text("gpu", row.gpu->name); }
bool fits_or_tight(const GpuFit& row) { return row.fit == Fit::fits || row.fit == Fit::tight; }
VerdictKind kind_of(Fit fit) {
  return fit == Fit::fits ? VerdictKind::fits : fit == Fit::tight ? VerdictKind::tight : VerdictKind::does_not_fit;
}

// The cards people most likely have come first: consumer, then workstation and data-centre; machines whose GPU shares
// the computer's memory (a Mac, a DGX Spark, a Strix Halo) last, as a headline about cards does not name a computer.
int segment_rank(const Gpu& gpu) {
  if (gpu.one_per_machine()) return 3;
  constexpr std::string_view kOrder[] = {"consumer", "workstation", "datacenter", "apple"};
  for (int i = 0; i < 4; ++i)
    if (gpu.segment == kOrder[i]) return i;
  return 4;
}

// With no GPU chosen: the smallest card that fits with headroom (then a tight one) among the cards people most
// likely have; else the one needing the fewest cards (largest memory on a tie). Catalogue order breaks ties.
const GpuFit* catalog_row(const std::vector<GpuFit>& rows) {
  auto smallest = [&](Fit fit) -> const GpuFit* {
    const GpuFit* best = nullptr;
    for (const GpuFit& r : rows) {
      if (r.fit != fit) continue;
      const auto key = [](const GpuFit& x) { return std::pair(segment_rank(*x.gpu), x.gpu->usable_bytes()); };
      if (!best || key(r) < key(*best)) best = &r;
    }
    return best;
  };
  if (const GpuFit* r = smallest(Fit::fits)) return r;
  if (const GpuFit* r = smallest(Fit::tight)) return r;
  const GpuFit* best = nullptr;
  for (const GpuFit& r : rows) {
    if (r.gpus_needed == 0) continue;
    if (!best || r.gpus_needed < best->gpus_needed ||
        (r.gpus_needed == best->gpus_needed && r.gpu->usable_bytes() > best->gpu->usable_bytes()))
      best = &r;
  }
  return best;
}

// A class of cards: those of the row's segment, vendor and memory with the same verdict, the first and the last in
// catalogue order ("GeForce RTX 3090 / GeForce RTX 4090"), and their memory as the GPU table shows it.
struct CardClass {
  std::uint64_t bytes = 0;
  std::string names;
};
CardClass card_class(const std::vector<GpuFit>& rows, const GpuFit& row) {
  std::vector<std::string_view> names;
  for (const GpuFit& r : rows) {
    const Gpu& g = *r.gpu;
    if (g.segment != row.gpu->segment || g.memory_bytes != row.gpu->memory_bytes || r.fit != row.fit ||
        g.vendor != row.gpu->vendor)
      continue;
    if (std::find(names.begin(), names.end(), g.name) == names.end()) names.push_back(g.name);
  }
  CardClass out;
  out.bytes = row.gpu->usable_bytes();
  out.names = names.size() > 1 ? std::string(names.front()) + " / " + std::string(names.back()) : row.gpu->name;
  return out;
}

Verdict made(VerdictKind kind, const GpuFit& row, Message message) {
  Verdict v;
  v.kind = kind;
  v.gpu = row.gpu;
  v.message = std::move(message);
  return v;
}

// Ollama places the layers itself: all on the GPU, or some in system RAM (the GPU table's row does not fit).
std::optional<Verdict> ollama_verdict(const OllamaEstimate& o, const GpuFit& row) {
  if (!o.planned) return std::nullopt;
  if (o.layers_offload == o.layers_model)
    return made(kind_of(row.fit), row,
                message("headline.ollama",
                        "Fits on one {gpu}: Ollama offloads all {layers} layers ({vram_bytes} on the GPU), num_ctx "
                        "{context}",
                        {gpu_name(row), arg::count("layers", o.layers_model),
                         gb("vram_bytes", static_cast<std::int64_t>(o.required_partial_bytes)),
                         arg::count("context", o.num_ctx)}));
  if (!o.gpu_usable || o.layers_offload == 0) return std::nullopt;
  Verdict v = made(VerdictKind::runs_split, row,
                   message("headline.ollama_split",
                           "Runs on one {gpu} with Ollama: {n} of {total} layers on the GPU, {ram_bytes} in system "
                           "RAM, num_ctx {context}",
                           {gpu_name(row), arg::count("n", o.layers_offload), arg::count("total", o.layers_model),
                            gb("ram_bytes", static_cast<std::int64_t>(o.system_ram_bytes)),
                            arg::count("context", o.num_ctx)}));
  v.label = message("verdict.runs_layers", "runs with {n} of {total} layers on the GPU",
                    {arg::count("n", o.layers_offload), arg::count("total", o.layers_model)});
  return v;
}

// llama.cpp's --fit on the chosen GPU: where it moves experts or layers to system RAM the model runs although the
// GPU table's row (every layer on the GPU) does not fit; where it keeps every layer at a context of its own, the
// headline names that context, as the plan and the command do.
std::optional<Verdict> plan_verdict(const LlamaCppFitPlan& p, const GpuFit& row, bool context_from_plan) {
  if (!p.fits) return std::nullopt;
  const bool moves = p.step == LlamaFitStep::experts || p.step == LlamaFitStep::layers;
  // What --fit moves to system RAM is what runs, whatever the GPU table's rule (every layer on the GPU) says.
  if (moves) {
    Verdict v;
    if (p.step == LlamaFitStep::experts && p.cpu_expert_layers == 0) {
      // Every expert came back: only the output layer, which -ngl at the layer count leaves out, stays in RAM.
      v = made(VerdictKind::runs_split, row,
               message("headline.plan_output",
                       "Runs on one {gpu} as llama.cpp --fit places it: all {total} layers on the GPU, the output "
                       "layer in system RAM, context {context}",
                       {gpu_name(row), arg::count("total", p.total_layers), arg::count("context", p.context)}));
      v.label = message("verdict.runs_output", "partly in RAM");
    } else if (p.step == LlamaFitStep::experts) {
      v = made(VerdictKind::runs_split, row,
               message("headline.plan_experts",
                       "Runs on one {gpu} as llama.cpp --fit places it: the experts of {n} layers in system RAM, "
                       "context {context}",
                       {gpu_name(row), arg::count("n", p.cpu_expert_layers), arg::count("context", p.context)}));
      v.label = message("verdict.runs_experts", "runs with the experts of {n} layers in system RAM",
                        {arg::count("n", p.cpu_expert_layers)});
    } else {
      v = made(VerdictKind::runs_split, row,
               message("headline.plan_layers",
                       "Runs on one {gpu} as llama.cpp --fit places it: {n} of {total} layers on the GPU, context "
                       "{context}",
                       {gpu_name(row), arg::count("n", p.gpu_layers), arg::count("total", p.total_layers),
                        arg::count("context", p.context)}));
      v.label = message("verdict.runs_layers", "runs with {n} of {total} layers on the GPU",
                        {arg::count("n", p.gpu_layers), arg::count("total", p.total_layers)});
    }
    return v;
  }
  if (!context_from_plan || !fits_or_tight(row)) return std::nullopt;
  return made(kind_of(row.fit), row,
              message("headline.plan_all",
                      "Runs on one {gpu} as llama.cpp --fit places it: all {total} layers on the GPU, context {context}",
                      {gpu_name(row), arg::count("total", p.total_layers), arg::count("context", p.context)}));
}

// -ngl (num_gpu) below the layer count: the GPUs hold those layers and the rest runs from system RAM, a yes with a
// cost as --fit's placement is, never a plain "fits" beside layers on the CPU. `gpus`: the request's count of one
// card, or a list of cards (named in `cards`).
std::optional<Verdict> offload_verdict(const LlamaCppBuffers& b, const GpuFit& row, std::uint64_t gpus,
                                       std::string_view cards = {}) {
  if (b.gpu_layers >= b.total_layers || !fits_or_tight(row)) return std::nullopt;
  const MessageArg n = arg::count("n", b.gpu_layers), total = arg::count("total", b.total_layers),
                   ram = arg::gb("ram_bytes", b.host_ram_bytes, 1);
  Message headline =
      !cards.empty()
          ? message("headline.cards_offload", "Runs on your {gpus} with {n} of {total} layers on the GPUs, {ram_bytes} "
                                              "in system RAM",
                    {arg::text("gpus", cards), n, total, ram})
      : gpus > 1 ? message("headline.offload_layers_owned",
                           "Runs on your {count} × {gpu} with {n} of {total} layers on the GPUs, {ram_bytes} in "
                           "system RAM",
                           {arg::count("count", gpus), gpu_name(row), n, total, ram})
                 : message("headline.offload_layers",
                           "Runs on one {gpu} with {n} of {total} layers on the GPU, {ram_bytes} in system RAM",
                           {gpu_name(row), n, total, ram});
  Verdict v = made(VerdictKind::runs_split, row, std::move(headline));
  v.label = gpus > 1 ? message("verdict.runs_layers_gpus", "runs with {n} of {total} layers on the GPUs", {n, total})
                     : message("verdict.runs_layers", "runs with {n} of {total} layers on the GPU", {n, total});
  v.gpus = gpus;
  return v;
}

// vLLM and SGLang hold a KV pool sized by the GPU: what fits is how many tokens and sequences it keeps, and a
// pool below one sequence means the engine refuses to start.
struct Pool {
  std::string_view engine;
  std::uint64_t gpus = 1, tokens = 0, seqs = 0, length = 0;
  std::optional<double> fraction;  // SGLang's mem_fraction_static
};
std::optional<Pool> pool_of(const InferenceEstimate& e) {
  if (e.vllm && e.vllm->driver_total_bytes) {
    const VllmCapacity& v = *e.vllm;
    return Pool{"vLLM", v.tensor_parallel * v.pipeline_parallel, v.kv_capacity_tokens, v.max_concurrency,
                v.sequence_tokens, std::nullopt};
  }
  if (e.sglang && e.sglang->driver_total_bytes) {
    const SglangCapacity& s = *e.sglang;
    return Pool{"SGLang", s.tensor_parallel * s.pipeline_parallel, s.max_total_num_tokens, s.max_concurrency,
                s.context_len, s.mem_fraction_static};
  }
  return std::nullopt;
}

Verdict refused(const Pool& p, const GpuFit& row) {
  const MessageArg engine = arg::text("engine", p.engine), tokens = arg::count("tokens", p.tokens),
                   length = arg::count("length", p.length);
  if (p.gpus > 1)
    return made(VerdictKind::refuses, row,
                message("headline.refuses_owned",
                        "{engine} would not start on your {count} × {gpu}: its KV cache holds {tokens} tokens, less "
                        "than one sequence of {length}",
                        {engine, arg::count("count", p.gpus), gpu_name(row), tokens, length}));
  return made(VerdictKind::refuses, row,
              message("headline.refuses",
                      "{engine} would not start on one {gpu}: its KV cache holds {tokens} tokens, less than one "
                      "sequence of {length}",
                      {engine, gpu_name(row), tokens, length}));
}

Verdict pool_fits(const Pool& p, const GpuFit& row) {
  const MessageArg tokens = arg::count("tokens", p.tokens), seqs = arg::count("seqs", p.seqs),
                   length = arg::count("length", p.length), count = arg::count("count", p.gpus);
  const VerdictKind kind = kind_of(row.fit);
  const bool one = p.seqs == 1;
  if (p.fraction) {
    const MessageArg fraction = arg::general("fraction", *p.fraction, 3);
    if (p.gpus > 1)
      return made(kind, row,
                  one ? message("headline.sglang_owned_one",
                                "Fits on your {count} × {gpu}: SGLang keeps {tokens} tokens of KV cache "
                                "(mem_fraction_static {fraction}), one sequence of {length} at a time",
                                {count, gpu_name(row), tokens, fraction, length})
                      : message("headline.sglang_owned",
                                "Fits on your {count} × {gpu}: SGLang keeps {tokens} tokens of KV cache "
                                "(mem_fraction_static {fraction}), {seqs} sequences of {length} at once",
                                {count, gpu_name(row), tokens, fraction, seqs, length}));
    return made(kind, row,
                one ? message("headline.sglang_one",
                              "Fits on one {gpu}: SGLang keeps {tokens} tokens of KV cache (mem_fraction_static "
                              "{fraction}), one sequence of {length} at a time",
                              {gpu_name(row), tokens, fraction, length})
                    : message("headline.sglang",
                              "Fits on one {gpu}: SGLang keeps {tokens} tokens of KV cache (mem_fraction_static "
                              "{fraction}), {seqs} sequences of {length} at once",
                              {gpu_name(row), tokens, fraction, seqs, length}));
  }
  if (p.gpus > 1)
    return made(kind, row,
                one ? message("headline.vllm_owned_one",
                              "Fits on your {count} × {gpu}: vLLM keeps {tokens} tokens of KV cache, one sequence of "
                              "{length} at a time",
                              {count, gpu_name(row), tokens, length})
                    : message("headline.vllm_owned",
                              "Fits on your {count} × {gpu}: vLLM keeps {tokens} tokens of KV cache, {seqs} sequences "
                              "of {length} at once",
                              {count, gpu_name(row), tokens, seqs, length}));
  return made(kind, row,
              one ? message("headline.vllm_one",
                            "Fits on one {gpu}: vLLM keeps {tokens} tokens of KV cache, one sequence of {length} at a "
                            "time",
                            {gpu_name(row), tokens, length})
                  : message("headline.vllm",
                            "Fits on one {gpu}: vLLM keeps {tokens} tokens of KV cache, {seqs} sequences of {length} "
                            "at once",
                            {gpu_name(row), tokens, seqs, length}));
}

// What the engine itself says on the chosen GPU, where it says more than the GPU table's rule.
std::optional<Verdict> engine_verdict(const VerdictScene& s, const GpuFit& row) {
  const InferenceEstimate* e = s.estimate;
  if (!e) return std::nullopt;
  const auto placed = [](Verdict v, std::uint64_t gpu, std::uint64_t ram, bool from_plan = false) {
    if (v.kind == VerdictKind::runs_split) v.gpu_bytes = gpu, v.ram_bytes = ram, v.from_plan = from_plan;
    return v;
  };
  if (e->ollama)
    if (auto v = ollama_verdict(*e->ollama, row))
      return placed(*v, e->ollama->required_partial_bytes, e->ollama->system_ram_bytes);
  if (s.plan) {
    // What llama-server loads after the fit (the draft, clip's buffer) can leave the placement short of the card.
    const std::uint64_t on_card = placed_on_card(*s.plan, *e);
    const std::uint64_t usable = row.gpu ? usable_for(*row.gpu, e->in_use) : on_card;
    if (s.plan->fits && on_card > usable)
      return made(VerdictKind::does_not_fit, row,
                  message("headline.plan_short",
                          "Does not fit on one {gpu}: what llama.cpp --fit places and what llama-server loads after "
                          "it need {short_bytes} more than the card has",
                          {gpu_name(row), arg::gb("short_bytes", on_card - usable, 1)}));
    if (auto v = plan_verdict(*s.plan, row, s.context_from_plan))
      return placed(*v, on_card, s.plan->host_ram_bytes, true);
  }
  if (e->llamacpp && s.about == VerdictScene::About::chosen)
    if (auto v = offload_verdict(*e->llamacpp, row, s.owned)) return placed(*v, e->total, e->llamacpp->host_ram_bytes);
  const auto pool = pool_of(*e);
  if (!pool) return std::nullopt;
  // SGLang starts with a pool shorter than one context and refuses only the requests longer than the pool
  // (scheduler.py: max_req_input_len = min(context_len − 1, max_total_num_tokens − 1)).
  if (pool->seqs == 0 && pool->fraction && pool->tokens > 0) {
    const std::vector<MessageArg> args = {arg::count("count", pool->gpus), gpu_name(row),
                                          arg::count("tokens", pool->tokens), arg::count("length", pool->length)};
    return made(VerdictKind::tight, row,
                pool->gpus > 1 ? message("headline.sglang_short_owned",
                                         "Runs on your {count} × {gpu}, but SGLang keeps only {tokens} tokens of KV "
                                         "cache: a request longer than that is refused (context {length})",
                                         args)
                               : message("headline.sglang_short",
                                         "Runs on one {gpu}, but SGLang keeps only {tokens} tokens of KV cache: a "
                                         "request longer than that is refused (context {length})",
                                         args));
  }
  // vLLM's start check (PR #19312): the memory others hold leaves less free than gpu_memory_utilization asks.
  if (const auto& start = e->vllm_start; start && !start->starts) {
    std::vector<MessageArg> args = {gpu_name(row), arg::gib("free_bytes", start->free_bytes, 2),
                                    arg::gib("in_use_bytes", start->in_use_bytes, 2),
                                    arg::fixed("util", start->gpu_util, 2), arg::fixed("fits", start->util_that_fits, 2)};
    const bool owned = pool->gpus > 1;
    if (owned) args.push_back(arg::count("count", pool->gpus));
    // At the share that passes the check the pool must still hold one sequence, or vLLM stops there instead.
    if (start->util_that_fits > 0 && !start->fits_holds_sequence) {
      args.push_back(arg::count("tokens", start->fits_kv_tokens));
      args.push_back(arg::count("length", start->sequence_tokens));
      return made(VerdictKind::refuses, row,
                  owned ? message("headline.vllm_in_use_short_owned",
                                  "vLLM would not start on your {count} × {gpu}: {free_bytes} is free beside the "
                                  "{in_use_bytes} in use, less than gpu_memory_utilization {util} asks; even at {fits} "
                                  "its KV cache would hold {tokens} tokens, less than one sequence of {length}",
                                  args)
                        : message("headline.vllm_in_use_short",
                                  "vLLM would not start on one {gpu}: {free_bytes} is free beside the {in_use_bytes} "
                                  "in use, less than gpu_memory_utilization {util} asks; even at {fits} its KV cache "
                                  "would hold {tokens} tokens, less than one sequence of {length}",
                                  args));
    }
    return made(VerdictKind::refuses, row,
                owned ? message("headline.vllm_in_use_owned",
                                "vLLM would not start on your {count} × {gpu}: {free_bytes} is free beside the "
                                "{in_use_bytes} in use, less than gpu_memory_utilization {util} asks; {fits} starts",
                                args)
                      : message("headline.vllm_in_use",
                                "vLLM would not start on one {gpu}: {free_bytes} is free beside the {in_use_bytes} in "
                                "use, less than gpu_memory_utilization {util} asks; {fits} starts",
                                args));
  }
  if (pool->seqs == 0) return refused(*pool, row);
  if (fits_or_tight(row)) return pool_fits(*pool, row);
  return std::nullopt;
}

// With no GPU chosen a fitting verdict speaks of the row's class of cards.
Verdict class_verdict(const VerdictScene& s, const GpuFit& row) {
  const CardClass c = card_class(s.rows, row);
  const MessageArg memory = card_bytes(c.bytes), names = arg::text("names", c.names),
                   free = gb("free_bytes", row.free_bytes), count = arg::count("count", s.owned);
  const VerdictKind kind = kind_of(row.fit);
  if (s.owned > 1)
    return row.fit == Fit::fits
               ? made(kind, row, message("headline.fits_class_owned",
                                         "Fits on {count} × {card_bytes} cards such as the {names}, with {free_bytes} "
                                         "free each",
                                         {count, memory, names, free}))
               : made(kind, row, message("headline.tight_class_owned",
                                         "Fits on {count} × {card_bytes} cards such as the {names}, but only "
                                         "{free_bytes} free on each: less than the headroom",
                                         {count, memory, names, free}));
  return row.fit == Fit::fits
             ? made(kind, row, message("headline.fits_class", "Fits {card_bytes} cards such as the {names}, with "
                                                              "{free_bytes} free",
                                       {memory, names, free}))
             : made(kind, row, message("headline.tight_class", "Fits {card_bytes} cards such as the {names}, but only "
                                                               "{free_bytes} free: less than the headroom",
                                       {memory, names, free}));
}

// Several GPUs: a training job's (the breakdown is each GPU's), or the GPUs a person has for one inference (the
// verdict is the fullest one's, its free memory what each keeps at least).
std::optional<Verdict> many_verdict(const VerdictScene& s, const GpuFit& row) {
  const MessageArg free = gb("free_bytes", row.free_bytes);
  if (s.job_gpus > 1 && fits_or_tight(row)) {
    const MessageArg count = arg::count("count", s.job_gpus);
    return row.fit == Fit::fits
               ? made(VerdictKind::fits, row, message("headline.fits_each",
                                                      "Fits on each of {count} × {gpu} with {free_bytes} free on each",
                                                      {count, gpu_name(row), free}))
               : made(VerdictKind::tight, row, message("headline.tight_each",
                                                       "Fits on each of {count} × {gpu}, but only {free_bytes} free "
                                                       "on each: less than the headroom",
                                                       {count, gpu_name(row), free}));
  }
  if (s.owned <= 1) return std::nullopt;
  const MessageArg count = arg::count("count", s.owned);
  if (row.fit == Fit::fits)
    return made(VerdictKind::fits, row, message("headline.fits_owned", "Fits on your {count} × {gpu} with {free_bytes} "
                                                                       "free each",
                                                {count, gpu_name(row), free}));
  if (row.fit == Fit::tight)
    return made(VerdictKind::tight, row, message("headline.tight_owned",
                                                 "Fits on your {count} × {gpu}, but only {free_bytes} free on each: "
                                                 "less than the headroom",
                                                 {count, gpu_name(row), free}));
  if (row.free_bytes < 0)
    return made(VerdictKind::does_not_fit, row,
                message("headline.short_owned", "Does not fit on your {count} × {gpu}: {short_bytes} short on the "
                                                "fullest one",
                        {count, gpu_name(row), gb("short_bytes", -row.free_bytes)}));
  return std::nullopt;
}

// One GPU by the GPU table's rule.
Verdict one_verdict(const GpuFit& row) {
  const MessageArg free = gb("free_bytes", row.free_bytes);
  if (row.fit == Fit::fits)
    return made(VerdictKind::fits, row, message("headline.fits", "Fits on one {gpu} with {free_bytes} free",
                                                {gpu_name(row), free}));
  if (row.fit == Fit::tight)
    return made(VerdictKind::tight, row, message("headline.tight", "Fits on one {gpu}, but only {free_bytes} free: "
                                                                   "less than the headroom",
                                                 {gpu_name(row), free}));
  if (row.gpus_needed > 0)
    return made(VerdictKind::does_not_fit, row, message("headline.needs", "Needs {count} × {gpu}",
                                                        {arg::count("count", row.gpus_needed), gpu_name(row)}));
  return made(VerdictKind::does_not_fit, row, message("headline.short", "Does not fit on one {gpu}: {short_bytes} short",
                                                      {gpu_name(row), gb("short_bytes", -row.free_bytes)}));
}

// A list of cards as the person gave them: "GeForce RTX 3090 + GeForce RTX 4090".
std::string card_names(const std::vector<GpuFit>& rows) {
  std::string names;
  for (const GpuFit& r : rows) names += (names.empty() ? "" : " + ") + r.gpu->name;
  return names;
}

// Different cards together (llama.cpp's layer split): each judged by its own share, the fullest one speaks.
Verdict cards_verdict(const std::vector<GpuFit>& rows) {
  const auto fullest = std::min_element(rows.begin(), rows.end(),
                                        [](const GpuFit& a, const GpuFit& b) { return a.free_bytes < b.free_bytes; });
  const MessageArg gpus = arg::text("gpus", card_names(rows));
  const bool any_short = std::any_of(rows.begin(), rows.end(), [](const GpuFit& r) { return r.fit == Fit::does_not_fit; });
  const bool all_fit = std::all_of(rows.begin(), rows.end(), [](const GpuFit& r) { return r.fit == Fit::fits; });
  if (any_short)
    return made(VerdictKind::does_not_fit, *fullest,
                message("headline.cards_short", "Does not fit on your {gpus}: {short_bytes} short on the fullest one",
                        {gpus, gb("short_bytes", -fullest->free_bytes)}));
  const MessageArg free = gb("free_bytes", fullest->free_bytes);
  if (all_fit)
    return made(VerdictKind::fits, *fullest,
                message("headline.cards_fits", "Fits on your {gpus} with {free_bytes} free on the fullest one",
                        {gpus, free}));
  return made(VerdictKind::tight, *fullest,
              message("headline.cards_tight", "Fits on your {gpus}, but only {free_bytes} free on the fullest one: "
                                              "less than the headroom",
                      {gpus, free}));
}

// A machine whose GPU shares the RAM (not a Mac): of the RAM, what the GPU may use.
Message shared_clause(const Gpu& gpu) {
  const MessageArg ram = arg::gib("ram_bytes", (gpu.memory_bytes >> 30) << 30, 0);
  const MessageArg usable = arg::gib("usable_bytes", gpu.usable_bytes(), 1);
  if (gpu.wired_limit_bytes)
    return message("headline.shared_set", " (of its {ram_bytes}, the GPU may use {usable_bytes} as set)", {ram, usable});
  if (gpu.shared == SharedMemory::amd_apu && gpu.default_share_bytes)
    return message("headline.shared_amd_documented",
                   " (of its {ram_bytes}, the GPU may use {usable_bytes} by ROCm's default)", {ram, usable});
  if (gpu.shared == SharedMemory::amd_apu)
    // How to give it more (ttm.pages_limit, the BIOS carve-out, Windows' Variable Graphics Memory) is the GPU's note
    // and, where a larger share would hold the model, a remedy with the value.
    return message("headline.shared_amd_default",
                   " (of its {ram_bytes}, the GPU may use {usable_bytes} by Linux's default)", {ram, usable});
  if (gpu.driver_visible_bytes)
    return message("headline.shared_cuda",
                   " (of its {ram_bytes}, the GPU may use the {usable_bytes} CUDA reports, less what the system holds; "
                   "closing programs and dropping the page cache frees more)",
                   {ram, usable});
  return message("headline.shared_cuda_unknown",
                 " (of its {ram_bytes}, the GPU may use what the system leaves free; closing programs frees more)",
                 {ram});
}

// A Mac's GPU takes its memory from the RAM: the headline says how much of it the verdict counted.
Message wired_clause(const Gpu& gpu) {
  if (!gpu.unified_memory) return {};
  if (gpu.shared != SharedMemory::macos) return shared_clause(gpu);
  const MessageArg usable = arg::gb("usable_bytes", gpu.usable_bytes(), 1);
  if (gpu.wired_limit_bytes)
    return message("headline.wired_set", " (of the {usable_bytes} its GPU may use with the limit set)", {usable});
  return message("headline.wired_default", " (of the {usable_bytes} macOS lets its GPU use by default)", {usable});
}

Verdict row_verdict(const VerdictScene& s, const GpuFit& row) {
  if (s.about == About::chosen)
    if (auto v = engine_verdict(s, row)) return *v;
  if (s.about == About::catalog && s.job_gpus == 1 && fits_or_tight(row)) return class_verdict(s, row);
  if (auto v = many_verdict(s, row)) return *v;
  return one_verdict(row);
}

}  // namespace

Verdict judge_verdict(const VerdictScene& s) {
  Verdict none;
  none.message = message("headline.none", "Does not fit on any GPU in the list");
  if (s.rows.empty()) return none;
  if (s.about == About::cards) {
    const Verdict v = cards_verdict(s.rows);
    // -ngl below the layer count over a list of cards: the fullest one still fits, the rest runs from system RAM.
    if (const InferenceEstimate* e = s.estimate; e && e->llamacpp && v.gpu && v.kind != VerdictKind::does_not_fit) {
      const auto fullest = std::find_if(s.rows.begin(), s.rows.end(), [&](const GpuFit& r) { return r.gpu == v.gpu; });
      if (auto offload = offload_verdict(*e->llamacpp, *fullest, s.rows.size(), card_names(s.rows))) {
        offload->gpu_bytes = e->total;
        offload->ram_bytes = e->llamacpp->host_ram_bytes;
        return *offload;
      }
    }
    return v;
  }
  const GpuFit* row = s.about == About::chosen ? &s.rows.front() : catalog_row(s.rows);
  if (!row) return none;
  Verdict v = row_verdict(s, *row);
  // A machine that shares its RAM says what of it the GPU may use, whether all of the model is there or the plan put
  // the rest in system RAM: that share is what the split was made against.
  v.wired = wired_clause(*row->gpu);
  return v;
}

}  // namespace vramfit
