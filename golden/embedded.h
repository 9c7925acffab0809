// The golden files compiled into the program: tests/data/golden_v1.txt and
// golden_v2.txt as they were when the xrng_golden library was built
// (CMakeLists.txt embeds them), so that `xrng verify` carries the frozen
// streams wherever the binary goes and never reads a source tree.
#pragma once

#include <string_view>

namespace xrng::golden {

// The embedded text of tests/data/golden_v<version>.txt (version 1 or 2;
// empty for any other); parse it with parse_golden_text (golden/format.h).
std::string_view embedded_text(int version = 1);

}  // namespace xrng::golden
