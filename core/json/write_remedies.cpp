#include "json/report_writer.hpp"

#include <optional>  // std::optional
#include <string>    // std::string

#include "json/report_json.hpp"  // write_explanation
#include "util/units.hpp"        // signed_difference

namespace vramfit {

using detail::JsonWriter;

std::string remedies_report_to_json(const RemediesReport& report) {
  JsonWriter w;
  auto fit = [&](const char* key, const std::optional<Fit>& f) {
    if (f) w.field(key, fit_name(*f));
    else w.field(key, nullptr);
  };
  auto verdict = [&](const char* key, const std::optional<VerdictKind>& v) {
    if (v) w.field(key, verdict_kind_name(*v));
    else w.field(key, nullptr);
  };
  // A sentence as {id, args, text}, or null where there is none.
  auto sentence = [&](const char* key, const Message& m) {
    if (m.empty()) w.field(key, nullptr);
    else w.message_id(key, m);
  };
  w.begin_object();
  w.field("bytes", report.bytes);
  fit("fit", report.fit);
  if (report.gpu) w.field("free_bytes", signed_difference(report.gpu->usable_bytes(), report.bytes));
  else w.field("free_bytes", nullptr);
  if (report.gpu) w.field("gpu", report.gpu->id);
  else w.field("gpu", nullptr);
  // Its name: a card described by its figures is in no catalog a client holds.
  if (report.gpu) w.field("gpu_name", report.gpu->name);
  else w.field("gpu_name", nullptr);
  w.field("host_ram_bytes", report.host_ram_bytes);
  w.field("mode", report.mode);
  w.message_ids("notes", report.notes);
  w.field("ok", true);
  sentence("summary", report.summary);
  verdict("verdict", report.verdict);
  w.begin_array("remedies");
  for (const Remedy& r : report.remedies) {
    w.begin_object();
    w.field("applicable", r.applicable);
    w.field("bytes", r.bytes);
    w.message_id("cost", r.cost);
    detail::write_explanation(w, "explanation", r.explanation);
    fit("fit", r.fit);
    sentence("headline", r.headline);
    verdict("verdict", r.verdict);
    w.field("parts", r.parts);
    if (r.fit) w.field("free_bytes", r.free_bytes);
    else w.field("free_bytes", nullptr);
    if (r.host_ram_bytes) w.field("host_ram_bytes", r.host_ram_bytes);
    else w.field("host_ram_bytes", nullptr);
    w.field("id", r.id);
    w.begin_object("inputs");
    for (const RemedyInput& in : r.inputs) {
      if (in.number) w.field(in.key, *in.number);
      else w.field(in.key, in.text);
    }
    w.end_object();
    w.field("saved_bytes", r.saved_bytes);
    w.message_id("source", r.source);
    if (r.usable_bytes) w.field("usable_bytes", r.usable_bytes);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace vramfit
