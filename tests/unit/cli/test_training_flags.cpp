// The training flags: names other scripts call, their values, and what an error says.
#include <doctest/doctest.h>

#include "../test_support.hpp"
#include "json/request.hpp"  // training_request_from_json
#include "training_flags.hpp"

using namespace vramfit;
using namespace vramfit::cli;

namespace {

TrainingRequest apply_all(std::initializer_list<std::pair<const char*, const char*>> flags) {
  TrainingRequest r;
  for (const auto& [flag, value] : flags) {
    auto ok = apply_training_flag(r, flag, value);
    REQUIRE_MESSAGE(ok.ok(), (ok.ok() ? "" : ok.error().field + ": " + ok.error().message));
    CHECK(ok.value());
  }
  return r;
}

}  // namespace

TEST_CASE("every training flag is in the table, with a value name and a help line") {
  for (const char* flag : {"--mode", "--optimizer", "--grad-dtype", "--zero", "--gpus", "--tp", "--pp", "--sp",
                           "--micro-batch", "--grad-accum", "--checkpointing", "--flash-attention", "--offload",
                           "--precision", "--lora-rank", "--lora-targets", "--seq", "--dropout", "--tokens", "--mfu"}) {
    CAPTURE(flag);
    CHECK(is_training_flag(flag));
    CHECK(training_flag_takes_value(flag) == (std::string_view(flag) != "--sp"));
    CHECK(training_help_text().find(std::string("  ") + flag) != std::string::npos);
  }
  CHECK(training_flags().size() == 20);
  for (const auto& f : training_flags()) CHECK_FALSE(f.help.empty());
  CHECK_FALSE(is_training_flag("--model"));
  CHECK_FALSE(is_training_flag("--context"));
  TrainingRequest r;
  auto not_ours = apply_training_flag(r, "--weights", "bf16");
  REQUIRE(not_ours.ok());
  CHECK_FALSE(not_ours.value());
}

TEST_CASE("training flags fill the request") {
  const auto r = apply_all({{"--mode", "qlora"},          {"--precision", "mixed-fp16"}, {"--grad-dtype", "half"},
                            {"--optimizer", "paged-adamw"}, {"--lora-rank", "64"},        {"--lora-targets", "q,v"},
                            {"--seq", "4k"},              {"--micro-batch", "4"},        {"--grad-accum", "8"},
                            {"--checkpointing", "full"},  {"--flash-attention", "off"},  {"--dropout", "on"},
                            {"--zero", "FULL_SHARD"},     {"--gpus", "16"},              {"--tp", "2"},
                            {"--pp", "2"},                {"--sp", ""},                  {"--offload", "params"},
                            {"--tokens", "300B"},         {"--mfu", "35%"}});
  CHECK(r.mode == "qlora");
  CHECK(r.precision == "mixed-fp16");
  CHECK(r.grad_dtype == "half");
  CHECK(r.optimizer == "paged-adamw");
  CHECK(r.lora_rank == 64u);
  CHECK(r.lora_targets == "q,v");
  CHECK(r.sequence == 4096u);  // 4k = 4096, as --context reads it
  CHECK(r.micro_batch == 4);
  CHECK(r.grad_accum == 8);
  CHECK(r.checkpointing == "full");
  CHECK_FALSE(r.flash_attention);
  CHECK(r.dropout);
  CHECK(r.zero == "FULL_SHARD");
  CHECK(r.gpus == 16);
  CHECK(r.tp == 2);
  CHECK(r.pp == 2);
  CHECK(r.sp);
  CHECK(r.offload == "params");
  CHECK(r.tokens == doctest::Approx(3e11));
  CHECK(r.mfu == doctest::Approx(0.35));
  CHECK(apply_all({{"--mfu", "0.5"}}).mfu == doctest::Approx(0.5));
  CHECK(apply_all({{"--mode", "full"}}).mode == "full");  // the core reads it as train
}

TEST_CASE("a switch flag and a request key take the same spellings") {
  const std::pair<const char*, bool> spellings[] = {{"on", true},   {"true", true},   {"1", true}, {"ON", true},
                                                    {"off", false}, {"false", false}, {"0", false}, {"Off", false}};
  for (const auto& [text, on] : spellings) {
    CAPTURE(text);
    CHECK(apply_all({{"--dropout", text}}).dropout == on);
    CHECK(apply_all({{"--flash-attention", text}}).flash_attention == on);
    const auto r = training_request_from_json(std::string(R"({"mode":"train","dropout":")") + text + "\"}");
    REQUIRE(r.ok());
    CHECK(r.value().dropout == on);
  }
}

TEST_CASE("--mode inference is representable and is not a training request") {
  const auto r = apply_all({{"--mode", "inference"}});
  CHECK(r.mode == "inference");
  CHECK_FALSE(is_training_mode(r.mode));
  CHECK_FALSE(is_training_mode(TrainingRequest{}.mode));  // no --mode at all: inference
  CHECK(is_training_mode(apply_all({{"--mode", "lora"}}).mode));
}

TEST_CASE("bad training flag values name the flag and what is allowed") {
  struct Case {
    const char* flag;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"--zero", "5", "invalid value \"5\"; allowed: 0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD"},
      {"--mode", "pretrain", "invalid value \"pretrain\"; allowed: inference, train, lora, qlora"},
      {"--precision", "fp8", "allowed: fp32, mixed-fp16, mixed-bf16, bf16"},
      {"--grad-dtype", "fp64", "allowed: fp32, half"},
      {"--optimizer", "adam9", "allowed: adamw, adamw-8bit, paged-adamw"},
      {"--checkpointing", "some", "allowed: none, selective, full"},
      {"--offload", "disk", "allowed: none, optimizer, params, nvme"},
      {"--lora-targets", "qq", "allowed: q, k, v, o, gate, up, down, router"},
      {"--lora-rank", "0", "a whole number from 1 to 65536"},
      {"--lora-rank", "100000", "a whole number from 1 to 65536"},
      {"--seq", "0", "a whole number of tokens"},
      {"--micro-batch", "0", "a whole number of at least 1"},
      {"--grad-accum", "2.5", "a whole number of at least 1"},
      {"--gpus", "8k", "a whole number of at least 1"},
      {"--tp", "-2", "a whole number of at least 1"},
      {"--pp", "", "a whole number of at least 1"},
      {"--flash-attention", "maybe", "allowed: on, off, true, false, 1 or 0"},
      {"--dropout", "yes", "allowed: on, off, true, false, 1 or 0"},
      {"--tokens", "lots", "a positive token count"},
      {"--mfu", "1.5", "a fraction above 0 and at most 1"},
      {"--mfu", "0", "a fraction above 0 and at most 1"},
      {"--mfu", "40", "a fraction above 0 and at most 1"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.flag);
    CAPTURE(c.value);
    TrainingRequest r;
    auto result = apply_training_flag(r, c.flag, c.value);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().field == c.flag);
    CHECK_MESSAGE(result.error().message.find(c.message) != std::string::npos, result.error().message);
  }
}

TEST_CASE("shared flags carry over to training; inference-only flags are refused") {
  Request shared;
  shared.model = "llama-2-7b";
  shared.gpu = "rtx-4090";
  shared.headroom = 0.2;
  shared.context = 1024;
  shared.batch = 2;
  shared.weights = "int4";  // ignored: training stores weights by --precision
  auto t = training_request_from_shared(shared, apply_all({{"--mode", "qlora"}}));
  REQUIRE(t.ok());
  CHECK(t.value().model == "llama-2-7b");
  CHECK(t.value().gpu == "rtx-4090");
  CHECK(t.value().headroom == doctest::Approx(0.2));
  CHECK(t.value().sequence == 1024u);
  CHECK(t.value().micro_batch == 2);
  // --seq wins over --context.
  t = training_request_from_shared(shared, apply_all({{"--mode", "qlora"}, {"--seq", "512"}}));
  REQUIRE(t.ok());
  CHECK(t.value().sequence == 512u);
  // --batch and --micro-batch that disagree.
  t = training_request_from_shared(shared, apply_all({{"--mode", "qlora"}, {"--micro-batch", "3"}}));
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().field == "--batch");

  Request vllm;
  vllm.model = "llama-2-7b";
  vllm.engine = "vllm";
  t = training_request_from_shared(vllm, apply_all({{"--mode", "train"}}));
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().field == "--engine");
  CHECK(t.error().message.find("applies to inference only") != std::string::npos);
  Request kv;
  kv.kv_dtype = "fp8";
  CHECK(training_request_from_shared(kv, TrainingRequest{}).error().field == "--kv-dtype");
}

TEST_CASE("core errors map back to the flag the user typed") {
  CHECK(training_flag_for_field("micro_batch") == "--micro-batch");
  CHECK(training_flag_for_field("grad_accum") == "--grad-accum");
  CHECK(training_flag_for_field("lora_rank") == "--lora-rank");
  CHECK(training_flag_for_field("lora_targets") == "--lora-targets");
  CHECK(training_flag_for_field("grad_dtype") == "--grad-dtype");
  CHECK(training_flag_for_field("sequence") == "--seq");
  CHECK(training_flag_for_field("tp") == "--tp");
  CHECK(training_flag_for_field("zero") == "--zero");
  CHECK(training_flag_for_field("model") == "--model");
  CHECK(training_flag_for_field("gpu") == "--gpu");
  CHECK(training_flag_for_field("config.hidden_size") == "config.hidden_size");
  // End to end: the core's "micro_batch" error comes back as --micro-batch.
  Request shared;
  shared.model = "llama-2-7b";
  auto t = training_request_from_shared(shared, apply_all({{"--mode", "train"}, {"--tp", "3"}, {"--gpus", "3"}}));
  REQUIRE(t.ok());
  auto report = evaluate_training(test::catalog(), t.value());
  REQUIRE_FALSE(report.ok());
  CHECK(training_flag_for_field(report.error().field) == "--tp");
}

TEST_CASE("the training table prints the per-GPU lines, host RAM, time and the verdict") {
  Request shared;
  shared.params = 70'000'000'000;
  shared.gpu = "h100-sxm";
  auto t = training_request_from_shared(
      shared, apply_all({{"--mode", "train"}, {"--zero", "3"}, {"--gpus", "8"}, {"--offload", "optimizer"},
                         {"--grad-dtype", "half"}, {"--tokens", "1e9"}}));
  REQUIRE(t.ok());
  auto report = evaluate_training(test::catalog(), t.value());
  REQUIRE(report.ok());
  const std::string table = training_table(report.value());
  CAPTURE(table);
  for (const char* line : {"gradients", "optimizer", "activations", "temporary", "total", "host RAM", "offload slowdown",
                           "GPU-hours", "USD", "NVIDIA H100", "fits"})
    CHECK(table.find(line) != std::string::npos);
  // Per GPU: 70e9 × 2 B / 8 = 17.5 GB of weights; host RAM 980 GB (test_evaluate_training.cpp).
  CHECK(table.find("weights          17.50 GB") != std::string::npos);
  CHECK(table.find("host RAM        980.00 GB") != std::string::npos);
}
