#include "hardware/cost.hpp"

#include <cmath>   // std::isfinite
#include <string>  // std::string

namespace vramfit {

namespace {
bool positive_finite(double x) noexcept { return std::isfinite(x) && x > 0; }
}  // namespace

std::optional<double> usd_per_hour(const Gpu& gpu, std::uint64_t count) noexcept {
  if (!gpu.cloud_usd_per_hour || !positive_finite(gpu.cloud_usd_per_hour->usd) || count == 0) return std::nullopt;
  return gpu.cloud_usd_per_hour->usd * static_cast<double>(count);
}

std::optional<double> purchase_usd(const Gpu& gpu, std::uint64_t count) noexcept {
  if (!gpu.street_usd || !positive_finite(gpu.street_usd->usd) || count == 0) return std::nullopt;
  return gpu.street_usd->usd * static_cast<double>(count);
}

Result<double> break_even_hours(double purchase_usd, double usd_per_hour) {
  if (!positive_finite(purchase_usd))
    return make_error("purchase_usd", message("cost.dollars_positive", "must be a positive number of dollars"));
  if (!positive_finite(usd_per_hour))
    return make_error("usd_per_hour", message("cost.dollars_positive", "must be a positive number of dollars"));
  return purchase_usd / usd_per_hour;
}

Result<double> usd_per_million_tokens(double usd_per_hour, double tokens_per_second) {
  if (!positive_finite(usd_per_hour)) return make_error("usd_per_hour", message("cost.dollars_positive", "must be a positive number of dollars"));
  if (!positive_finite(tokens_per_second))
    return make_error("tokens_per_second", message("cost.tokens_per_second", "must be a positive number of tokens per second"));
  return usd_per_hour / (tokens_per_second * 3600.0) * 1e6;
}

Result<double> training_run_usd(double gpu_hours, double usd_per_gpu_hour) {
  if (!positive_finite(gpu_hours)) return make_error("gpu_hours", message("cost.hours_positive", "must be a positive number of hours"));
  if (!positive_finite(usd_per_gpu_hour))
    return make_error("usd_per_gpu_hour", message("cost.dollars_positive", "must be a positive number of dollars"));
  return gpu_hours * usd_per_gpu_hour;
}

Result<EnergyCost> energy_cost(const Gpu& gpu, std::uint64_t count, double hours, double utilisation,
                               double usd_per_kwh) {
  if (!gpu.tdp_w || !positive_finite(*gpu.tdp_w))
    return make_error("gpu", message("cost.no_tdp", "{gpu} has no board power (TDP) in the catalog", {arg::text("gpu", gpu.name)}));
  if (count == 0 || count > 1'000'000) return make_error("count", message("cost.count_range", "must be between 1 and 1000000"));
  if (!positive_finite(hours)) return make_error("hours", message("cost.hours_positive", "must be a positive number of hours"));
  if (!(utilisation > 0 && utilisation <= 1)) return make_error("utilisation", message("cost.utilisation", "must be above 0 and at most 1"));
  if (!(std::isfinite(usd_per_kwh) && usd_per_kwh >= 0))
    return make_error("usd_per_kwh", message("cost.usd_per_kwh", "must be a non-negative price per kWh"));
  EnergyCost e;
  e.kwh = *gpu.tdp_w / 1000.0 * utilisation * hours * static_cast<double>(count);
  e.usd = e.kwh * usd_per_kwh;
  return e;
}

}  // namespace vramfit
