// Locating and parsing the Random123 / cuRAND known-answer files
// (tests/data/kat, a copy of shared/kat; the repository copy is preferred).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xrng_test {

inline std::string kat_path(const std::string& file) {
  for (const std::string& dir : {std::string(XRNG_TEST_DATA_DIR) + "/kat", std::string(XRNG_SHARED_KAT_DIR)}) {
    const std::string p = dir + "/" + file;
    if (std::ifstream(p)) return p;
  }
  throw std::runtime_error("known-answer file " + file + " not found in tests/data/kat nor ../shared/kat");
}

// Non-comment, non-blank lines split into whitespace-separated tokens.
inline std::vector<std::vector<std::string>> kat_lines(const std::string& file) {
  std::ifstream f(kat_path(file));
  std::vector<std::vector<std::string>> out;
  std::string s;
  while (std::getline(f, s)) {
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos || s[b] == '#') continue;
    std::istringstream is(s);
    std::vector<std::string> toks;
    std::string t;
    while (is >> t) toks.push_back(t);
    out.push_back(toks);
  }
  return out;
}

inline uint64_t kat_num(const std::string& s, int base) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, base);
  if (s.empty() || *end != '\0') throw std::runtime_error("known-answer file: bad number '" + s + "'");
  return v;
}

}  // namespace xrng_test
