# The test of a component this build lacks (distsim_missing_component_test in tests/CMakeLists.txt):
# fails with the message saying what to install.
message(FATAL_ERROR "FAIL: ${MESSAGE}")
