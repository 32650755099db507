#include "io/chakra/chakra_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "events/phase.hpp"
#include "io/chakra/et_def.pb.h"
#include "io/trace/device_timelines.hpp"
#include "program/comm_group.hpp"
#include "strategy/rank_layout.hpp"

namespace distsim::io {

namespace {

using engine::StreamId;
using engine::TaskId;
using events::StreamKind;
using program::CommGroup;
using strategy::ParallelDim;

constexpr std::uint32_t kNotOnDevice = ~std::uint32_t{0};

//! Nanoseconds to Chakra's whole microseconds, to the nearest.
std::uint64_t micros(SimTime ns) { return static_cast<std::uint64_t>((ns + 500) / 1000); }

ChakraProtoMsg::CollectiveCommType comm_type(events::Collective collective) {
  switch (collective) {
    case events::Collective::all_gather: return ChakraProtoMsg::ALL_GATHER;
    case events::Collective::reduce_scatter: return ChakraProtoMsg::REDUCE_SCATTER;
    case events::Collective::all_to_all: return ChakraProtoMsg::ALL_TO_ALL;
    default: return ChakraProtoMsg::ALL_REDUCE;
  }
}

//! A task of one device's timeline, with what it waits for on that device.
struct DeviceTask {
  TaskId task = 0;
  StreamKind kind = StreamKind::compute;
  TaskId stream_previous = engine::kNoTask;
  std::uint32_t first_dependency = 0;  //!< into DeviceTasks::dependencies
  std::uint32_t dependencies = 0;
};

//! One simulated device's tasks in an order that respects their dependencies on the device.
struct DeviceTasks {
  int device = -1;
  std::vector<DeviceTask> tasks;
  std::vector<TaskId> dependencies;
};

//! What a rank's collective nodes name its groups by, found once per rank and kind of group.
struct GroupKey {
  CommGroup group = CommGroup::none;
  bool ring_level = false;
  std::vector<int> stages;
  bool operator<(const GroupKey& other) const {
    return std::tie(group, ring_level, stages) < std::tie(other.group, other.ring_level, other.stages);
  }
};

class ChakraExport {
 public:
  explicit ChakraExport(const api::Simulation& simulation)
      : simulation_(simulation),
        program_(simulation.program),
        tasks_(simulation.program.program),
        layout_(simulation.job.strategy, simulation.job.cluster),
        on_device_(tasks_.num_tasks(), kNotOnDevice) {
    index_prerequisites();
  }

  const strategy::RankLayout& layout() const { return layout_; }

  void write_rank(std::ostream& out, int rank) {
    const DeviceTasks& device = device_tasks(program_.device_for_rank(layout_, rank));
    const strategy::RankCoord coord = layout_.coord_of(rank);
    rank_groups_.clear();
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version(kChakraSchemaVersion);
    write_message(out, metadata);
    for (const DeviceTask& entry : device.tasks) {
      write_nodes(out, device, entry, coord);
    }
  }

  void write_groups(std::ostream& out) const {
    nlohmann::ordered_json groups = nlohmann::ordered_json::object();
    for (size_t id = 0; id < groups_in_order_.size(); ++id) {
      groups[std::to_string(id + 1)] = *groups_in_order_[id];
    }
    out << groups.dump() << "\n";
  }

 private:
  void index_prerequisites() {
    prerequisite_offsets_.assign(tasks_.num_tasks() + 1, 0);
    for (const auto& [task, prerequisite] : tasks_.dependencies()) ++prerequisite_offsets_[task + 1];
    for (size_t t = 1; t < prerequisite_offsets_.size(); ++t) prerequisite_offsets_[t] += prerequisite_offsets_[t - 1];
    prerequisites_.resize(prerequisite_offsets_.back());
    std::vector<std::size_t> next(prerequisite_offsets_.begin(), prerequisite_offsets_.end() - 1);
    for (const auto& [task, prerequisite] : tasks_.dependencies()) prerequisites_[next[task]++] = prerequisite;
  }

  std::span<const TaskId> prerequisites(TaskId task) const {
    return {prerequisites_.data() + prerequisite_offsets_[task],
            prerequisite_offsets_[task + 1] - prerequisite_offsets_[task]};
  }

  //! The device's tasks, kept for the next rank: in symmetric mode a stage's ranks come in a row.
  const DeviceTasks& device_tasks(int device) {
    if (device_.device == device) return device_;
    device_ = DeviceTasks{device, {}, {}};
    collect_streams(device);
    order_by_dependencies();
    for (const DeviceTask& entry : device_.tasks) on_device_[entry.task] = kNotOnDevice;
    return device_;
  }

  void collect_streams(int device) {
    const program::DeviceInfo& info = program_.devices[static_cast<size_t>(device)];
    for (const auto& stream_kind : events::kStreamKindTable) {
      const StreamId stream = info.stream(stream_kind.kind);
      TaskId previous = engine::kNoTask;
      for (TaskId task = tasks_.first_on_stream(stream); task != engine::kNoTask;) {
        on_device_[task] = static_cast<std::uint32_t>(device_.tasks.size());
        device_.tasks.push_back({task, stream_kind.kind, previous});
        previous = task;
        task = next_on(task, stream);
      }
    }
    for (DeviceTask& entry : device_.tasks) {
      entry.first_dependency = static_cast<std::uint32_t>(device_.dependencies.size());
      for (const TaskId prerequisite : prerequisites(entry.task)) {
        if (on_device_[prerequisite] != kNotOnDevice) device_.dependencies.push_back(prerequisite);
      }
      entry.dependencies = static_cast<std::uint32_t>(device_.dependencies.size()) - entry.first_dependency;
    }
  }

  TaskId next_on(TaskId task, StreamId stream) const {
    const auto streams = tasks_.streams(task);
    const auto at = std::find(streams.begin(), streams.end(), stream) - streams.begin();
    return tasks_.next_on_streams(task)[static_cast<size_t>(at)];
  }

  //! Kahn's order, the earliest simulated start first: a reader that issues nodes in file order
  //! never meets a node before what it depends on.
  void order_by_dependencies() {
    const size_t count = device_.tasks.size();
    std::vector<std::uint32_t> waiting(count, 0);
    std::vector<std::vector<std::uint32_t>> dependents(count);
    const auto add_edge = [&](TaskId prerequisite, size_t entry) {
      if (prerequisite == engine::kNoTask) return;
      ++waiting[entry];
      dependents[on_device_[prerequisite]].push_back(static_cast<std::uint32_t>(entry));
    };
    for (size_t e = 0; e < count; ++e) {
      const DeviceTask& entry = device_.tasks[e];
      add_edge(entry.stream_previous, e);
      for (std::uint32_t d = 0; d < entry.dependencies; ++d)
        add_edge(device_.dependencies[entry.first_dependency + d], e);
    }
    using Ready = std::pair<SimTime, TaskId>;
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    const auto push = [&](size_t e) {
      const TaskId task = device_.tasks[e].task;
      ready.emplace(simulation_.times.start[task], task);
    };
    for (size_t e = 0; e < count; ++e) {
      if (waiting[e] == 0) push(e);
    }
    std::vector<DeviceTask> ordered;
    ordered.reserve(count);
    while (!ready.empty()) {
      const std::uint32_t e = on_device_[ready.top().second];
      ready.pop();
      ordered.push_back(device_.tasks[e]);
      for (const std::uint32_t next : dependents[e]) {
        if (--waiting[next] == 0) push(next);
      }
    }
    device_.tasks = std::move(ordered);
  }

  void write_nodes(std::ostream& out, const DeviceTasks& device, const DeviceTask& entry,
                   const strategy::RankCoord& coord) {
    const program::TaskInfo& info = program_.tasks[entry.task];
    const events::Event& event = program_.events.at(info.event);
    start_node(device, entry, info);
    if (entry.kind == StreamKind::host) {
      node_.set_name("launch " + node_.name());
      node_.set_type(ChakraProtoMsg::COMP_NODE);
      add_bool(node_, "is_cpu_op", true);
    } else if (!event.is_communication()) {
      node_.set_type(ChakraProtoMsg::COMP_NODE);
      add_bool(node_, "is_cpu_op", false);
      add_attr(node_, "num_ops").set_int64_val(std::llround(event.flops));
      add_attr(node_, "tensor_size").set_uint64_val(static_cast<std::uint64_t>(std::llround(event.bytes_moved)));
    } else if (event.collective == events::Collective::ring_exchange) {
      write_ring_exchange(out, entry, event, coord);
      return;
    } else if (events::is_pipeline_transfer(entry.kind)) {
      write_transfer(entry, event, coord);
    } else {
      node_.set_type(ChakraProtoMsg::COMM_COLL_NODE);
      add_bool(node_, "is_cpu_op", false);
      add_attr(node_, "comm_type").set_int64_val(comm_type(event.collective));
      add_attr(node_, "comm_size").set_int64_val(event.bytes);
      add_attr(node_, "pg_name").set_string_val(std::to_string(group_id(entry.task, info.group, event, coord)));
    }
    write_message(out, node_);
  }

  void start_node(const DeviceTasks& device, const DeviceTask& entry, const program::TaskInfo& info) {
    node_.Clear();
    node_.set_id(entry.task);
    std::string name = fmt::format("{} {}", events::phase_name(info.phase), info.label);
    if (info.microbatch >= 0) name += fmt::format(" mb{}", info.microbatch);
    if (info.layer >= 0) name += fmt::format(" layer{}", info.layer);
    node_.set_name(std::move(name));
    if (entry.stream_previous != engine::kNoTask) node_.add_ctrl_deps(entry.stream_previous);
    for (std::uint32_t d = 0; d < entry.dependencies; ++d) {
      node_.add_data_deps(device.dependencies[entry.first_dependency + d]);
    }
    node_.set_start_time_micros(micros(simulation_.times.start[entry.task]));
    node_.set_duration_micros(micros(tasks_.duration(entry.task)));
  }

  //! The other end of a pipeline transfer: the rank at the same place on the other stage.
  void write_transfer(const DeviceTask& entry, const events::Event& event, const strategy::RankCoord& coord) {
    const bool sends = events::is_pipeline_send(entry.kind);
    int peer = layout_.rank_of(coord);
    for (const StreamId stream : tasks_.streams(entry.task)) {
      const auto& device = program_.devices[static_cast<size_t>(program_.streams[stream].device)];
      if (program_.streams[stream].kind != entry.kind) {
        peer = layout_.rank_of(coord.with(ParallelDim::pp, device.coord[ParallelDim::pp]));
      }
    }
    node_.set_type(sends ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
    add_peers(event, sends ? layout_.rank_of(coord) : peer, sends ? peer : layout_.rank_of(coord), entry.task);
  }

  //! A ring exchange sends a block to the next context rank and receives one from the previous.
  //! The receive keeps the task's id, so what waits for the exchange waits for the block it
  //! brings; the send comes first, under the task's id plus the program's task count, and the
  //! receive follows it.
  void write_ring_exchange(std::ostream& out, const DeviceTask& entry, const events::Event& event,
                           const strategy::RankCoord& coord) {
    const std::vector<int> ring =
        program::comm_group_members(layout_, simulation_.job.strategy, coord, CommGroup::context, event);
    const int own = layout_.rank_of(coord);
    const auto at = static_cast<size_t>(std::find(ring.begin(), ring.end(), own) - ring.begin());
    const int next = ring[(at + 1) % ring.size()];
    const int previous = ring[(at + ring.size() - 1) % ring.size()];
    const std::uint64_t send_id = tasks_.num_tasks() + entry.task;
    const std::string name = node_.name();
    node_.set_id(send_id);
    node_.set_name(name + " (send)");
    node_.set_type(ChakraProtoMsg::COMM_SEND_NODE);
    add_peers(event, own, next, entry.task);
    write_message(out, node_);
    node_.set_id(entry.task);
    node_.set_name(name + " (receive)");
    node_.clear_attr();
    node_.add_ctrl_deps(send_id);
    node_.set_type(ChakraProtoMsg::COMM_RECV_NODE);
    add_peers(event, previous, own, entry.task);
    write_message(out, node_);
  }

  void add_peers(const events::Event& event, int source, int destination, TaskId task) {
    add_bool(node_, "is_cpu_op", false);
    add_attr(node_, "comm_size").set_int64_val(event.bytes);
    add_attr(node_, "comm_src").set_int32_val(source);
    add_attr(node_, "comm_dst").set_int32_val(destination);
    // Both ends name the same task, so the tag pairs them; task ids stay below 2^31 under any
    // task limit a program can be built with.
    add_attr(node_, "comm_tag").set_int32_val(static_cast<std::int32_t>(task & 0x7fffffffU));
  }

  int group_id(TaskId task, CommGroup group, const events::Event& event, const strategy::RankCoord& coord) {
    GroupKey key{group, event.collective == events::Collective::ring_exchange, {}};
    if (group == CommGroup::stages) {
      for (const StreamId stream : tasks_.streams(task)) {
        key.stages.push_back(
            program_.devices[static_cast<size_t>(program_.streams[stream].device)].coord[ParallelDim::pp]);
      }
    }
    const auto found = rank_groups_.find(key);
    if (found != rank_groups_.end()) return found->second;
    std::vector<int> members =
        program::comm_group_members(layout_, simulation_.job.strategy, coord, group, event, key.stages);
    auto [place, added] = group_ids_.emplace(std::move(members), static_cast<int>(groups_in_order_.size()) + 1);
    if (added) groups_in_order_.push_back(&place->first);
    rank_groups_.emplace(std::move(key), place->second);
    return place->second;
  }

  static ChakraProtoMsg::AttributeProto& add_attr(ChakraProtoMsg::Node& node, const char* name) {
    ChakraProtoMsg::AttributeProto* attr = node.add_attr();
    attr->set_name(name);
    return *attr;
  }
  static void add_bool(ChakraProtoMsg::Node& node, const char* name, bool value) {
    add_attr(node, name).set_bool_val(value);
  }

  static void write_message(std::ostream& out, const google::protobuf::MessageLite& message) {
    google::protobuf::util::SerializeDelimitedToOstream(message, &out);
  }

  const api::Simulation& simulation_;
  const program::JobProgram& program_;
  const engine::Program& tasks_;
  strategy::RankLayout layout_;
  std::vector<std::size_t> prerequisite_offsets_;
  std::vector<TaskId> prerequisites_;
  std::vector<std::uint32_t> on_device_;  //!< per task, its place in device_ while it is built
  DeviceTasks device_;
  ChakraProtoMsg::Node node_;
  std::map<GroupKey, int> rank_groups_;
  std::map<std::vector<int>, int> group_ids_;
  std::vector<const std::vector<int>*> groups_in_order_;
};

}  // namespace

std::vector<OutputFile> chakra_files(const api::Simulation& simulation, TraceRanks ranks, const std::string& prefix) {
  if (simulation.repeats) {
    throw InputError(
        "--chakra: the simulation holds a steady state's shorter run; a Chakra export needs the whole iteration "
        "(simulate it with the steady state off)");
  }
  auto exporter = std::make_shared<ChakraExport>(simulation);
  std::vector<OutputFile> files;
  for (const int rank : shown_ranks(exporter->layout(), ranks == TraceRanks::all)) {
    files.push_back({fmt::format("{}.{}.et", prefix, rank),
                     [exporter, rank](std::ostream& out) { exporter->write_rank(out, rank); }});
  }
  files.push_back({prefix + ".comm_groups.json", [exporter](std::ostream& out) { exporter->write_groups(out); }});
  return files;
}

}  // namespace distsim::io
