#include "core/closest_name.hpp"

#include <gtest/gtest.h>

namespace distsim {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);  // k→s, e→i, +g
  EXPECT_EQ(edit_distance("", "abc"), 3);
  EXPECT_EQ(edit_distance("A40", "a40"), 0);
}

TEST(ClosestName, PicksTheNearestCandidate) {
  EXPECT_EQ(closest_name("gpt2-354m", {"bert-large", "gpt2-345m", "t5-large"}), "gpt2-345m");
}

TEST(UnknownNameMessage, SuggestsAndListsCandidates) {
  EXPECT_EQ(unknown_name_message("GPU", "a4O", {"a10", "a40"}),
            "unknown GPU 'a4O'; did you mean 'a40'? (known: a10, a40)");
}

}  // namespace distsim
