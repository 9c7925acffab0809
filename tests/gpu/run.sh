#!/usr/bin/env bash
# xrng's GPU proofs and benchmarks in one script, for a lent GPU machine
# (H100/H200: nvcc 13, cmake, python3 with a CUDA torch; no network, nothing
# installable). Before the call, on the development machine:
#     tests/gpu/prepare_deps.sh          # doctest/Random123/Eigen headers -> .gpu-deps/
# then run this with the device tool, carrying .gpu-deps:
#     run(command="tests/gpu/run.sh", carry=[".gpu-deps"])
# Stages, most valuable first (docs/gpu-results.md lists them with
# estimated times): the CUDA proofs (ctest -L cuda, not
# exhaustive: the coalesced layout, every registry row and op against the
# core's scalar reference, launch invariance, cuRAND witness, golden file,
# block draws, cuda_torch), then xrng.torch_cuda and the mode's torch-cuda
# stream against torch's own CUDA draws (tests/gpu/torch_cuda_check.py), the
# Python CUDA tests (pytest -m cuda), NCCL sharded draws, the CUDA exhaustive
# sweeps, then the benchmarks (bench/gpu/bench_xrng_torch.py, bench_gpu,
# bench_torch.py, bench_small.py, bench_h2d.py), then the rest of the build
# and the CPU tests while time remains; it prints two tables last: the
# issue's performance table (bench/gpu/summary.py) and the proofs' results.
# Full log: $OUT/log when $OUT is set (else /tmp/xrng-gpu-run.log); each
# benchmark's output is also copied to $OUT.
#
# Environment: XRNG_GPU_BUDGET_S (default 510: no phase starts after that many
# seconds, and each phase is cut at the budget, so the run stays under 9
# minutes), XRNG_GPU_BUILD_DIR (default build-gpu), XRNG_GPU_JOBS (default
# nproc), XRNG_COMMIT (shown when the copy has no .git), XRNG_GPU_ARCH
# (default native), XRNG_GPU_SKIP_PYTHON=1 (no bindings build / pytest),
# XRNG_GPU_BENCH_RESERVE_S (default 150: seconds the CUDA exhaustive stage
# leaves for the benchmarks).
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../.."
ROOT=$PWD
T0=$(date +%s)
BUDGET=${XRNG_GPU_BUDGET_S:-510}
B=${XRNG_GPU_BUILD_DIR:-build-gpu}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
JOBS=${XRNG_GPU_JOBS:-$(nproc)}
ARCH=${XRNG_GPU_ARCH:-native}
if [ -n "${OUT:-}" ]; then LOG=$OUT/log; else LOG=/tmp/xrng-gpu-run.log; fi
mkdir -p "$(dirname "$LOG")"
exec > >(tee "$LOG") 2>&1

mkdir -p "$B"
RES=$B/results.txt
: >"$RES"
record() { echo "$1|$2|$3" >>"$RES"; }  # name | PASS/FAIL/SKIPPED/NOT RUN | detail
left() { echo $((BUDGET - ($(date +%s) - T0))); }
elapsed() { echo $(($(date +%s) - T0)); }
phase() { echo; echo "=== [$(elapsed) s] $*"; }

# Runs ctest with the given selection and records one result per test.
run_ctest() {  # run_ctest LABEL-FOR-LOG ctest-args...
  local what=$1
  shift
  local t
  t=$(left)
  if [ "$t" -le 20 ]; then
    record "ctest $what" "NOT RUN" "time budget spent"
    return
  fi
  local out=$B/ctest-$what.txt
  timeout "$t" ctest --test-dir "$B" --output-on-failure --timeout "$t" "$@" 2>&1 | tee "$out"
  local rc=${PIPESTATUS[0]}
  python3 - "$out" "$rc" >>"$RES" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
seen = False
for m in re.finditer(r"Test\s+#\d+:\s+(\S+)\s+\.*\s*\**\s*(Passed|Failed|Skipped|Not Run|Timeout|Exception[^\n]*|SEGFAULT[^\n]*)", text):
    name, st = m.group(1), m.group(2)
    status = {"Passed": "PASS", "Skipped": "SKIPPED", "Not Run": "NOT RUN"}.get(st, "FAIL")
    print(f"ctest {name}|{status}|{st}")
    seen = True
if not seen and sys.argv[2] != "124":
    print(f"ctest selection|{'FAIL' if sys.argv[2] != '0' else 'NOT RUN'}|no test ran (ctest rc {sys.argv[2]})")
PY
  # tests still running at the budget are neither passed nor failed
  if [ "$rc" = 124 ]; then record "ctest $what (rest)" "NOT RUN" "cut at the time budget (XRNG_GPU_BUDGET_S)"; fi
}

phase "environment"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$DEVICE" ] || DEVICE="(nvidia-smi found no GPU)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 | head -3
nvcc --version 2>&1 | tail -2
cmake --version | head -1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())" 2>&1
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || true)
if [ -n "$COMMIT" ]; then
  [ -z "$(git status --porcelain 2>/dev/null)" ] || COMMIT="$COMMIT+dirty"
else
  COMMIT=${XRNG_COMMIT:-unknown (no .git in this copy)}
fi
echo "commit: $COMMIT  cores: $(nproc)"
EXTRA=$ROOT/.gpu-deps/include
if [ ! -d "$EXTRA/doctest" ]; then
  echo "WARNING: $EXTRA/doctest is missing: run tests/gpu/prepare_deps.sh and carry .gpu-deps; doctest tests will not build"
fi

# Stages, most valuable first; each prints its output as it completes, each
# is cut at what remains of the budget, and one that cannot run says SKIPPED
# with the reason (the table at the end lists every stage):
#   1 configure; the Python bindings (CUDA) start building in the background
#   2 build the CUDA targets (tests, PTX check, bench_gpu)
#   3 CUDA proofs, not exhaustive (ctest -L cuda -LE exhaustive: the coalesced
#     layout, equivalence, launch, cuRAND, golden, block draws, cuda_torch)
#   4 xrng.torch_cuda and the mode's torch-cuda stream vs torch's own CUDA
#     draws (torch_cuda_check.py), once the bindings are built
#   5 pytest -m cuda   6 NCCL sharded draws   7 CUDA exhaustive (2^32 sweeps)
#   8 benchmarks: bench_xrng_torch.py, bench_gpu (also checks outputs == CPU),
#     bench_torch.py, bench_small.py, bench_h2d.py
#   9 the rest of the build and the CPU tests while time remains
BENCH_RESERVE=${XRNG_GPU_BENCH_RESERVE_S:-150}  # seconds kept for stage 8 by stage 7
skip() { echo "SKIPPED: $1: $2"; record "$1" SKIPPED "$2"; }  # skip STAGE REASON
cap() { local t; t=$(left); [ "$t" -gt "$1" ] && t=$1; echo "$t"; }  # min(CAP, what is left)
PYLIB=$B/pylib
PIP_PID=
HALF=$(( (JOBS + 1) / 2 ))

phase "1. configure (CUDA arch $ARCH); the Python bindings start building in the background ($HALF jobs)"
CONFIGURED=0
if cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DXRNG_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DXRNG_EXTRA_INCLUDE="$EXTRA" >"$B/configure.txt" 2>&1; then
  tail -5 "$B/configure.txt"
  CONFIGURED=1
else
  tail -30 "$B/configure.txt"
  record "configure" FAIL "see $B/configure.txt"
fi
if [ "${XRNG_GPU_SKIP_PYTHON:-0}" = 1 ]; then
  echo "the Python bindings: not built (XRNG_GPU_SKIP_PYTHON=1)"
elif [ -f pyproject.toml ] && [ -f bindings/CMakeLists.txt ]; then
  rm -rf "$PYLIB"
  ( CMAKE_ARGS="-DCMAKE_CUDA_ARCHITECTURES=$ARCH -DXRNG_TORCH_CUDA=ON" CMAKE_BUILD_PARALLEL_LEVEL=$HALF \
      timeout "$(left)" python3 -m pip install --no-build-isolation --no-deps --no-index --target "$PYLIB" . \
      >"$B/pip.txt" 2>&1; echo $? >"$B/pip.rc" ) &
  PIP_PID=$!
fi
# waits for the background bindings build (at most what is left); 0 if built
bindings_ready() {
  if [ -n "$PIP_PID" ]; then
    echo "waiting for the Python bindings build (started at stage 1)..."
    wait "$PIP_PID" 2>/dev/null
    PIP_PID=
    local rc
    rc=$(cat "$B/pip.rc" 2>/dev/null || echo "?")
    if [ "$rc" = 0 ]; then echo "the Python bindings: built at $(elapsed) s"
    else tail -30 "$B/pip.txt"; echo "the Python bindings: build failed (rc $rc, see $B/pip.txt)"
      record "bindings build (pip, CUDA)" FAIL "rc $rc (124: cut at the budget), see $B/pip.txt"; fi
  fi
  [ -f "$PYLIB/xrng/__init__.py" ]
}
why_no_bindings() {
  if [ "${XRNG_GPU_SKIP_PYTHON:-0}" = 1 ]; then echo "XRNG_GPU_SKIP_PYTHON=1"
  elif [ ! -f bindings/CMakeLists.txt ]; then echo "no Python bindings in this tree"
  else echo "the bindings did not build (see $B/pip.txt)"; fi
}

phase "2. build the CUDA targets ($HALF jobs)"
if [ "$CONFIGURED" = 1 ]; then
  if timeout "$(cap 300)" cmake --build "$B" -j "$HALF" --target test_cuda test_cuda_host test_cuda_torch xrng_cuda_ptx bench_gpu \
    >"$B/build-cuda.txt" 2>&1; then
    record "build (CUDA targets)" PASS "at $(elapsed) s"
  else
    grep -E "error" "$B/build-cuda.txt" | head -20
    record "build (CUDA targets)" FAIL "see $B/build-cuda.txt (rc 124: cut at the budget)"
  fi
else
  skip "build (CUDA targets)" "configure failed"
fi

phase "3. CUDA proofs (ctest -L cuda -LE exhaustive: coalesced layout, equivalence, launch, cuRAND, golden, blocks, cuda_torch)"
if [ "$CONFIGURED" = 1 ]; then run_ctest cuda -L cuda -LE exhaustive
else skip "ctest cuda" "configure failed"; fi

phase "4. torch CUDA streams vs torch's own CUDA draws (tests/gpu/torch_cuda_check.py, with the mode's torch-cuda stream)"
if bindings_ready; then
  if [ "$(left)" -gt 30 ]; then
    PYTHONPATH="$PYLIB${PYTHONPATH:+:$PYTHONPATH}" timeout "$(cap 180)" python3 tests/gpu/torch_cuda_check.py 2>&1 | tee "$B/torch_cuda_check.txt"
    rc=${PIPESTATUS[0]}
    last=$(grep "torch_cuda_check:" "$B/torch_cuda_check.txt" | tail -1)
    if [ "$rc" = 0 ] && grep -q SKIPPED <<<"$last"; then record "torch_cuda_check.py" SKIPPED "$last"
    elif [ "$rc" = 0 ]; then record "torch_cuda_check.py" PASS "$last (exact rows and the mode; ulp tables in the log)"
    elif [ "$rc" = 124 ]; then record "torch_cuda_check.py" "NOT RUN" "cut at the time budget"
    else record "torch_cuda_check.py" FAIL "${last:-rc $rc}"; fi
    [ -n "${OUT:-}" ] && cp "$B/torch_cuda_check.txt" "$OUT/torch_cuda_check.txt"
  else
    skip "torch_cuda_check.py" "time budget spent"
  fi
else
  skip "torch_cuda_check.py" "$(why_no_bindings)"
fi

phase "5. Python CUDA tests (pytest -m cuda)"
if bindings_ready && [ -d tests/python ]; then
  if [ "$(left)" -gt 40 ]; then
    PYTHONPATH="$PYLIB${PYTHONPATH:+:$PYTHONPATH}" XRNG_CLI="$B/xrng" \
      timeout "$(cap 200)" python3 -m pytest -m cuda tests/python -q -rs -p no:cacheprovider --durations=12 \
      -o faulthandler_timeout=120 2>&1 | tee "$B/pytest.txt"
    rc=${PIPESTATUS[0]}
    summary=$(tail -1 "$B/pytest.txt")
    if [ "$rc" = 0 ] && ! grep -qE " skipped" <<<"$summary"; then record "pytest -m cuda" PASS "$summary"
    elif [ "$rc" = 0 ]; then record "pytest -m cuda" PASS "$summary (see skips above)"
    elif [ "$rc" = 5 ]; then record "pytest -m cuda" "NOT RUN" "no test collected"
    elif [ "$rc" = 124 ]; then record "pytest -m cuda" "NOT RUN" "cut at the time budget: $summary"
    else record "pytest -m cuda" FAIL "$summary"; fi
  else
    skip "pytest -m cuda" "time budget spent"
  fi
else
  skip "pytest -m cuda" "$(why_no_bindings)"
fi

phase "6. Sharded draws on NCCL (tests/python/dist_worker.py: DTensor, mode, TP, FSDP2)"
if bindings_ready && [ "$(left)" -gt 60 ]; then
  # one rank per GPU (NCCL refuses two ranks on one GPU), at most 4; a single
  # GPU runs world 1 (the CUDA block kernels under NCCL, every check alike)
  PYTHONPATH="$PYLIB${PYTHONPATH:+:$PYTHONPATH}" timeout "$(cap 120)" python3 - "$B" <<'PY' 2>&1 | tee "$B/nccl.txt"
import json, os, socket, subprocess, sys, tempfile
import torch
world = max(1, min(4, torch.cuda.device_count()))
out = tempfile.mkdtemp()
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = str(s.getsockname()[1]); s.close()
groups = "dtensor,mode,tp"
try:
    import transformers  # noqa: F401
    groups += ",fsdp"
except ImportError:
    pass
procs = [subprocess.Popen([sys.executable, "tests/python/dist_worker.py", str(r), str(world), port, out, "nccl",
                           groups]) for r in range(world)]
rcs = [p.wait() for p in procs]
bad = []
for r in range(world):
    try:
        rep = json.load(open(os.path.join(out, f"rank{r}.json")))["results"]
    except OSError:
        bad.append(f"rank {r}: no report (rc {rcs[r]})")
        continue
    for k, v in rep.items():
        print(f"rank {r}: {k}: {'ok' if v == 'ok' else v}")
        if v != "ok":
            bad.append(f"rank {r}: {k}")
print(f"NCCL world {world} groups {groups}: " + ("PASS" if not bad else "FAIL " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
  if [ "${PIPESTATUS[0]}" = 0 ]; then record "nccl sharded draws" PASS "$(tail -1 "$B/nccl.txt")"
  else record "nccl sharded draws" FAIL "$(tail -1 "$B/nccl.txt")"; fi
elif [ -f "$PYLIB/xrng/__init__.py" ]; then
  skip "nccl sharded draws" "time budget spent"
else
  skip "nccl sharded draws" "$(why_no_bindings)"
fi

phase "7. CUDA exhaustive proofs (2^32 sweeps; cut to leave ${BENCH_RESERVE} s for the benchmarks)"
if [ "$CONFIGURED" = 1 ] && [ $(( $(left) - BENCH_RESERVE )) -gt 30 ]; then
  BUDGET_SAVED=$BUDGET
  BUDGET=$((BUDGET - BENCH_RESERVE))
  run_ctest cuda-exhaustive -L exhaustive -R "^cuda_"
  BUDGET=$BUDGET_SAVED
else
  skip "ctest cuda_exhaustive" "not configured, or no time left before the benchmarks' reserve (${BENCH_RESERVE} s)"
fi

phase "8. benchmarks (bench_xrng_torch.py, bench_gpu, bench_torch.py, bench_small.py, bench_h2d.py)"
# pybench NAME CAP [PYTHONPATH]: a Python benchmark, its table printed and copied
pybench() {
  local name=$1 c=$2 pp=${3:-}
  if [ "$(left)" -le 20 ]; then skip "$name.py" "time budget spent"; return; fi
  PYTHONPATH="$pp${pp:+${PYTHONPATH:+:}}${PYTHONPATH:-}" timeout "$(cap "$c")" python3 bench/gpu/$name.py 2>&1 | tee "$B/$name.txt"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" = 124 ]; then record "$name.py" "NOT RUN" "cut at the time budget (rows above ran)"
  elif [ "$rc" != 0 ]; then record "$name.py" FAIL "rc $rc (see log)"
  elif grep -q "^SKIPPED" "$B/$name.txt"; then record "$name.py" SKIPPED "$(grep -m1 "^SKIPPED" "$B/$name.txt")"
  else record "$name.py" PASS "informational (table above)"; fi
  [ -n "${OUT:-}" ] && cp "$B/$name.txt" "$OUT/$name.txt"
}
# bench_xrng_torch first: the tensor-parameter draws and the torch-cuda kernels
# against torch (issues 26 and 27); bench_gpu's table was measured on 2026-11-27
if bindings_ready; then pybench bench_xrng_torch 120 "$PYLIB"
else skip "bench_xrng_torch.py" "$(why_no_bindings)"; fi
if [ -x "$B/bench/gpu/bench_gpu" ] && [ "$(left)" -gt 40 ]; then
  timeout "$(cap 150)" "$B/bench/gpu/bench_gpu" >"$B/bench_gpu.txt" 2>&1
  rc=$?
  cat "$B/bench_gpu.txt"
  if [ $rc = 0 ]; then record "bench_gpu (outputs == CPU)" PASS "table above"
  elif [ $rc = 77 ]; then record "bench_gpu" SKIPPED "no usable CUDA device"
  elif [ $rc = 124 ]; then record "bench_gpu" "NOT RUN" "cut at the time budget"
  else record "bench_gpu" FAIL "rc $rc"; fi
  [ -n "${OUT:-}" ] && cp "$B/bench_gpu.txt" "$OUT/bench_gpu.txt"
elif [ -x "$B/bench/gpu/bench_gpu" ]; then
  record "bench_gpu" "NOT RUN" "time budget spent"; echo "SKIPPED: bench_gpu: time budget spent"
else
  record "bench_gpu" "NOT RUN" "not built"; echo "SKIPPED: bench_gpu: not built"
fi
pybench bench_torch 90
if [ -f "$PYLIB/xrng/__init__.py" ]; then
  pybench bench_small 120 "$PYLIB"
  pybench bench_h2d 90 "$PYLIB"
else
  skip "bench_small.py / bench_h2d.py" "$(why_no_bindings)"
fi

phase "9. the rest of the build, the CPU tests (ctest, not cuda, not exhaustive), the CPU exhaustive tests"
if [ "$CONFIGURED" = 1 ] && [ "$(left)" -gt 30 ]; then
  if timeout "$(left)" cmake --build "$B" -j "$JOBS" >"$B/build.txt" 2>&1; then
    record "build (all targets)" PASS "at $(elapsed) s"
    run_ctest cpu -LE "cuda|exhaustive" -j "$JOBS"
    run_ctest cpu-exhaustive -L exhaustive -LE cuda
  else
    grep -E "error|Error" "$B/build.txt" | head -20
    if [ "$(left)" -le 0 ]; then skip "build (all targets) and the CPU tests" "cut at the time budget"
    else record "build (all targets)" FAIL "see $B/build.txt"; fi
  fi
else
  skip "build (all targets) and the CPU tests" "not configured, or time budget spent"
fi
[ -n "$PIP_PID" ] && kill "$PIP_PID" 2>/dev/null

phase "summary"
[ -n "${OUT:-}" ] && cp "$RES" "$OUT/results.txt" 2>/dev/null
{
  echo "performance (bench_gpu + bench_torch.py, this run):"
  python3 bench/gpu/summary.py "$B/bench_gpu.txt" "$B/bench_torch.txt" 2>&1
  for b in bench_xrng_torch bench_small bench_h2d; do
    if [ -f "$B/$b.txt" ]; then echo; echo "$b.py:"; grep -vE "^device:|^$" "$B/$b.txt" | tail -30; fi
  done
  echo
} | tee "$B/perf-summary.txt"
[ -n "${OUT:-}" ] && cp "$B/perf-summary.txt" "$OUT/perf-summary.txt"
{
  echo "device:  $DEVICE"
  echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit:  $COMMIT"
  echo "elapsed: $(elapsed) s"
  printf '%-44s %-8s %s\n' "proof" "result" "detail"
  while IFS='|' read -r n s d; do
    printf '%-44s %-8s %s\n' "$n" "$s" "$d"
  done <"$RES"
} | tee "$B/summary.txt"
[ -n "${OUT:-}" ] && cp "$B/summary.txt" "$OUT/summary.txt"
# exit 1: something failed; 2: nothing failed but a GPU proof did not run; 0: all ran and passed
if grep -q "|FAIL|" "$RES"; then
  echo "RESULT: FAILURES (see above)"
  exit 1
elif grep -qE "^(ctest cuda_|bench_gpu|ctest cuda \(rest\)|ctest cuda-exhaustive \(rest\))[^|]*\|(SKIPPED|NOT RUN)\|" "$RES"; then
  echo "RESULT: INCOMPLETE (a GPU proof was skipped or not run)"
  exit 2
fi
echo "RESULT: ALL PASSED"
exit 0
