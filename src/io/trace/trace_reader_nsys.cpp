#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "core/input_error.hpp"
#include "io/trace/trace_reader_formats.hpp"
#include "profile_db/sqlite_connection.hpp"
#include "profile_db/sqlite_statement.hpp"

// Nsight Systems' SQLite export (`nsys export --type sqlite`), as its documentation describes the
// tables: CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, correlationId, globalPid, shortName
// into StringIds), CUPTI_ACTIVITY_KIND_RUNTIME (the launches: correlationId, start, globalTid),
// NVTX_EVENTS (ranges: start, end, eventType, text or textId into StringIds, globalTid) and
// TARGET_INFO_SESSION_START_TIME (utcEpochNs). Times are nanoseconds from the session's start.
namespace distsim::io::trace_format {

namespace {

using compare::Activity;
using compare::ActivityKind;
using profile_db::SqliteConnection;
using profile_db::SqliteStatement;

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
// NVTX_EVENTS.eventType of push/pop and start/end ranges (Nsight Systems' export schema).
constexpr int kPushPopRange = 59;
constexpr int kStartEndRange = 60;
// A globalTid holds the process id above its low 24 bits, which hold the thread id.
constexpr std::int64_t kThreadBits = std::int64_t{1} << 24;

struct Kernel {
  SimTime start = 0;
  SimTime end = 0;
  std::int64_t device = 0;
  std::int64_t process = 0;  //!< globalPid
  std::int64_t correlation = 0;
  bool collective = false;
};

struct Range {
  SimTime start = 0;
  SimTime end = 0;
  std::string name;
};

class NsysExport {
 public:
  explicit NsysExport(const std::string& path)
      : path_(path), db_(path, SqliteConnection::Access::read_only, 1000, "Nsight Systems export") {}

  bool has_table(const std::string& table) const {
    SqliteStatement query(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    query.bind(1, table);
    return query.step();
  }

  bool has_column(const std::string& table, const std::string& column) const {
    SqliteStatement query(db_, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?");
    query.bind(1, table).bind(2, column);
    return query.step();
  }

  //! Where the session's clock starts, so that exports of different ranks line up; 0 without it.
  SimTime session_start() const {
    if (!has_table("TARGET_INFO_SESSION_START_TIME")) return 0;
    SqliteStatement query(db_, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    return query.step() ? query.integer(0) : 0;
  }

  std::vector<Kernel> kernels() const {
    for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "StringIds"}) {
      if (!has_table(table)) {
        throw InputError(path_ + ": an Nsight Systems export without the " + std::string(table) +
                         " table; export a profile that traced CUDA (nsys profile --trace cuda) with nsys export "
                         "--type sqlite");
      }
    }
    SqliteStatement query(db_, "SELECT k.start, k.end, k.deviceId, k.globalPid, k.correlationId, COALESCE(s.value, '') "
                               "FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k.shortName "
                               "ORDER BY k.deviceId, k.start, k.end");
    std::vector<Kernel> kernels;
    while (query.step()) {
      const std::string name = query.text(5);
      Kernel kernel{query.integer(0), query.integer(1), query.integer(2),
                    query.integer(3), query.integer(4), is_collective_kernel(name)};
      if (kernel.end < kernel.start) {
        throw InputError(path_ + ": CUPTI_ACTIVITY_KIND_KERNEL: kernel '" + name + "' ends (" +
                         std::to_string(kernel.end) + " ns) before it starts (" + std::to_string(kernel.start) +
                         " ns)");
      }
      kernels.push_back(kernel);
    }
    return kernels;
  }

  //! Each launch's thread and time, by (globalPid, correlationId); none without the runtime table.
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, SimTime>> launches() const {
    std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, SimTime>> found;
    if (!has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) return found;
    SqliteStatement query(db_, "SELECT globalTid, correlationId, start FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    while (query.step()) {
      const std::int64_t thread = query.integer(0);
      found[{thread - thread % kThreadBits, query.integer(1)}] = {thread, query.integer(2)};
    }
    return found;
  }

  //! The distsim: ranges of each thread, ordered by start.
  std::map<std::int64_t, std::vector<Range>> annotations() const {
    std::map<std::int64_t, std::vector<Range>> ranges;
    if (!has_table("NVTX_EVENTS")) return ranges;
    const std::string name = has_column("NVTX_EVENTS", "textId")
                                 ? "COALESCE(n.text, (SELECT value FROM StringIds WHERE id = n.textId))"
                                 : "n.text";
    SqliteStatement query(db_, "SELECT n.start, n.end, n.globalTid, " + name +
                                   " FROM NVTX_EVENTS n WHERE n.eventType IN (?, ?) AND n.end IS NOT NULL "
                                   "ORDER BY n.globalTid, n.start");
    query.bind(1, std::int64_t{kPushPopRange}).bind(2, std::int64_t{kStartEndRange});
    while (query.step()) {
      Range range{query.integer(0), query.integer(1), query.text(3)};
      if (!std::string_view(range.name).starts_with(kPassLabelPrefix)) continue;
      ranges[query.integer(2)].push_back(std::move(range));
    }
    return ranges;
  }

 private:
  std::string path_;
  SqliteConnection db_;
};

//! The innermost range of `ranges` (ordered by start) that holds `time`, or nullptr.
const Range* enclosing(const std::vector<Range>& ranges, SimTime time) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), time,
                                [](SimTime t, const Range& range) { return t < range.start; });
  while (after != ranges.begin()) {
    --after;
    if (time < after->end) return &*after;
  }
  return nullptr;
}

//! A kernel's pass: the distsim: range its launch ran in on the host, or nullptr.
struct PassOfKernel {
  const std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, SimTime>>& launches;
  const std::map<std::int64_t, std::vector<Range>>& ranges;

  const Range* operator()(const Kernel& kernel) const {
    const auto launch = launches.find({kernel.process, kernel.correlation});
    if (launch == launches.end()) return nullptr;
    const auto thread = ranges.find(launch->second.first);
    return thread == ranges.end() ? nullptr : enclosing(thread->second, launch->second.second);
  }
};

//! One device's activities. With passes, each pass is the span of the computation kernels its
//! range launched (the range's projection onto the GPU) and each NCCL kernel takes the label of
//! the range it was launched in; computation launched outside every range is left out, as the
//! Kineto reader leaves it. Without passes every kernel is an unlabelled activity.
std::vector<Activity> device_activities(const std::vector<Kernel>& kernels, const PassOfKernel& pass_of,
                                        const std::string& file, bool labelled) {
  std::vector<Activity> activities;
  std::map<const Range*, Activity> passes;
  for (const Kernel& kernel : kernels) {
    const Range* range = labelled ? pass_of(kernel) : nullptr;
    Activity activity{kernel.collective ? ActivityKind::collective : ActivityKind::compute, std::nullopt, -1,
                      kernel.start, kernel.end};
    if (range != nullptr) {
      const PassLabel label = parse_pass_label(range->name, file + ": NVTX range '" + range->name + "'");
      activity.phase = label.phase;
      activity.microbatch = label.microbatch;
    }
    if (kernel.collective || !labelled) {
      activities.push_back(activity);
      continue;
    }
    if (range == nullptr) continue;
    auto [pass, added] = passes.emplace(range, activity);
    if (!added) {
      pass->second.start = std::min(pass->second.start, kernel.start);
      pass->second.end = std::max(pass->second.end, kernel.end);
    }
  }
  for (const auto& [range, pass] : passes) activities.push_back(pass);
  return activities;
}

}  // namespace

bool is_nsys_export(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kSqliteMagic.size(), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return in.gcount() == static_cast<std::streamsize>(head.size()) && head == kSqliteMagic;
}

FileTrace read_nsys_trace(const std::string& path, int first_rank) {
  const NsysExport db(path);
  const std::vector<Kernel> kernels = db.kernels();
  if (kernels.empty()) {
    throw InputError(path + ": no GPU kernels (CUPTI_ACTIVITY_KIND_KERNEL is empty), so nothing to compare");
  }
  const auto launches = db.launches();
  const auto ranges = db.annotations();
  FileTrace trace;
  trace.format = "Nsight Systems export";
  // Ranges are placed on the GPU through the launches they made; without the runtime table they
  // cannot be, and the passes are unknown.
  trace.pass_labels = !ranges.empty() && !launches.empty();
  const PassOfKernel pass_of{launches, ranges};
  const SimTime offset = db.session_start();
  trace.begin = std::numeric_limits<SimTime>::max();
  trace.end = std::numeric_limits<SimTime>::min();
  for (auto first = kernels.begin(); first != kernels.end();) {
    const auto last = std::find_if(first, kernels.end(), [&](const Kernel& k) { return k.device != first->device; });
    compare::RankTimeline rank;
    rank.rank = first_rank + static_cast<int>(trace.ranks.size());
    rank.file = path;
    rank.activities = device_activities({first, last}, pass_of, path, trace.pass_labels);
    for (Activity& activity : rank.activities) {
      activity.start += offset;
      activity.end += offset;
      trace.begin = std::min(trace.begin, activity.start);
      trace.end = std::max(trace.end, activity.end);
    }
    trace.ranks.push_back(std::move(rank));
    first = last;
  }
  return trace;
}

}  // namespace distsim::io::trace_format
