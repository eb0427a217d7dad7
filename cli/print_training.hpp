#pragma once
// The training report as people read it: per-GPU breakdown, ranks, host RAM / NVMe, time and the fit per GPU.
#include <string>  // std::string

#include "questions/evaluate_training.hpp"

namespace vramfit::cli {

std::string training_table(const TrainingReport& report);

}  // namespace vramfit::cli
