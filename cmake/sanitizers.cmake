# -O1 after the build type's flags: AddressSanitizer's documentation recommends it for reasonable
# speed, and unoptimised code made the sanitizer test run the longest part of the CI.
# GCC 12 then reports -Wmaybe-uninitialized inside libstdc++'s std::regex (a std::function member
# of a moved regex state), a false positive that optimisation with the sanitizers brings out.
if(DISTSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
  add_link_options(-fsanitize=address,undefined)
endif()

# The fuzzing build (tests/fuzz, scripts/fuzz.sh): every library gets libFuzzer's coverage
# instrumentation and the same sanitizers; the harnesses add libFuzzer's main when they link.
if(DISTSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DISTSIM_FUZZ needs clang with libFuzzer (Debian: clang-14 and libclang-rt-14-dev); "
                        "configure with -DCMAKE_CXX_COMPILER=clang++-14")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
