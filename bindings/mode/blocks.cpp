// DTensor shard blocks of the reproducible mode: see blocks.h.
#include "blocks.h"

#include <c10/util/Exception.h>

#include "../mode.h"

namespace xrng::torch_api::mode::detail {

thread_local BlockContext t_block;

bool in_block(const at::Tensor& t) {
  return t_block.active && t.sizes().vec() == t_block.local;
}

}  // namespace xrng::torch_api::mode::detail

namespace xrng::torch_api::mode {
using namespace detail;

void block_begin(std::vector<int64_t> global, std::vector<int64_t> start, std::vector<int64_t> local,
                 std::optional<at::Generator> gen) {
  TORCH_CHECK(!t_block.active, "xrng.reproducible: DTensor regions do not nest");
  t_block = BlockContext{true, std::move(global), std::move(start), std::move(local), std::move(gen)};
}

void block_end() { t_block = BlockContext{}; }

}  // namespace xrng::torch_api::mode
