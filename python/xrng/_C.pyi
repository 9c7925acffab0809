# Type stubs of the native module (bindings/python.cpp).
from typing import Any, Dict, List, Tuple, Union

import torch

stream_version: int  # the newest stream version, the default (SPEC.md section 7)
stream_versions: Tuple[int, ...]  # every stream version produced: (1, 2)
state_bytes_size: int
max_threads: int  # threads= takes 0 (all) to max_threads (xrng::kMaxThreads, the CLI's --threads bound)

def simd_isa() -> str: ...
def set_simd_isa(name: str) -> bool: ...
def has_cuda_kernels() -> bool: ...
def torch_cpu_seed(seed: int) -> torch.Tensor:
    """A torch CPU generator state (torch.Generator.get_state() layout, 5056 uint8), seeded as torch seeds it."""
def torch_cpu_release(release: str) -> int:
    """Which torch releases' draws torch release `release` made, where they differ: 0 2.13 and later, 1 2.12,
    2 2.7 to 2.11, 3 2.1 to 2.6, 4 2.0, 5 1.13 (rng/torch_cpu.h Release); ValueError for another form or a release
    before 1.13."""
def torch_cpu_mkl_bernoulli(release: int) -> bool:
    """Whether release number `release`'s scalar-p bernoulli_ is MKL's (torch 2.0 to 2.6: one word per call, the
    elements in row-major order whatever the strides)."""
def torch_cpu_draw(state: torch.Tensor, kind: str, kernel: str, out: torch.Tensor, a: float = 0.0,
                   b: float = 1.0, ilow: int = 0, ihigh: int = 0, release: int = 0) -> None:
    """Fills contiguous CPU `out` with torch CPU stream draw `kind` (uniform, normal, normal_each, exponential,
    geometric, log_normal, cauchy, randint, random (random_() without a range), random_from (random_(from, None),
    from = ilow; -2**63: the full 64-bit range), bernoulli, randperm), advancing `state` in place as torch's
    generator would (rng/torch_cpu.h); `release` as torch_cpu_release gives it."""
def torch_cpu_standard_gamma(state: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """torch._standard_gamma(alpha) on the torch CPU stream: a contiguous CPU float32/float64 alpha; `state`
    advanced in place as torch's generator would (rng/torch_cpu_gamma.h); other dtypes raise NotImplementedError
    as torch does."""
def torch_cpu_dirichlet(state: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """torch._sample_dirichlet(alpha) on the torch CPU stream (torch's x86 CPU row sum); ValueError for a single
    row of 32768 or more categories (torch sums it across its threads); `state` advanced in place."""
def torch_cpu_poisson(state: torch.Tensor, rate: torch.Tensor) -> torch.Tensor:
    """torch.poisson(rate) on the torch CPU stream (rng/torch_cpu_poisson.h): contiguous CPU rate (float32, float64,
    float16, bfloat16), a new tensor of its shape and dtype, advancing `state` in place as torch's generator.
    ValueError before drawing for a negative or NaN rate."""
def torch_cpu_binomial(state: torch.Tensor, count: torch.Tensor, prob: torch.Tensor) -> torch.Tensor:
    """torch.binomial(count, prob) on the torch CPU stream: contiguous CPU count and prob of one shape and dtype
    (float32 or float64), a new tensor of that shape and dtype, advancing `state` in place as torch's generator.
    ValueError before drawing for what torch refuses and for a NaN count with prob in (0, 1) (torch never returns)."""
def torch_cuda_draw(seed: int, offset: int, kind: str, sm_count: int, threads_per_sm: int, out: torch.Tensor,
                    a: float = 0.0, b: float = 1.0, ilow: int = 0, ihigh: int = 0) -> int:
    """Fills contiguous CPU `out` with torch CUDA stream draw `kind` (uniform, normal, exponential, log_normal,
    geometric, cauchy, bernoulli, randint, random, random_from (random_(from, None), from = ilow), randperm) from
    (seed, offset) on a GPU of sm_count SMs; returns the new philox offset (rng/torch_cuda.h)."""
def torch_cuda_bernoulli_tensor(seed: int, offset: int, out: torch.Tensor, p: torch.Tensor) -> int:
    """bernoulli_(p) with a tensor p on the torch CUDA stream: contiguous CPU `out` and `p` (expanded; float64
    for a float64 out, float32 otherwise); returns the new philox offset."""
def registry() -> Dict[str, Any]:
    """{"dtypes": {name: torch.dtype}, "params": {name: {"kind", "doc"}},
    "dists": {name: {"kind", "default_dtype", "params", "doc"}},
    "rows": [(dist, dtype, G, K, version)]} -- rng/registry.h."""
    ...

# PyTorch's seeding conventions (rng/keys.h), modulo 2**64.
def epoch_seed(epoch: int) -> int: ...
def worker_seed(base_seed: int, worker_id: int) -> int: ...
def numpy_worker_seed(initial_seed: int) -> int: ...
def distributed_sampler_seed(seed: int, epoch: int) -> int: ...

class Generator:
    def __init__(self, seed: int = 0, subseq: int = 0, offset: int = 0, stream: int = 2) -> None: ...
    @property
    def stream(self) -> int:
        """The stream version of every draw from it (1 or 2); kept by split, fold_in, copies, pickles and states."""
        ...
    @property
    def seed(self) -> int: ...
    @property
    def subseq(self) -> int: ...
    offset: int
    def reserve(self, words: int) -> Tuple[int, int, int]:
        """Atomically advances the offset by `words`; returns (seed, subseq, offset) before it: the caller's range."""
        ...
    def get_state(self) -> torch.Tensor: ...
    def set_state(self, state: torch.Tensor) -> None: ...
    def state_bytes(self) -> bytes: ...
    def set_state_bytes(self, state: Union[bytes, bytearray]) -> None: ...
    def split(self, i: int) -> "Generator": ...
    def fold_in(self, data: int) -> "Generator": ...
    def fork(self, i: int) -> "Generator":
        """Deprecated: split(i) (emits a DeprecationWarning)."""
        ...
    def clone(self) -> "Generator": ...

# Where a draw starts: a Generator (advanced by the draw) or a stateless
# stream position (seed, subseq, offset).
Source = Union[Generator, Tuple[int, int, int]]

def draw_(tensor: torch.Tensor, source: Source, dist: str, params: Dict[str, Union[int, float]], path: str,
          threads: int, stream: int = 2) -> torch.Tensor: ...
def draw_new(size: List[int], dtype: torch.dtype, device: torch.device, source: Source, dist: str,
             params: Dict[str, Union[int, float]], path: str, threads: int, stream: int = 2) -> torch.Tensor: ...
def dropout_out(out: torch.Tensor, input: torch.Tensor, p: float, source: Source, path: str,
                threads: int) -> torch.Tensor: ...
def perm_shard_(out: torch.Tensor, n: int, seed: int, subseq: int, offset: int, rank: int, world: int, start: int,
                path: str, threads: int) -> torch.Tensor: ...
def perm_element(seed: int, subseq: int, offset: int, n: int, i: int) -> int: ...
def perm_position(seed: int, subseq: int, offset: int, n: int, value: int) -> int: ...
