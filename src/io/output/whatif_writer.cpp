#include "io/output/whatif_writer.hpp"

#include <iterator>

#include <fmt/format.h>

#include "core/plain_text.hpp"

namespace distsim::io {

namespace {

std::string attribution_line(const std::vector<whatif::Attribution>& attributions) {
  std::string line;
  for (const auto& attribution : attributions) {
    line += fmt::format("{}{} {:.4f}", line.empty() ? "" : ", ", attribution.group, attribution.slowdown);
  }
  return line;
}

nlohmann::json attribution_json(const std::vector<whatif::Attribution>& attributions) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& attribution : attributions) {
    json.push_back({{"group", attribution.group}, {"slowdown", attribution.slowdown}});
  }
  return json;
}

}  // namespace

std::string whatif_text(const whatif::StragglerAnalysis& a, const std::string& path) {
  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out, "what-if replay of '{}': {} ranks (data-parallel {} x pipeline {}), {} step{}, {} operations\n",
                 path, a.dp_size * a.pp_size, a.dp_size, a.pp_size, a.steps.size(), a.steps.size() == 1 ? "" : "s",
                 digits_grouped(static_cast<std::int64_t>(a.operations)));
  fmt::format_to(out, "mean step time: measured {:.4f} s, replayed {:.4f} s, ideal {:.4f} s\n", a.measured_s,
                 a.replayed_s, a.ideal_s);
  fmt::format_to(out, "launch slowdown: {:.4f} (measured over replayed: the gaps no dependency explains)\n",
                 a.launch_slowdown);
  fmt::format_to(out,
                 "straggler slowdown: {:.4f} (replayed over ideal, each operation type at its mean computation or "
                 "median communication time)\n",
                 a.straggler_slowdown);
  text += "attribution (the ideal replay with one group's measured times, over the ideal):\n";
  fmt::format_to(out, "  by stage: {}\n", attribution_line(a.by_stage));
  fmt::format_to(out, "  by data-parallel rank: {}\n", attribution_line(a.by_dp_rank));
  fmt::format_to(out, "  by operation type: {}\n", attribution_line(a.by_op_type));
  for (const auto& note : a.notes) fmt::format_to(out, "note: {}\n", note);
  return text;
}

nlohmann::json whatif_json(const whatif::StragglerAnalysis& a, const std::string& path) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : a.steps) {
    steps.push_back({{"step", step.step},
                     {"measured_s", step.measured_s},
                     {"replayed_s", step.replayed_s},
                     {"ideal_s", step.ideal_s},
                     {"straggler_slowdown", step.replayed_s / step.ideal_s}});
  }
  return {{"trace", path},
          {"dp_size", a.dp_size},
          {"pp_size", a.pp_size},
          {"operations", a.operations},
          {"measured_s", a.measured_s},
          {"replayed_s", a.replayed_s},
          {"ideal_s", a.ideal_s},
          {"launch_slowdown", a.launch_slowdown},
          {"straggler_slowdown", a.straggler_slowdown},
          {"by_stage", attribution_json(a.by_stage)},
          {"by_dp_rank", attribution_json(a.by_dp_rank)},
          {"by_op_type", attribution_json(a.by_op_type)},
          {"notes", a.notes},
          {"steps", steps}};
}

}  // namespace distsim::io
