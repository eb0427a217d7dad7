// vramfit CLI: flags in, the core's answer out (a table for people, --json for scripts). It is a client of the
// public face like the page: a request goes to answer() as JSON, and the tables are made from the answer's JSON.
#include <nlohmann/json.hpp>

#include <cstdio>      // std::printf, std::fprintf, std::fputs
#include <iostream>    // std::cin, std::cout
#include <string>  // std::string
#include <vector>  // std::vector

#include "cli_args.hpp"
#include "mcp.hpp"
#include "model_file.hpp"
#include "model_lookup.hpp"
#include "tables.hpp"
#include "vramfit/builtin_data.hpp"
#include "vramfit/vramfit.hpp"

namespace {

using namespace vramfit;
using nlohmann::json;

int fail(const cli::Error& e) {
  // The core's messages serve the page too; the hint at the flag that lists the catalog is the CLI's own.
  const bool unknown_gpu = e.message.rfind("unknown GPU", 0) == 0;
  std::fprintf(stderr, "vramfit: %s: %s%s\n", e.field.c_str(), e.message.c_str(),
               unknown_gpu ? "; list them with --list-gpus" : "");
  return 2;
}

// An answer's {"ok": false, "error": {"field", "message"}}.
cli::Error error_of(const json& answer) {
  const json& e = answer.at("error");
  return {e.at("field").get<std::string>(), cli::message_text(e.at("message"))};
}

// The table for the question asked ("" asks the estimate).
std::string table_of(const std::string& question, const json& answer, const json& catalog) {
  return cli::question_table(parse_question(question).value_or(Question::estimate), answer, catalog);
}

// --check: the verdict's line, and whether the model runs on the GPU as asked (fits, or tight: less than the headroom
// free but in memory) for a script's exit status. Part of it in system RAM, an engine that would not start, or no
// GPU that holds it, fail the check.
int print_check(const json& answer) {
  if (!answer.contains("verdict") || !answer.at("verdict").is_object())
    return fail({"--check", "checks an estimate's verdict (inference or training); ask no other question with it"});
  const json& verdict = answer.at("verdict");
  const std::string kind = verdict.at("kind").get<std::string>();
  const std::string message = cli::verdict_text(verdict);
  // Unknown: the verdict flips with an input the answer does not know, so a script can neither pass nor fail it.
  if (verdict.value("certainty", std::string()) == "unknown") {
    const std::string sentence = cli::message_text(verdict.at("message")) + cli::message_text(verdict.value("wired", json()));
    std::printf("unknown: %s\n", sentence.c_str());
    for (const json& reason : verdict.value("certainty_reasons", json::array()))
      std::printf("  why not certain: %s\n", cli::message_text(reason).c_str());
    return 3;
  }
  const bool runs = kind == "fits" || kind == "tight";
  std::printf("%s: %s\n", runs ? "pass" : "fail", message.c_str());
  return runs ? 0 : 1;
}

// `quant_config_beside`: the hf_quant_config.json the CLI found beside the config.json and read with it, said first.
int print_answer(const std::string& text, const cli::Options& options, const json& catalog,
                 const std::string& quant_config_beside = {}) {
  const json answer = json::parse(text, nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) return fail({"answer", "the core's answer is not JSON"});
  if (!answer.value("ok", false)) return fail(cli::with_flag_name(error_of(answer), options));
  if (options.check) return print_check(answer);
  if (options.command) {
    if (!answer.contains("command"))
      return fail({"--command", "prints the command of an inference estimate; ask no other question with it"});
    const json& command = answer.at("command");
    if (command.at("text").get<std::string>().empty()) return fail({"--command", cli::message_text(command.at("note"))});
    std::printf("%s\n", command.at("text").get<std::string>().c_str());
  } else if (options.json) {
    std::printf("%s\n", text.c_str());
  } else {
    // A looked-up model says first what was read, and from where.
    const auto lookup = answer.find("lookup");
    if (lookup != answer.end() && lookup->is_object()) {
      const char* offline = lookup->value("fell_back", false)
                                ? " (it could not be reached: answered from what an earlier lookup read)"
                            : lookup->value("offline", false) ? " (answered offline from what an earlier lookup read)"
                                                              : "";
      std::printf("%s%s\n", cli::message_text(lookup->value("summary", json())).c_str(), offline);
      for (const auto& note : lookup->value("notes", json::array()))
        std::printf("  note: %s\n", cli::message_text(note).c_str());
    }
    if (!quant_config_beside.empty())
      std::printf("Read with %s, found beside the config.json.\n", quant_config_beside.c_str());
    // The checkpoint's files the answer asks for (an NVIDIA checkpoint's hf_quant_config.json), and how to give them
    // with a config.json read from a path (a looked-up model's note says what its repository lacks).
    for (const auto& file : answer.value("missing_files", json::array()))
      if (file.is_string() && lookup == answer.end())
        std::printf("Give its %s too (--quant-config FILE, or keep it beside the config.json): until then the weights "
                    "are counted as bf16.\n",
                    file.get<std::string>().c_str());
    std::fputs(table_of(options.question, answer, catalog).c_str(), stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // `vramfit mcp`: a Model Context Protocol server on stdin and stdout, until stdin ends.
  if (argc == 2 && std::string(argv[1]) == "mcp") {
    const auto opened = open_catalog(builtin::models_json(), builtin::gpus_json(), builtin::model_configs());
    if (!opened.catalog) return fail(error_of(json::parse(opened.error_json)));
    cli::serve_mcp(*opened.catalog, std::cin, std::cout, cli::lookup_settings_from_environment());
    return 0;
  }
  const auto parsed = cli::parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (parsed.error) return fail(*parsed.error);
  cli::Options options = parsed.options;

  if (options.action == cli::Action::help) {
    std::fputs(cli::help_text().c_str(), stdout);
    return 0;
  }
  if (options.action == cli::Action::version) {
    std::printf("vramfit %s\n", VRAMFIT_VERSION);
    return 0;
  }
  const auto opened = open_catalog(builtin::models_json(), builtin::gpus_json(), builtin::model_configs());
  if (!opened.catalog) return fail(error_of(json::parse(opened.error_json)));  // a broken build; unit tests catch it
  const Catalog& catalog = *opened.catalog;
  const std::string catalog_text = catalog_to_json(catalog);
  const json catalog_json = json::parse(catalog_text);

  if (options.action == cli::Action::list_models || options.action == cli::Action::list_gpus) {
    if (options.json) std::printf("%s\n", catalog_text.c_str());
    else if (options.action == cli::Action::list_models) std::fputs(cli::models_list(catalog_json).c_str(), stdout);
    else std::fputs(cli::gpus_list(catalog_json).c_str(), stdout);
    return 0;
  }
  if (options.model_path.empty() && !options.quant_config_path.empty())
    return fail(cli::Error{"--quant-config", "goes with --model PATH (a config.json or its folder)"});
  const auto draft_file = cli::with_draft_file(options.request);
  if (draft_file.error) return fail(*draft_file.error);
  options.request = draft_file.json;
  cli::LookupSettings lookup = cli::lookup_settings_from_environment();
  lookup.revision = options.revision;
  lookup.fetch.offline = lookup.fetch.offline || options.offline;
  if (auto error = cli::with_named_models(catalog, options.request, lookup)) return fail(*error);
  const auto by_name = [&](const std::string& name) {
    json request = json::parse(options.request);
    request.erase("model");
    const auto named = cli::answer_about_name(catalog, name, request.dump(), lookup);
    if (named.error) return fail(*named.error);
    return print_answer(named.json, options, catalog_json);
  };
  if (options.model_path.empty()) {
    const json request = json::parse(options.request);
    if (const auto model = request.find("model"); model != request.end() && model->is_string())
      return by_name(model->get<std::string>());
    return print_answer(answer(catalog, options.request), options, catalog_json);
  }
  const auto about_file =
      cli::answer_about_file(catalog, options.model_path, options.request, options.quant_config_path);
  if (about_file.error) return fail(*about_file.error);
  return print_answer(about_file.json, options, catalog_json, about_file.quant_config_beside);
}
