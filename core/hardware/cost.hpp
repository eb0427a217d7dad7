#pragma once
// What running costs: rented GPU-hours from the catalog's dated price, dollars per million output
// tokens at a throughput, a training run's GPU-hours, and the electricity of cards you own.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional

#include "hardware/gpu.hpp"
#include "util/result.hpp"

namespace vramfit {

// count × the catalog's on-demand $/GPU-hour; none when the catalog has no price for this GPU
// ("no price", never 0).
std::optional<double> usd_per_hour(const Gpu& gpu, std::uint64_t count) noexcept;

// count × the catalog's street price of one card; none when the catalog has none ("unknown", never 0).
std::optional<double> purchase_usd(const Gpu& gpu, std::uint64_t count) noexcept;

// Hours of renting at `usd_per_hour` that cost as much as buying for `purchase_usd`: purchase ÷ $/h. Errors name the
// field when either is not positive.
Result<double> break_even_hours(double purchase_usd, double usd_per_hour);

// $/h ÷ (tokens/s · 3600) · 1e6. Errors name the field when either input is not positive.
Result<double> usd_per_million_tokens(double usd_per_hour, double tokens_per_second);

// GPU-hours × $/GPU-hour (training time comes from training_time.hpp).
Result<double> training_run_usd(double gpu_hours, double usd_per_gpu_hour);

struct EnergyCost {
  double kwh = 0;
  double usd = 0;
};

// TDP × utilisation × hours × count, at `usd_per_kwh`. The board power is the card alone: the host
// (CPU, fans, PSU losses) is not counted. An error names the GPU when the catalog has no TDP.
Result<EnergyCost> energy_cost(const Gpu& gpu, std::uint64_t count, double hours, double utilisation,
                               double usd_per_kwh);

}  // namespace vramfit
