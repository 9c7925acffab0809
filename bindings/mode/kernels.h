// The kernels of the reproducible mode (kernels.cpp): one Kernel per row of
// the table (table.h) and dispatch key, registered by install() (unboxed for
// the in-place fill and random_ rows, boxed for the others).
#pragma once

namespace xrng::torch_api::mode::detail {

// Registers xrng's kernels for every row and key of the table (torch's own
// kept for its checks and the calls xrng does not draw); the first entry.
void install();
// Drops the registrations: torch's own kernels come back; the last entry.
void uninstall();

}  // namespace xrng::torch_api::mode::detail
