// insn_count: one draw of one registry row, for counting the instructions a
// backend executes per element under an instruction-counting emulator
// (bench/count_insns.sh: qemu-aarch64 -singlestep -d exec,nochain prints one
// line per executed instruction). The difference between two draw sizes is
// the cost of the extra elements alone (start-up, plan and buffers cancel):
// Philox words, transform and store, per element.
//
//   insn_count --list          the element rows: index, name, stream version
//   insn_count ROW ISA N       fills N elements of row ROW (golden::row_plans():
//                              the distribution's first sample parameters) on
//                              the ISA (xrng::set_simd_isa; "none" = scalar), 1 thread
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "golden/sample_params.h"
#include "host/xrng.h"

int main(int argc, char** argv) {
  const std::vector<xrng::golden::RowPlan> rows = xrng::golden::row_plans();
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].plan.kind == xrng::Kind::element)
        std::printf("%zu %s/%s %d\n", i, xrng::dist_name(rows[i].row->dist), xrng::dtype_name(rows[i].row->dtype),
                    rows[i].plan.stream);
    return 0;
  }
  if (argc != 4) {
    std::fprintf(stderr, "usage: insn_count --list | insn_count ROW ISA N\n");
    return 2;
  }
  const size_t r = std::strtoull(argv[1], nullptr, 10);
  const uint64_t n = std::strtoull(argv[3], nullptr, 10);
  if (r >= rows.size() || rows[r].plan.kind != xrng::Kind::element) {
    std::fprintf(stderr, "insn_count: no element row %zu (insn_count --list)\n", r);
    return 2;
  }
  if (!xrng::set_simd_isa(argv[2])) {
    std::fprintf(stderr, "insn_count: ISA '%s' is not available here\n", argv[2]);
    return 2;
  }
  const xrng::Plan& p = rows[r].plan;
  std::vector<unsigned char> out(n * static_cast<uint64_t>(xrng::dtype_size(p.dtype)));
  const bool simd = std::string(argv[2]) != "none";
  xrng::fill(p, xrng::Key(42), 0, 0, n, out.data(),
             xrng::FillOptions{simd ? xrng::Backend::simd : xrng::Backend::scalar, 1});
  unsigned x = 0;  // the output is used
  for (unsigned char c : out) x += c;
  return x == 0xffffffffu ? 3 : 0;
}
