#include "events/stream_kind.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace distsim::events {

// Every device stream's trace category comes from formats.md §1.9's fixed vocabulary (comp,
// tp_comm, pp_send, pp_recv, dp_comm, cp_comm, ep_comm, idle, bubble); the host thread's launches
// take the category Kineto gives them, cuda_runtime (formats.md §2.2).
TEST(StreamKindTable, TraceCategoriesComeFromTheFixedVocabulary) {
  const std::set<std::string> vocabulary{"comp",    "tp_comm", "pp_send", "pp_recv", "dp_comm",
                                         "cp_comm", "ep_comm", "idle",    "bubble"};
  for (const auto& stream : kStreamKindTable) {
    if (!stream.on_device) continue;
    EXPECT_TRUE(vocabulary.count(std::string(stream.trace_category)) == 1) << stream.id;
  }
  EXPECT_EQ(stream_kind_info(StreamKind::host).trace_category, "cuda_runtime");
  EXPECT_FALSE(stream_kind_info(StreamKind::host).on_device);
}

// Identifiers and labels name one kind each, so a reader can map them back; only the two
// directions of a pipeline send (and of a receive) and the three data-parallel streams share a
// trace category.
TEST(StreamKindTable, IdentifiersAndLabelsAreUnique) {
  std::set<std::string_view> ids;
  std::set<std::string_view> labels;
  std::set<std::string_view> categories;
  for (const auto& stream : kStreamKindTable) {
    ids.insert(stream.id);
    labels.insert(stream.label);
    categories.insert(stream.trace_category);
  }
  EXPECT_EQ(ids.size(), kStreamKindTable.size());
  EXPECT_EQ(labels.size(), kStreamKindTable.size());
  // pp_send, pp_recv and ep_comm cover two kinds each, dp_comm three
  EXPECT_EQ(categories.size(), kStreamKindTable.size() - 5);
  EXPECT_EQ(stream_kind_info(StreamKind::etp_comm).trace_category, "ep_comm");
  EXPECT_EQ(stream_kind_info(StreamKind::dp_reduce).trace_category, "dp_comm");
  EXPECT_EQ(stream_kind_info(StreamKind::dp_replica).trace_category, "dp_comm");
  EXPECT_EQ(stream_kind_info(StreamKind::pp_send_prev).trace_category, "pp_send");
  EXPECT_EQ(stream_kind_info(StreamKind::pp_recv_next).trace_category, "pp_recv");
}

}  // namespace distsim::events
