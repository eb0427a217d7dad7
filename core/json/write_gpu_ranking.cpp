#include "json/report_writer.hpp"

#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string

#include "json/report_json.hpp"

namespace vramfit {

using detail::JsonWriter;
using detail::write_range;

namespace {

void write_pick(JsonWriter& w, const char* key, const GpuRanking& rec, const std::optional<std::size_t>& index) {
  if (!index) return w.field(key, nullptr);
  const RankedConfig& c = rec.configs[*index];
  w.begin_object(key);
  w.field("count", c.count);
  w.field("gpu", c.gpu->id);
  w.field("index", *index);
  w.field("name", c.gpu->name);
  w.end_object();
}

}  // namespace

std::string gpu_ranking_report_to_json(const GpuRankingReport& report) {
  const InferenceEstimate& e = report.estimate;
  const RankOptions& o = report.options;
  const GpuRanking& rec = report.ranking;
  JsonWriter w;
  w.begin_object();
  write_pick(w, "cheapest_per_hour", rec, rec.cheapest_per_hour);
  write_pick(w, "cheapest_per_million_tokens", rec, rec.cheapest_per_million_tokens);
  write_pick(w, "cheapest_to_buy", rec, rec.cheapest_to_buy);
  w.field("break_even_hours", rec.break_even_hours);
  write_pick(w, "fastest", rec, rec.fastest);
  w.begin_object("inputs");
  w.field("batch", e.batch);
  w.field("budget_per_hour", o.max_usd_per_hour);
  w.field("compute_path", compute_path_name(o.speed.compute));
  w.field("context", e.context_tokens);
  w.field("counts", o.counts);
  w.field("engine", engine_name(e.engine));
  w.field("headroom", o.headroom);
  w.field("weights", e.weights_format);
  w.end_object();
  w.begin_object("memory");
  w.field("per_gpu_bytes", report.need.per_gpu_bytes);
  w.field("shardable_bytes", report.need.shardable_bytes);
  w.field("total_bytes", e.total);
  w.end_object();
  w.begin_object("model");
  w.field("id", report.model_id);
  w.field("name", report.model_name);
  w.end_object();
  w.message_ids("notes", report.notes);
  w.field("ok", true);
  w.begin_array("ranking");
  for (const RankedConfig& c : rec.configs) {
    w.begin_object();
    w.field("count", c.count);
    w.field("fit", fit_name(c.fit));
    w.field("fits", c.fits);
    w.field("free_bytes", c.free_bytes);
    w.field("gpu", c.gpu->id);
    w.field("name", c.gpu->name);
    detail::write_message_or_null(w, "note", c.note);
    detail::write_text_or_null(w, "purchase_date", c.purchase_date);
    w.field("purchase_usd", c.purchase_usd);
    write_range(w, "tokens_per_second", c.tokens_per_second);
    w.field("usd_per_hour", c.usd_per_hour);
    write_range(w, "usd_per_million_tokens", c.usd_per_million_tokens);
    w.field("within_budget", c.within_budget);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

std::string biggest_report_to_json(const BiggestReport& report) {
  JsonWriter w;
  auto candidate = [&](const char* key, std::size_t i) {
    const ModelCandidate& c = report.candidates[i];
    w.begin_object(key);
    w.field("bits_per_weight", c.bits_per_weight);
    w.field("free_bytes", report.free_bytes[i]);
    w.field("model", c.model);
    w.field("params", c.params);
    w.field("total_bytes", c.total_bytes);
    w.field("weights", c.format);
    w.end_object();
  };
  w.begin_object();
  w.field("batch", report.batch);
  if (report.biggest) candidate("biggest", *report.biggest);
  else w.field("biggest", nullptr);
  w.begin_array("by_format");
  for (std::size_t i : report.by_format) candidate(nullptr, i);
  w.end_array();
  w.field("candidates_checked", report.candidates.size());
  w.field("context", report.context);
  w.field("engine", report.engine);
  w.field("formats", report.formats);
  w.begin_object("gpu");
  w.field("id", report.gpu->id);
  w.field("name", report.gpu->name);
  w.field("usable_bytes", report.gpu->usable_bytes());
  w.end_object();
  w.field("headroom", report.headroom);
  w.message_ids("notes", report.notes);
  w.field("ok", true);
  w.end_object();
  return w.take();
}

}  // namespace vramfit
