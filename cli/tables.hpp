#pragma once
// The answers as people read them. Each table is made from the answer's JSON (the keys are listed in
// wasm/README.md), the same text --json prints, so the CLI is a client of the public face like the page.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>  // std::uint64_t
#include <string>   // std::string

#include "vramfit/questions.hpp"  // Question

namespace vramfit::cli {

// "    14.00 GB     13.04 GiB": a byte count in both units, two decimals, each right-aligned in 9 characters.
std::string gb_and_gib(std::uint64_t bytes);

// The "estimate" answer for inference: the breakdown, its range, the engine's figures, a verdict per GPU, and speed
// and cost on the request's GPU.
std::string estimate_table(const nlohmann::json& answer);
// `catalog` is catalog_to_json's: the answers name GPUs by id, the tables by name.
std::string training_table(const nlohmann::json& answer, const nlohmann::json& catalog);
std::string gpu_ranking_table(const nlohmann::json& answer);
std::string biggest_model_table(const nlohmann::json& answer);
std::string remedies_table(const nlohmann::json& answer, const nlohmann::json& catalog);
std::string limits_table(const nlohmann::json& answer);
// The table for a question's answer, one case per question; the estimate's (and the curve's, which the CLI asks for
// no table of its own) says by its "mode" that it is training's.
std::string question_table(Question question, const nlohmann::json& answer, const nlohmann::json& catalog);
std::string models_list(const nlohmann::json& catalog);
std::string gpus_list(const nlohmann::json& catalog);

// A text of an answer, {id, args, text}: its English ("" for null).
std::string message_text(const nlohmann::json& message);
// The verdict's whole sentence: the lead where it is not certain, the sentence, a Mac's clause.
std::string verdict_text(const nlohmann::json& verdict);

}  // namespace vramfit::cli
