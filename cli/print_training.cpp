#include "print_training.hpp"

#include <cstdio>   // std::snprintf
#include <utility>  // std::pair

#include "util/units.hpp"  // kGiB

namespace vramfit::cli {

namespace {

std::string fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::string training_table(const TrainingReport& r) {
  const auto& e = r.estimate;
  const auto& o = r.options;
  const auto& l = e.layout;
  std::string out;
  out += r.model.name + ": " + std::string(training_mode_name(e.mode)) + ", " +
         fixed("%.3g", static_cast<double>(e.params.total) / 1e9) + " B parameters (" +
         std::to_string(e.trainable_params) + " trainable), " + std::string(precision_name(e.precision)) + ", " +
         std::string(optimizer_info(e.optimizer).name) + "\n";
  out += "  sequence " + std::to_string(o.sequence) + " × micro-batch " + std::to_string(l.micro_batch) +
         ", accumulation " + std::to_string(l.gradient_accumulation) + ", global batch " +
         std::to_string(l.global_batch) + "; " + std::to_string(l.gpus) + " GPU(s): tp " +
         std::to_string(l.tensor_parallel) + " pp " + std::to_string(l.pipeline_parallel) + " dp " +
         std::to_string(l.data_parallel) + ", ZeRO " + std::string(zero_name(o.parallel.zero)) + ", offload " +
         std::string(offload_name(o.parallel.offload)) + "\n";
  out += "  per GPU (" + e.breakdown.role + "):\n";
  const auto& b = e.breakdown;
  const std::pair<const char*, std::uint64_t> lines[] = {
      {"weights", b.weights},         {"gradients", b.gradients}, {"optimizer", b.optimizer},
      {"activations", b.activations}, {"temporary", b.temporary}, {"overhead", b.overhead},
      {"total", b.total}};
  for (const auto& [label, bytes] : lines) {
    std::string left = "    " + std::string(label);
    left.resize(17, ' ');
    out += left + gb_and_gib(bytes) + "\n";
  }
  if (e.ranks.size() > 1)
    for (const auto& rank : e.ranks) out += "    rank: " + rank.role + std::string(" total ") + gb_and_gib(rank.total) + "\n";
  if (e.host_ram_bytes) out += "  host RAM     " + gb_and_gib(e.host_ram_bytes) + "\n";
  if (e.nvme_bytes) out += "  NVMe         " + gb_and_gib(e.nvme_bytes) + "\n";
  if (e.slowdown.max > 1)
    out += "  offload slowdown ×" + fixed("%.2g", e.slowdown.min) + "–" + fixed("%.2g", e.slowdown.max) + "\n";
  if (r.time) {
    const auto& t = *r.time;
    out += "  time on " + std::to_string(l.gpus) + " × " + t.gpu->name + " (" + fixed("%.4g", t.peak_tflops) +
           " TFLOPS " + t.peak_dtype + ", MFU " + fixed("%.2g", t.mfu) + "): " + fixed("%.4g", t.fastest.seconds / 3600) +
           " h";
    if (t.seconds_max > t.fastest.seconds) out += "–" + fixed("%.4g", t.seconds_max / 3600) + " h";
    out += ", " + fixed("%.4g", t.fastest.gpu_hours) + " GPU-hours";
    if (t.fastest.cost_usd) {
      out += ", " + fixed("%.2f", *t.fastest.cost_usd);
      if (t.cost_usd_max && *t.cost_usd_max > *t.fastest.cost_usd) out += "–" + fixed("%.2f", *t.cost_usd_max);
      out += " USD";
    }
    out += "\n";
  }
  for (const auto& note : e.notes) out += "  note: " + note + "\n";
  out += "\n";
  for (const auto& f : r.gpus) {
    std::string name = f.gpu->name;
    if (name.size() < 34) name.resize(34, ' ');
    std::string verdict(fit_name(f.fit));
    if (verdict.size() < 14) verdict.resize(14, ' ');
    out += "  " + name + " " + verdict + fixed(" %+8.1f GiB free", static_cast<double>(f.free_bytes) / static_cast<double>(kGiB)) + "\n";
  }
  return out;
}

}  // namespace vramfit::cli
