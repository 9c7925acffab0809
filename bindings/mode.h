// The reproducible mode's dispatcher engine (issue 25): while it is active,
// xrng's kernels serve torch's random aten operators (normal_, uniform_,
// bernoulli_, random_, exponential_, ..., multinomial, the gamma family) for
// the CPU, CUDA and PrivateUse1 dispatch keys. Torch keeps everything above
// the kernel: argument parsing, dtype and memory-format rules, autograd
// (reverse and forward), vmap batching, tracing, subclass dispatch, and every
// caller (Python, C++, TorchScript, the LSTM) reaches the same kernels.
//
// The registrations are torch::Library objects made when the first entry
// starts and destroyed when the last one ends: destroying them restores
// torch's own kernels. The table of covered operators is kModeOps in
// mode/table.h (one row per aten operator: its form, the xrng draw, its
// parameters); mode_ops() lists it. The engine: mode.cpp (these functions)
// and mode/ (streams, table, blocks, draws, kernels; see mode.cpp).
//
// Streams (SPEC.md section 8): draws without a generator, or with the default
// CPU generator, use the global stream Key(seed).fold_in(GLOBAL_TAG); a draw
// with another torch.Generator g uses Key(g.initial_seed()). After every draw
// the torch generator is marked (mt19937: the dead low 31 bits of state word
// 0; Philox generators: the offset jumps by 2^34), and its state is recorded
// with the stream position, so re-seeds, restores (fork_rng, set_rng_state)
// and copies of states are recognised at the next draw.
//
// Config::torch selects torch's own generators instead (issue 26,
// mode/torch_streams.h, SPEC.md section 8.5): the torch-cpu streams draw
// from torch's CPU generator itself (read, drawn as torch draws, written
// back: no marks), torch-cuda from a modelled CUDA generator (seed, Philox
// offset) kept in the records above.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace xrng::torch_api::mode {

// Called when a draw cannot be made identical on every device (op, reason).
// It may throw (strict mode): the draw then does not happen.
using ReportFn = std::function<void(const std::string& op, const std::string& why)>;

struct Config {
  uint64_t seed = 0;     // the global stream's key: Key(seed).fold_in(tag)
  uint64_t tag = 0;      // GLOBAL_TAG
  int stream = 2;        // the stream version of every draw
  ReportFn report;
  // torch's own generators as the stream (issue 26; mode/torch_streams.h):
  // 0 xrng's streams (above), 1 "torch-cpu-x86", 2 "torch-cpu-scalar",
  // 3 "torch-cuda" (a GPU of sm_count SMs of threads_per_sm threads).
  int torch = 0;
  bool seeded = false;   // a seed was given (torch-cpu: the default CPU generator is seeded at entry)
  uint32_t sm_count = 0;
  uint32_t threads_per_sm = 2048;
  // torch-cpu: which torch releases' draws (rng/torch_cpu.h Release, by its
  // number: 0 2.13 and later, 1 2.12, 2 2.7 to 2.11, 3 2.1 to 2.6,
  // 4 2.0, 5 1.13).
  int release = 0;
};

// Starts an entry: installs the kernels (first entry), restarts the global
// stream at offset 0 of its key. Entries nest; end() resumes the outer one.
void begin(const Config& config);
// Ends the innermost entry (check: report a foreign draw on the global
// generator since the last draw); the last one removes the kernels.
void end(bool check);
// A DTensor shard's region on this thread (python/xrng/_dispatch.py's RNG
// tracker): fills of a tensor of shape `local` are the block at `start` of
// the draw over `global` (the unsharded tensor's values), taking the global
// draw's words; `gen`: the program's generator, if the call named one.
void block_begin(std::vector<int64_t> global, std::vector<int64_t> start, std::vector<int64_t> local,
                 std::optional<at::Generator> gen);
void block_end();
// Whether the kernels are installed.
bool active();
// The global stream's (seed, subseq, offset, stream version).
std::vector<uint64_t> global_position();

struct OpInfo {
  std::string name;      // aten operator, "name.overload"
  std::string draw;      // the xrng draw it makes
  std::string words;     // the words it consumes
};
// The covered operators (the table kModeOps).
std::vector<OpInfo> mode_ops();

}  // namespace xrng::torch_api::mode
