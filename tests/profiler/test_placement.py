import unittest

import support  # noqa: F401
from distsim_profiler.keys import parse_key
from distsim_profiler.placement import Placement, group_members, unsupported_reason

ONE_NODE_OF_TWO = Placement(0, 2, 0, 2)
TWO_NODES_OF_FOUR = Placement(0, 8, 0, 4)


class GroupMembersTest(unittest.TestCase):
    def test_intra_node_group_uses_the_first_ranks(self):
        self.assertEqual(group_members(parse_key("all_reduce bytes=8 group=2 intra"), ONE_NODE_OF_TWO), ([0, 1], None))

    def test_group_larger_than_the_node_needs_more_ranks(self):
        members, reason = group_members(parse_key("all_reduce bytes=8 group=8 intra"), ONE_NODE_OF_TWO)
        self.assertIsNone(members)
        self.assertEqual(reason, "needs 8 ranks on one node (this launch has 2)")

    def test_inter_node_group_takes_per_node_ranks_of_each_node(self):
        # group 4 with 2 per node: ranks 0, 1 of node 0 and 4, 5 of node 1 (nodes hold 4 ranks).
        spec = parse_key("all_reduce bytes=8 group=4 inter per_node=2")
        self.assertEqual(group_members(spec, TWO_NODES_OF_FOUR), ([0, 1, 4, 5], None))

    def test_inter_node_group_on_one_node_is_skipped(self):
        members, reason = group_members(parse_key("send_recv bytes=8 group=2 inter per_node=1"), ONE_NODE_OF_TWO)
        self.assertIsNone(members)
        self.assertEqual(reason, "needs 2 ranks on 2 nodes, 1 per node (this launch has 1 node(s) of 2)")

    def test_ring_exchange_is_placed_like_a_collective_of_its_group(self):
        # A ring of 4, 2 per node: ranks 0, 1 of node 0 and 4, 5 of node 1; on one node of 2 the
        # ring of 4 does not fit and is skipped with the reason.
        spec = parse_key("ring_exchange bytes=8 group=4 inter per_node=2")
        self.assertEqual(group_members(spec, TWO_NODES_OF_FOUR), ([0, 1, 4, 5], None))
        members, reason = group_members(parse_key("ring_exchange bytes=8 group=4 intra"), ONE_NODE_OF_TWO)
        self.assertIsNone(members)
        self.assertEqual(reason, "needs 4 ranks on one node (this launch has 2)")

    def test_gloo_has_no_reduce_scatter(self):
        spec = parse_key("reduce_scatter bytes=8 group=2 intra")
        self.assertIn("gloo has no reduce_scatter", unsupported_reason(spec, "gloo"))
        self.assertIsNone(unsupported_reason(spec, "nccl"))


if __name__ == "__main__":
    unittest.main()
