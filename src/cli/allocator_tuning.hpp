#pragma once

namespace distsim::cli {

//! Makes the C allocator keep freed memory for the next simulation instead of handing it back to
//! the kernel, for processes that run many simulations (search, sweep, validate, the benchmarks).
//! Changes no result.
void keep_freed_memory_for_reuse();

}  // namespace distsim::cli
