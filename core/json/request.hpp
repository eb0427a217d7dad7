#pragma once
// Request JSON → the questions' value types. The text is parsed once; "question" picks what is asked (or
// "questions" several at once), "mode" picks inference or training, and each question's own keys (a curve's axis,
// points, values) are read beside the inputs.
// Every input is read by its entry in the inputs table (json/inputs.hpp): a JSON value or the text a user typed
// ("8k", "7B", "on"), range-checked, with one wording per kind of input. Unknown keys are refused, naming the key and
// listing the allowed ones; a key another question or mode reads is refused saying where it applies.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "questions/evaluate.hpp"           // Request
#include "questions/evaluate_training.hpp"  // TrainingRequest
#include "questions/limits.hpp"             // CurveInputs
#include "util/result.hpp"
#include "vramfit/questions.hpp"        // Question
#include "vramfit/vramfit.hpp"          // ModelReads

namespace vramfit {


// The curve's own keys (CurveInputs, questions/limits.hpp): "axis" ("context" | "batch", default context),
// "points" (default 256), "from" and "to" (0: the curve's defaults), "spacing" ("linear", the default, or "log")
// or "values" (explicit x values).

// One entry of "questions": a name, or {"question": name, ...its own keys}: a curve's keys, or for the estimate and
// the GPU ranking "every_gpu": true (answered as the request without "gpu" answers them: the estimate judged on
// every GPU of the catalog, the ranking over the catalog or "gpus").
struct AskedQuestion {
  Question question = Question::estimate;
  CurveInputs curve;
  bool every_gpu = false;
};

// One request, decoded. `training` holds it when "mode" is a training mode and the question answers training
// (estimate, curve, remedies); `inference` otherwise. `curve` is read for the curve question only. `questions`
// holds the entries of "questions" (1–16; biggest_model is asked alone): several questions about one scenario,
// resolved and evaluated once; empty for a single "question".
struct ParsedRequest {
  Question question = Question::estimate;
  Request inference;
  std::optional<TrainingRequest> training;
  CurveInputs curve;
  std::vector<AskedQuestion> questions;
};

// `reads`: the reads a client kept, which "draft_read" and "also_read" may name by key (vramfit/vramfit.hpp).
Result<ParsedRequest> parse_request(std::string_view json_text, const ModelReads* reads = nullptr);

// An inference request alone, the page's state: the inference inputs and the GPU ranking's; a training "mode" is
// refused (this request answers inference only).
Result<Request> request_from_json(std::string_view json_text);

// A training request alone: the training inputs. "context" and "batch", the inputs the page shares between modes,
// are the sequence and the micro-batch (given with both names, the values must agree); "weights" is accepted and
// ignored: the page sends its whole state, and training stores weights by `precision` (NF4 for qlora), not by an
// inference weight format.
Result<TrainingRequest> training_request_from_json(std::string_view json_text);

}  // namespace vramfit
