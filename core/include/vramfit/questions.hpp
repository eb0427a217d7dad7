#pragma once
// The questions a request asks by its "question" key, once: their names in one table that the request parser,
// the answer's dispatch (json/answer.cpp), the CLI's flags and tables and its MCP tools all read, so that a
// question has one name everywhere and a new one is a row here and a case in each `switch` the compiler names.
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace vramfit {

// What a request asks; estimate when "question" is absent.
enum class Question { estimate, limits, curve, gpu_ranking, biggest_model, remedies };

struct QuestionInfo {
  Question question;
  std::string_view name;  // the request's "question"
  bool trains;            // answers a training scenario too ("mode" train, lora, qlora or grpo)
};

// One row per question, in the order of Question: the request parser, the answers (json/answer.cpp holds its
// answerers to these rows at compile time) and the clients read whether a question trains here only.
inline constexpr QuestionInfo kQuestions[] = {
    {Question::estimate, "estimate", true},         {Question::limits, "limits", false},
    {Question::curve, "curve", true},               {Question::gpu_ranking, "gpu_ranking", false},
    {Question::biggest_model, "biggest_model", false}, {Question::remedies, "remedies", true}};

std::span<const QuestionInfo> questions() noexcept;
std::string_view question_name(Question question) noexcept;
std::optional<Question> parse_question(std::string_view name) noexcept;
// "estimate, limits, curve, gpu_ranking, biggest_model, remedies", for the messages that list them.
std::string question_names();

}  // namespace vramfit
