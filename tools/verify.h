#pragma once
#include <string>
#include <vector>
namespace xrng::tools {
// `xrng verify`: golden vectors on every backend present, then every backend
// against the scalar reference for every distribution and dtype. Returns the
// process exit code (0 only if everything matches).
int cmd_verify(const std::vector<std::string>& args);
}  // namespace xrng::tools
