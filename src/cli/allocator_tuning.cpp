#include "cli/allocator_tuning.hpp"

#include <cstdlib>  // on glibc, defines __GLIBC__

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace distsim::cli {

// A search runs hundreds of simulations in one process, each allocating and freeing task arrays
// of megabytes. By default glibc serves a block over 128 KiB with mmap and returns it to the
// kernel when it is freed, and trims the top of its heap beyond 128 KiB, so each simulation
// faults its arrays in again page by page; once a run has freed a large block, glibc raises its
// thresholds and the next runs behave differently again. Measured on the GPT-3 1,024-GPU
// benchmark after an --all-ranks one: 201,487 page faults and 57 ms per simulation, against
// 7,639 and 17 ms in a fresh process. Fixed thresholds serve blocks up to 32 MiB (glibc's
// largest mmap threshold on 64-bit) from the heap and keep up to 256 MiB of it when freed.
void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  constexpr int kLargestHeapBlock = 32 << 20;
  constexpr int kKeptFreeHeap = 256 << 20;
  mallopt(M_MMAP_THRESHOLD, kLargestHeapBlock);
  mallopt(M_TRIM_THRESHOLD, kKeptFreeHeap);
#endif
}

}  // namespace distsim::cli
