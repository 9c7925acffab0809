// The golden file compiled into the program: tests/data/golden_v1.txt as it
// was when the xrng_golden library was built (CMakeLists.txt embeds it), so
// that `xrng verify` carries the frozen stream wherever the binary goes and
// never reads a source tree.
#pragma once

#include <string_view>

namespace xrng::golden {

// The embedded text of tests/data/golden_v1.txt; parse it with
// parse_golden_text (golden/format.h).
std::string_view embedded_text();

}  // namespace xrng::golden
