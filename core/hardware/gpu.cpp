#include "hardware/gpu.hpp"

#include <algorithm>  // std::find
#include <array>      // std::array
#include <cmath>      // std::llround, std::floor
#include <iterator>   // std::begin, std::end

#include "util/json_fields.hpp"
#include "util/number_text.hpp"  // fixed_text, general_text
#include "util/text.hpp"  // lookup_key, name_key, contains_name_part, closest_names, join_names

namespace vramfit {

std::uint64_t Gpu::usable_bytes() const noexcept {
  if (!unified_memory) return memory_bytes;
  if (wired_limit_bytes) return *wired_limit_bytes;
  switch (shared) {
    case SharedMemory::macos: return default_wired_limit_bytes(memory_bytes);
    case SharedMemory::amd_apu: return default_share_bytes.value_or(default_gtt_bytes(memory_bytes));
    case SharedMemory::nvidia_unified: return driver_visible_bytes.value_or(memory_bytes);
  }
  return memory_bytes;
}

std::uint64_t default_wired_limit_bytes(std::uint64_t ram) noexcept {
  if (ram > kWiredTwoThirdsUpTo) return ram / 4 * 3;
  return (ram / kApplePageBytes * 2 / 3 + 1) * kApplePageBytes;
}

std::uint64_t default_gtt_bytes(std::uint64_t ram) noexcept { return ram / kLinuxPageBytes / 2 * kLinuxPageBytes; }

namespace {

// The note for a machine other than a Mac: its GPU's share, where it comes from and how to change it.
Message shared_memory_note(const Gpu& gpu, std::initializer_list<MessageArg> args) {
  if (gpu.wired_limit_bytes)
    return message("unified.share_given",
                   "The {gpu}'s GPU may use {usable_bytes} of its {ram_bytes} of RAM: the GPU memory limit given.",
                   args);
  if (gpu.shared == SharedMemory::amd_apu && gpu.default_share_bytes)
    return message("unified.amd_documented",
                   "The {gpu}'s GPU may use {usable_bytes} of its {ram_bytes}: what AMD documents a HIP device "
                   "allocation may take by default. To give it more, load amdttm with a larger pages_limit and "
                   "page_pool_size (4 KiB pages, for all the machine's APUs together), then give that as the GPU "
                   "memory limit (--wired-limit-mb).",
                   args);
  if (gpu.shared == SharedMemory::amd_apu)
    return message("unified.amd_default",
                   "The {gpu}'s GPU may use {usable_bytes} of its {ram_bytes} of RAM: Linux's default GTT limit, half "
                   "the RAM (a little less, as the kernel sees the RAM less the BIOS carve-out). ROCm uses the larger "
                   "of the GTT limit and the carve-out, Vulkan both. To give it more, raise ttm.pages_limit (in 4 KiB "
                   "pages: amd-ttm --set N, then reboot) or the carve-out in the BIOS; on Windows, set the Variable "
                   "Graphics Memory in AMD Software (up to 96 GB of 128 GB). Then give that as the GPU memory limit "
                   "(--wired-limit-mb).",
                   args);
  if (gpu.driver_visible_bytes)
    return message("unified.cuda_total",
                   "The {gpu}'s GPU may use the {usable_bytes} of its {ram_bytes} of RAM that CUDA reports as the "
                   "total, less what the system and other programs hold: there is no limit to set. CUDA counts the "
                   "page cache as used (sync; echo 3 > /proc/sys/vm/drop_caches frees it). Give what your machine has "
                   "free as the GPU memory limit (--wired-limit-mb).",
                   args);
  return message("unified.cuda_unknown",
                 "The {gpu}'s GPU may use its {ram_bytes} of RAM less what the system and other programs hold, which "
                 "is not modelled (the total CUDA reports was not read in a source here): give what your machine has "
                 "free as the GPU memory limit (--wired-limit-mb).",
                 args);
}

}  // namespace

Message wired_limit_note(const Gpu& gpu) {
  if (!gpu.unified_memory) return {};
  const std::initializer_list<MessageArg> args = {arg::text("gpu", gpu.name),
                                                  arg::gib("usable_bytes", gpu.usable_bytes(), 2),
                                                  arg::gib("ram_bytes", (gpu.memory_bytes >> 30) << 30, 0)};
  if (gpu.shared != SharedMemory::macos) return shared_memory_note(gpu, args);
  if (gpu.wired_limit_bytes)
    return message("mac.wired_limit_given",
                   "The {gpu}'s GPU may use {usable_bytes} of its {ram_bytes} of RAM: the wired limit given (sudo "
                   "sysctl iogpu.wired_limit_mb).",
                   args);
  return message("mac.wired_limit_default",
                 "The {gpu}'s GPU may use {usable_bytes} of its {ram_bytes} of RAM: macOS's default wired limit as "
                 "macOS 13 to 15 set it. macOS 26 allows more (0.74 to 0.84 of RAM measured on 24 to 128 GB Macs), "
                 "which is not modelled: give the recommendedMaxWorkingSetSize your Mac reports, or a limit set with "
                 "sudo sysctl iogpu.wired_limit_mb=N, as the GPU memory limit (--wired-limit-mb).",
                 args);
}

Message one_per_machine_message(const Gpu& gpu) {
  if (gpu.shared != SharedMemory::macos)
    return message("gpus.one_machine", "{gpu}: one GPU per machine: its shared memory is not split across machines here",
                   {arg::text("gpu", gpu.name)});
  return message("gpus.one_mac", "{gpu}: one GPU per machine: unified memory is not split across Macs here",
                 {arg::text("gpu", gpu.name)});
}

Result<std::uint64_t> wired_limit_for(const Gpu& gpu, std::uint64_t limit_mib, std::string_view field) {
  if (!gpu.unified_memory)
    return make_error(std::string(field), message("mac.wired_not_mac",
                                                  "is the GPU's share of a machine's shared memory (a Mac's "
                                                  "iogpu.wired_limit_mb, a Strix Halo's GTT limit); the {gpu} has "
                                                  "memory of its own, all of it usable",
                                                  {arg::text("gpu", gpu.name)}));
  const std::uint64_t ram_mib = gpu.memory_bytes >> 20;
  if (limit_mib > ram_mib && gpu.shared != SharedMemory::macos)
    return make_error(std::string(field), message("unified.share_over_ram", "must be at most the {gpu}'s RAM, {ram_mb} "
                                                  "MB (0: the operating system's default)",
                                                  {arg::text("gpu", gpu.name), arg::text("ram_mb", std::to_string(ram_mib))}));
  if (limit_mib > ram_mib)
    // The MB as typed into the field or sysctl: text, so no page groups its digits.
    return make_error(std::string(field), message("mac.wired_over_ram", "must be at most the {gpu}'s RAM, {ram_mb} MB "
                                                  "(0: macOS's default)",
                                                  {arg::text("gpu", gpu.name), arg::text("ram_mb", std::to_string(ram_mib))}));
  return limit_mib << 20;
}

std::uint32_t compute_capability(const Gpu& gpu) noexcept {
  if (gpu.vendor != "NVIDIA") return 0;
  const bool datacenter = gpu.segment == "datacenter";
  if (gpu.architecture == "Blackwell") return datacenter ? 100 : 120;
  if (gpu.architecture == "Hopper") return 90;
  if (gpu.architecture == "Ada Lovelace") return 89;
  if (gpu.architecture == "Ampere") return datacenter ? 80 : 86;
  if (gpu.architecture == "Turing") return 75;
  if (gpu.architecture == "Volta") return 70;
  return 0;
}

const Gpu* find_gpu(const std::vector<Gpu>& gpus, std::string_view id_or_name) noexcept {
  const std::string key = lookup_key(id_or_name);
  if (key.empty()) return nullptr;
  for (const auto& g : gpus)
    if (lookup_key(g.id) == key || lookup_key(g.name) == key) return &g;
  return nullptr;
}

namespace {

// The first `most` names, comma-separated; the rest are counted in the message.
std::string listed(const std::vector<const Gpu*>& gpus, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < gpus.size() && i < most; ++i) out += (i ? ", " : "") + gpus[i]->name;
  return out;
}

Message read_as_also(std::string_view given, const Gpu& meant, const std::vector<const Gpu*>& others) {
  constexpr std::size_t kMost = 4;
  const std::vector<MessageArg> args{arg::text("given", given), arg::text("name", meant.name),
                                     arg::text("others", listed(others, kMost))};
  if (others.size() <= kMost)
    return message("name.gpu_read_as_also", "\"{given}\" read as {name} (also {others}: name one to pick it).", args);
  std::vector<MessageArg> more = args;
  more.push_back(arg::digits("more", others.size() - kMost));
  return message("name.gpu_read_as_also_more",
                 "\"{given}\" read as {name} (also {others} and {more} more: name one to pick it).", std::move(more));
}

Error ambiguous(std::string_view field, std::string_view given, const std::vector<const Gpu*>& matches) {
  constexpr std::size_t kMost = 6;
  const MessageArg g = arg::text("given", given);
  const MessageArg names = arg::text("names", listed(matches, kMost));
  if (matches.size() <= kMost)
    return make_error(std::string(field), message("gpu.ambiguous", "\"{given}\" could be {names}; name one", {g, names}));
  return make_error(std::string(field), message("gpu.ambiguous_more", "\"{given}\" could be {names} and {more} more; name one",
                                                {g, names, arg::digits("more", matches.size() - kMost)}));
}

}  // namespace

namespace {

// A card's name as a driver prints it, apart from the words that name no card: nvidia-smi and amd-smi put the
// vendor and brand in front ("NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-32GB", "AMD Instinct MI300X OAM"), the
// memory in ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB") and the SXM generation, which the catalog's names
// leave out or spell otherwise. The same reading of a catalog name gives the key it is compared with.
struct CardName {
  std::string key;                         // the words that tell cards apart, as name_key writes them
  std::optional<std::uint64_t> memory_gb;  // "80GB", "-32GB", "80 GB", "80G"
  std::string memory_type;                 // "hbm3", lower case
};

bool all_digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

CardName read_card_name(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : lower_ascii(text)) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) word += c;
    else if (!word.empty()) words.push_back(std::move(word)), word.clear();
  }
  if (!word.empty()) words.push_back(std::move(word));
  static constexpr std::string_view kVendorWords[] = {"nvidia", "geforce", "tesla", "amd", "intel", "apple", "oam"};
  static constexpr std::string_view kMemoryTypes[] = {"gddr6", "gddr6x", "gddr7", "hbm2", "hbm2e", "hbm3", "hbm3e",
                                                      "lpddr4x", "lpddr5", "lpddr5x"};
  CardName out;
  std::string kept;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (std::find(std::begin(kVendorWords), std::end(kVendorWords), w) != std::end(kVendorWords)) continue;
    if (std::find(std::begin(kMemoryTypes), std::end(kMemoryTypes), w) != std::end(kMemoryTypes)) {
      out.memory_type = w;
      continue;
    }
    const std::string_view digits = w.ends_with("gb") ? std::string_view(w).substr(0, w.size() - 2)
                                    : w.ends_with('g') ? std::string_view(w).substr(0, w.size() - 1)
                                                       : std::string_view();
    if (all_digits(digits)) {
      out.memory_gb = std::stoull(std::string(digits));
      continue;
    }
    if (all_digits(w) && i + 1 < words.size() && words[i + 1] == "gb") {
      out.memory_gb = std::stoull(w);
      ++i;
      continue;
    }
    // SXM2, SXM4, SXM5: the socket's generation; the catalog names the form factor ("SXM", "SXM2").
    const bool sxm = w.starts_with("sxm") && (w.size() == 3 || all_digits(std::string_view(w).substr(3)));
    kept += (kept.empty() ? "" : " ") + (sxm ? std::string("sxm") : w);
  }
  out.key = name_key(kept);
  return out;
}

std::uint64_t nominal_gb(const Gpu& g) { return static_cast<std::uint64_t>(std::llround(static_cast<double>(g.memory_bytes) / (1ull << 30))); }

bool has_memory(const Gpu& g, const CardName& name) {
  if (name.memory_gb && nominal_gb(g) != *name.memory_gb) return false;
  return name.memory_type.empty() || lower_ascii(g.memory_type) == name.memory_type;
}

Error unknown_gpu(const std::vector<Gpu>& gpus, std::string_view text, std::string_view field) {
  std::vector<std::string> names;
  for (const auto& g : gpus) names.push_back(g.name);
  const auto closest = closest_names(names, text, 3);
  std::string hint;
  for (std::size_t i = 0; i < closest.size(); ++i) hint += (i ? ", " : "") + closest[i];
  if (hint.empty())
    return make_error(std::string(field), message("gpu.unknown", "unknown GPU \"{given}\" (not in the GPU catalog)",
                                                  {arg::text("given", text)}));
  return make_error(std::string(field), message("gpu.unknown_closest",
                                                "unknown GPU \"{given}\" (not in the GPU catalog); closest: {closest}",
                                                {arg::text("given", text), arg::text("closest", hint)}));
}

GpuLookup read_as(std::string_view given, const Gpu& meant, const std::vector<const Gpu*>& others) {
  if (others.empty())
    return GpuLookup{&meant, message("name.gpu_read_as", "\"{given}\" read as {name}.",
                                     {arg::text("given", given), arg::text("name", meant.name)})};
  return GpuLookup{&meant, read_as_also(given, meant, others)};
}

// A name with a vendor's word, its memory or its SXM generation in it: the cards whose name it is once those are set
// apart, narrowed by the memory it names. A name that is a card's whole name means that card; a short one the card
// its alias names, or the only one, with the others it could mean said.
Result<GpuLookup> resolve_card_name(const std::vector<Gpu>& gpus, std::string_view text, const CardName& typed,
                                    std::string_view field) {
  if (typed.key.empty()) return unknown_gpu(gpus, text, field);
  std::vector<const Gpu*> named, fitting, whole;
  const Gpu* aliased = nullptr;
  for (const auto& g : gpus) {
    const std::string key = read_card_name(g.name).key;
    bool alias = false;
    for (const auto& a : g.aliases) alias = alias || read_card_name(a).key == typed.key;
    if (!alias && !contains_name_part(key, typed.key)) continue;
    named.push_back(&g);
    if (!has_memory(g, typed)) continue;
    fitting.push_back(&g);
    if (key == typed.key) whole.push_back(&g);
    if (alias && !aliased) aliased = &g;
  }
  if (named.empty()) return unknown_gpu(gpus, text, field);
  if (fitting.empty()) {
    std::string variants;
    for (const Gpu* g : named)
      variants += (variants.empty() ? "" : ", ") + g->name + " (" + std::to_string(nominal_gb(*g)) + " GB " + g->memory_type + ")";
    return make_error(std::string(field),
                      message("gpu.no_such_memory",
                              "\"{given}\" names memory that no card of that name has in the GPU catalog; it has {variants}",
                              {arg::text("given", text), arg::text("variants", variants)}));
  }
  if (whole.size() == 1) return read_as(text, *whole.front(), {});
  // Several cards under one name ("NVIDIA GeForce RTX 3060" is printed for the 8 GB and the 12 GB card): the one its
  // alias names, the others said; else refused.
  const std::vector<const Gpu*>& could_be = whole.empty() ? fitting : whole;
  const bool alias_among = std::find(could_be.begin(), could_be.end(), aliased) != could_be.end();
  const Gpu* meant = alias_among ? aliased : could_be.size() == 1 ? could_be.front() : nullptr;
  if (!meant) return ambiguous(field, text, could_be);
  std::vector<const Gpu*> others;
  for (const Gpu* g : could_be)
    if (g != meant) others.push_back(g);
  return read_as(text, *meant, others);
}

}  // namespace

Result<GpuLookup> resolve_gpu(const std::vector<Gpu>& gpus, std::string_view text, std::string_view field) {
  if (const Gpu* exact = find_gpu(gpus, text)) return GpuLookup{exact, {}};
  const std::string key = name_key(text);
  if (const CardName typed = read_card_name(text); typed.key != key || typed.memory_gb || !typed.memory_type.empty())
    return resolve_card_name(gpus, text, typed, field);
  std::vector<const Gpu*> matches;
  for (const auto& g : gpus)
    if (contains_name_part(name_key(g.name), key) || contains_name_part(name_key(g.id), key)) matches.push_back(&g);
  // The card meant: an alias of it, the only match, or the only one whose name ends there ("3090", not "3090 Ti").
  const Gpu* meant = nullptr;
  for (const auto& g : gpus)
    for (const auto& alias : g.aliases)
      if (!meant && name_key(alias) == key) meant = &g;
  if (!meant && matches.size() == 1) meant = matches.front();
  if (!meant) {
    std::vector<const Gpu*> plain;
    for (const Gpu* m : matches)
      if (name_key(m->name).ends_with(key)) plain.push_back(m);
    if (plain.size() == 1) meant = plain.front();
  }
  if (meant) {
    std::vector<const Gpu*> others;
    for (const Gpu* m : matches)
      if (m != meant) others.push_back(m);
    return read_as(text, *meant, others);
  }
  if (matches.size() > 1) return ambiguous(field, text, matches);
  return unknown_gpu(gpus, text, field);
}

bool is_custom_gpu_name(std::string_view gpu) noexcept { return lookup_key(gpu) == lookup_key(kCustomGpuId); }

namespace {

// A vendor's name in the request, in enum order, and as the catalog spells it.
struct VendorName {
  std::string_view name;
  GpuVendor value;
  std::string_view catalog;
};
constexpr std::array<VendorName, 4> kGpuVendors{{{"nvidia", GpuVendor::nvidia, "NVIDIA"},
                                                 {"amd", GpuVendor::amd, "AMD"},
                                                 {"intel", GpuVendor::intel, "Intel"},
                                                 {"apple", GpuVendor::apple, "Apple"}}};

}  // namespace

std::optional<GpuVendor> parse_gpu_vendor(std::string_view name) noexcept {
  for (const VendorName& v : kGpuVendors)
    if (v.name == lower_ascii(name)) return v.value;
  return std::nullopt;
}

std::string_view gpu_vendor_name(GpuVendor vendor) noexcept {
  return kGpuVendors[static_cast<std::size_t>(vendor)].catalog;
}

std::string gpu_vendor_names() { return join_names(kGpuVendors); }

namespace {

// "48", "22", "1.5": a card's memory in GB (GiB, as its maker counts them), as its name says it.
std::string gb_text(std::uint64_t bytes) {
  return detail::general_text(static_cast<double>(bytes) / static_cast<double>(1ull << 30), 6);
}

Error only_custom(std::string_view field, const Gpu& like) {
  return make_error(std::string(field),
                    message("gpu.custom_only", "describes a card of your own (GPU \"custom\"); a card like the {gpu} "
                                               "keeps its vendor and its kind of memory",
                            {arg::text("gpu", like.name)}));
}

// The figures given, in place of the card's own.
void apply_figures(Gpu& g, const CustomGpuInputs& in) {
  if (in.memory_bytes) g.memory_bytes = *in.memory_bytes;
  if (in.bandwidth_gb_s) g.bandwidth_gb_s = in.bandwidth_gb_s;
  if (in.tflops) g.tflops_bf16 = g.tflops_fp16 = in.tflops;
  if (in.tflops_fp8) g.tflops_fp8 = in.tflops_fp8;
  if (in.tflops_fp4) g.tflops_fp4 = in.tflops_fp4;
}

}  // namespace

Result<Gpu> custom_gpu(const std::vector<Gpu>& catalog, std::string_view gpu, const CustomGpuInputs& in) {
  const std::string_view first = in.memory_bytes ? "gpu_memory" : in.bandwidth_gb_s ? "gpu_bandwidth"
                                 : in.tflops ? "gpu_tflops" : in.tflops_fp8 ? "gpu_tflops_fp8"
                                 : in.tflops_fp4 ? "gpu_tflops_fp4" : in.vendor ? "gpu_vendor" : "gpu_unified";
  if (gpu.empty())
    return make_error(std::string(first),
                      message("gpu.custom_without_gpu", "describes the GPU: choose one, \"custom\" for a card of your "
                                                        "own or the catalog card yours is like"));
  if (!is_custom_gpu_name(gpu)) {
    auto found = resolve_gpu(catalog, gpu, "gpu");
    if (!found) return found.error();
    const Gpu& like = *found.value().gpu;
    if (in.vendor) return only_custom("gpu_vendor", like);
    if (in.unified) return only_custom("gpu_unified", like);
    Gpu g = like;
    apply_figures(g, in);
    g.custom = like.id;
    if (in.memory_bytes) {
      g.id = like.id + "-with-" + gb_text(g.memory_bytes) + "gb";
      g.name = like.name + " (" + gb_text(g.memory_bytes) + " GB)";
      // Measured with the card's own memory; the total and the documented share of other memory are not.
      g.driver_visible_bytes.reset();
      g.default_share_bytes.reset();
    } else {
      g.id = like.id + "-custom";
      g.name = like.name + " (your figures)";
    }
    g.cloud_usd_per_hour.reset();
    g.street_usd.reset();
    g.aliases.clear();
    g.sources.clear();
    g.notes.clear();
    return g;
  }
  if (!in.memory_bytes)
    return make_error("gpu_memory", message("gpu.custom_needs_memory",
                                            "is needed for a card of your own (GPU \"custom\"): its memory, such as "
                                            "48GB or 24 GiB"));
  Gpu g;
  g.id = std::string(kCustomGpuId);
  g.custom = g.id;
  if (in.vendor) g.vendor = std::string(gpu_vendor_name(*in.vendor));
  const bool apple = in.vendor == GpuVendor::apple;
  // Apple's GPUs are the speed model's and MLX's own class; any other card is read as a discrete card of its own.
  g.segment = apple ? "apple" : "consumer";
  if (in.unified.value_or(apple)) {
    g.unified_memory = true;
    if (in.vendor == GpuVendor::apple) g.shared = SharedMemory::macos;
    else if (in.vendor == GpuVendor::amd) g.shared = SharedMemory::amd_apu;
    else if (in.vendor == GpuVendor::nvidia) g.shared = SharedMemory::nvidia_unified;
    else
      return make_error("gpu_unified", message("gpu.custom_unified_vendor",
                                               "needs the card's vendor (gpu_vendor apple, amd or nvidia): how much of "
                                               "the shared memory the GPU may use follows from it"));
  } else if (apple) {
    return make_error("gpu_unified", message("gpu.custom_apple_unified",
                                             "an Apple GPU shares the Mac's memory: leave it on or out"));
  }
  apply_figures(g, in);
  // A machine of its own that shares its memory: the bandwidth given is that memory's, which its CPU reads too.
  if (g.unified_memory && g.bandwidth_gb_s) g.cpu_bandwidth_gb_s = g.bandwidth_gb_s;
  g.name = "Custom card, " + gb_text(g.memory_bytes) + " GB";
  if (g.bandwidth_gb_s) g.name += ", " + detail::general_text(*g.bandwidth_gb_s, 6) + " GB/s";
  return g;
}

Message custom_gpu_note(const Gpu& gpu) {
  if (gpu.custom.empty()) return {};
  const MessageArg name = arg::text("gpu", gpu.name);
  if (gpu.custom != kCustomGpuId)
    return message("gpu.like_note",
                   "{gpu}: the catalog's figures for the card it is like, with yours in their place. The memory its "
                   "driver reports was not measured for it: all of it counts, as for catalog cards without a measured "
                   "figure (drivers report 1–3 % less). It has no price here.",
                   {name});
  return message("gpu.custom_note",
                 "{gpu}: the figures are your own, not the catalog's; a figure not given is not known, and what needs "
                 "it (the speed, the time to train) is not estimated. The memory its driver reports was not measured: "
                 "all of it counts, as for catalog cards without a measured figure (drivers report 1–3 % less). It has "
                 "no price here.",
                 {name});
}

namespace {

using detail::FieldReader;
using detail::json;

std::optional<DatedPrice> read_price(FieldReader& r, std::string_view key) {
  const json* price = r.object(key);
  if (!price) return std::nullopt;
  FieldReader p(*price, r.path(key));
  DatedPrice out;
  out.usd = p.number("value").value_or(-1);
  out.date = p.string("date").value_or("");
  out.offer = p.string("offer").value_or("");
  out.source = p.string("source").value_or("");
  if (p.error()) {
    r.fail_message(key, message("catalog.price_field", "{problem} ({field})",
                                 {arg::message("problem", p.error()->message), arg::text("field", p.error()->field)}));
    return std::nullopt;
  }
  if (out.usd < 0 || out.source.empty()) {
    r.fail_message(key, message("catalog.price_needs", "needs a non-negative value and a source"));
    return std::nullopt;
  }
  return out;
}

namespace {

// A machine whose GPU shares its memory: how the operating system shares it, and a share or count the entry documents.
// The share the GPU may use follows from the RAM and the operating system's rule (usable_bytes), not from the entry.
void read_unified_memory(FieldReader& r, const json& unified, double gib, Gpu& g) {
  g.unified_memory = true;
  const auto kind = unified.find("kind");
  const std::string text = kind != unified.end() && kind->is_string() ? kind->get<std::string>() : std::string();
  if (text == "macos") g.shared = SharedMemory::macos;
  else if (text == "amd_apu") g.shared = SharedMemory::amd_apu;
  else if (text == "nvidia_unified") g.shared = SharedMemory::nvidia_unified;
  else
    r.fail_message("unified_memory", message("catalog.unified_kind", "needs a kind: macos, amd_apu or nvidia_unified"));
  FieldReader u(unified, r.path("unified_memory"));
  if (const auto share = u.number("default_share_gib")) {
    if (!(*share > 0 && *share <= gib))
      r.fail_message("unified_memory",
                     message("catalog.default_share", "default_share_gib must be above 0 and at most memory_gib"));
    else g.default_share_bytes = static_cast<std::uint64_t>(std::llround(*share * 1024.0 * 1024.0 * 1024.0));
  }
  if (const auto cpu = u.number("cpu_bandwidth_gb_s")) {
    if (!(*cpu > 0 && *cpu <= 100'000)) r.fail_message(
        "unified_memory", message("catalog.cpu_bandwidth", "cpu_bandwidth_gb_s must be above 0"));
    else g.cpu_bandwidth_gb_s = *cpu;
  }
  if (const auto per = u.number("gpus_per_machine")) {
    if (!(*per >= 1 && *per <= 64 && *per == std::floor(*per)))
      r.fail_message("unified_memory",
                     message("catalog.gpus_per_machine", "gpus_per_machine must be a whole number from 1 to 64"));
    else g.gpus_per_machine = static_cast<unsigned>(*per);
  }
  if (u.error()) r.fail_message("unified_memory", u.error()->message);
}

}  // namespace

Message no_source(std::string_view key) {
  return message("catalog.no_source", "missing a source for {key}", {arg::text("key", key)});
}

Result<Gpu> read_gpu(const json& item, const std::string& path) {
  if (!item.is_object()) return make_error(path, message("catalog.expected_object", "expected an object"));
  FieldReader r(item, path);
  Gpu g;
  g.id = r.string("id").value_or("");
  g.name = r.string("name").value_or("");
  g.vendor = r.string("vendor").value_or("");
  g.segment = r.string("segment").value_or("");
  g.architecture = r.string("architecture").value_or("");
  g.memory_type = r.string("memory_type").value_or("");
  g.notes = r.string("notes").value_or("");
  if (const json* aliases = r.array("aliases")) {
    for (const json& alias : *aliases) {
      if (!alias.is_string() || lookup_key(alias.get_ref<const std::string&>()).empty())
        r.fail_message("aliases", message("catalog.aliases", "must be a list of names"));
      else g.aliases.push_back(alias.get<std::string>());
    }
  }
  const double gib = r.number("memory_gib").value_or(0);
  if (!(gib > 0 && gib <= 1'000'000))
    r.fail_message("memory_gib", message("catalog.memory_gib", "must be a number between 0 and 1000000"));
  g.memory_bytes = static_cast<std::uint64_t>(std::llround(gib * 1024.0 * 1024.0 * 1024.0));
  if (const auto visible = r.number("driver_visible_gib")) {
    if (!(*visible > 0 && *visible <= gib)) r.fail_message(
        "driver_visible_gib", message("catalog.driver_visible", "must be above 0 and at most memory_gib"));
    else g.driver_visible_bytes = static_cast<std::uint64_t>(std::llround(*visible * 1024.0 * 1024.0 * 1024.0));
  }
  struct NumberField {
    std::string_view key;
    std::optional<double> Gpu::*member;
  };
  static constexpr NumberField kNumbers[] = {
      {"bandwidth_gb_s", &Gpu::bandwidth_gb_s}, {"tflops_fp16", &Gpu::tflops_fp16},
      {"tflops_bf16", &Gpu::tflops_bf16},       {"tflops_fp8", &Gpu::tflops_fp8},
      {"tflops_fp4", &Gpu::tflops_fp4},         {"tops_int8", &Gpu::tops_int8},
      {"nvlink_gb_s", &Gpu::nvlink_gb_s},
      {"pcie_gen", &Gpu::pcie_gen},             {"tdp_w", &Gpu::tdp_w},
      {"launch_year", &Gpu::launch_year},
  };
  for (const auto& f : kNumbers) {
    g.*f.member = r.number(f.key);
    if (g.*f.member && *(g.*f.member) < 0) r.fail_message(f.key, message("catalog.negative", "must not be negative"));
  }
  g.cloud_usd_per_hour = read_price(r, "cloud_usd_per_hour");
  // The offer is what users read beside a cost; the source stays with the data.
  if (g.cloud_usd_per_hour && g.cloud_usd_per_hour->offer.empty())
    r.fail_message("cloud_usd_per_hour", message("catalog.offer", "needs an offer"));
  g.street_usd = read_price(r, "street_usd");
  if (const json* unified = r.object("unified_memory")) read_unified_memory(r, *unified, gib, g);
  if (const json* sources = r.object("sources")) {
    for (const auto& [key, value] : sources->items()) {
      if (!value.is_string())
        return make_error(r.path("sources") + "." + key, message("catalog.expected_string", "expected a string"));
      g.sources.emplace_back(key, value.get<std::string>());
    }
  }
  if (r.error()) return *r.error();
  if (g.id.empty() || g.name.empty())
    return make_error(path, message("catalog.id_name", "needs a non-empty id and name"));
  // A figure without a source is not allowed into the catalog.
  auto has_source = [&](std::string_view key) {
    for (const auto& [k, v] : g.sources)
      if (k == key && !v.empty()) return true;
    return false;
  };
  if (!has_source("memory_gib")) return make_error(path + ".sources", no_source("memory_gib"));
  if (g.driver_visible_bytes && !has_source("driver_visible_gib"))
    return make_error(path + ".sources", no_source("driver_visible_gib"));
  if (g.default_share_bytes && !has_source("default_share_gib"))
    return make_error(path + ".sources", no_source("default_share_gib"));
  if (g.cpu_bandwidth_gb_s && !has_source("cpu_bandwidth_gb_s"))
    return make_error(path + ".sources", no_source("cpu_bandwidth_gb_s"));
  for (const auto& f : kNumbers)
    if (g.*f.member && !has_source(f.key))
      return make_error(path + ".sources", no_source(f.key));
  return g;
}

}  // namespace

Result<std::vector<Gpu>> parse_gpu_catalog(std::string_view json_text) {
  auto parsed = detail::parse_json(json_text, "gpus.json");
  if (!parsed) return parsed.error();
  FieldReader root(parsed.value(), "");
  const json* list = root.array("gpus");
  if (!list) return root.error().value_or(make_error("gpus", message("catalog.no_gpus", "missing the \"gpus\" array")));
  std::vector<Gpu> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto gpu = read_gpu((*list)[i], "gpus[" + std::to_string(i) + "]");
    if (!gpu) return gpu.error();
    for (const auto& existing : out)
      if (lookup_key(existing.id) == lookup_key(gpu.value().id))
        return make_error("gpus[" + std::to_string(i) + "].id",
                          message("catalog.duplicate_id", "duplicate id {id}", {arg::text("id", gpu.value().id)}));
    out.push_back(std::move(gpu).value());
  }
  return out;
}

}  // namespace vramfit
