# DISTSIM_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer on every target, at -O1 after
# the build type's flags (AddressSanitizer's documentation recommends it for reasonable speed, and
# unoptimised code made the sanitizer tests run the longest part of the CI).
# DISTSIM_FUZZ (clang only): the same sanitizers, and libFuzzer's coverage instrumentation in
# every library, so that one build serves the sanitizer tests and the harnesses of tests/fuzz
# (which add libFuzzer's main when they link: -fsanitize=fuzzer). The sanitizer runtimes define
# the coverage callbacks, so the tests link without libFuzzer.
if(DISTSIM_FUZZ AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "DISTSIM_FUZZ needs clang with libFuzzer (Debian: clang-14 and libclang-rt-14-dev); "
                      "configure with -DCMAKE_CXX_COMPILER=clang++-14 (cmake --preset sanitize)")
endif()
if(DISTSIM_SANITIZE OR DISTSIM_FUZZ)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(DISTSIM_SANITIZE)
  add_compile_options(-O1)
  # GCC 12 reports -Wmaybe-uninitialized inside libstdc++'s std::regex (a std::function member of
  # a moved regex state), a false positive that optimisation with the sanitizers brings out.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
endif()
if(DISTSIM_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
