#include "events/event_table.hpp"

#include <gtest/gtest.h>

#include "events/event_factory.hpp"

namespace distsim::events {

TEST(EventTable, DeduplicatesEventsByKey) {
  const EventFactory factory(Dtype::bf16);
  EventTable table;
  const EventId a = table.intern(factory.gemm(4096, 3072, 1024));
  const EventId b = table.intern(factory.gemm(4096, 1024, 3072));
  const EventId c = table.intern(factory.gemm(4096, 3072, 1024));
  EXPECT_EQ(a, c);
  EXPECT_NE(a, b);
  table.add_instances(a, 5);
  table.add_instances(b, 2);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.total_instances(), 7);
}

TEST(EventFactory, DerivesGemmWork) {
  const Event gemm = EventFactory(Dtype::bf16).gemm(4096, 3072, 1024);
  EXPECT_EQ(gemm.key(), "gemm m=4096 n=3072 k=1024 bf16");
  EXPECT_DOUBLE_EQ(gemm.flops, 2.0 * 4096 * 3072 * 1024);
  // A (4096x1024) + B (1024x3072) + C (4096x3072), 2 bytes each.
  EXPECT_DOUBLE_EQ(gemm.bytes_moved, 2.0 * (4096.0 * 1024 + 1024.0 * 3072 + 4096.0 * 3072));
}

TEST(EventFactory, HalvesCausalAttentionAndScalesBackward) {
  const EventFactory factory(Dtype::bf16);
  // 4·b·heads·s·s·d = 4·2·8·1024·1024·64 for full attention.
  const Event full = factory.attention(false, 2, 8, 8, 1024, 1024, 64, false);
  EXPECT_DOUBLE_EQ(full.flops, 4.0 * 2 * 8 * 1024 * 1024 * 64);
  const Event causal = factory.attention(false, 2, 8, 8, 1024, 1024, 64, true);
  EXPECT_DOUBLE_EQ(causal.flops, full.flops / 2);
  EXPECT_DOUBLE_EQ(factory.attention(true, 2, 8, 8, 1024, 1024, 64, true).flops, 2.5 * causal.flops);
}

TEST(EventFactory, KeysCommunicationByBytesGroupAndPlacement) {
  const EventFactory factory(Dtype::bf16);
  const Event intra =
      factory.collective(Collective::all_reduce, 1 << 20,
                         {.size = 8, .hosts = 1, .domains = 1, .ranks_per_host = 8, .ranks_per_domain = 8}, 8);
  const Event inter =
      factory.collective(Collective::all_reduce, 1 << 20,
                         {.size = 8, .hosts = 2, .domains = 2, .ranks_per_host = 4, .ranks_per_domain = 4}, 8);
  EXPECT_EQ(intra.key(), "all_reduce bytes=1048576 group=8 intra");
  EXPECT_EQ(inter.key(), "all_reduce bytes=1048576 group=8 inter per_node=4");
}

}  // namespace distsim::events
