#!/usr/bin/env bash
# The main job: install what is missing, build, install the Python package,
# the `xrng` command and the C++ package, print the cross-backend conformance table (`xrng verify`),
# then a short demo.
#
# XRNG_PREFIX (default /usr/local): where `cmake --install` puts bin/xrng, the
# headers and the find_package(xrng) config. If that fails (not writable), the
# demo runs ./build/xrng and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >build.log 2>&1 || { tail -40 build.log; echo "main: build failed (full log: build.log)"; exit 1; }

# The Python package (xrng and its torch operators), so that `import xrng`
# works after the main job (built against the torch setup.sh installed).
if PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    python3 -m pip install -q --no-build-isolation . >pip.log 2>&1; then
  echo "main: installed the Python package ($(python3 -c 'import xrng, torch; print("xrng", xrng.__version__, "for torch", torch.__version__)' 2>/dev/null || echo xrng))"
else
  tail -20 pip.log; echo "main: pip install of the Python package failed (full log: pip.log)"; exit 1
fi

prefix=${XRNG_PREFIX:-/usr/local}
if cmake --install build --prefix "$prefix" >install.log 2>&1; then
  XRNG=$prefix/bin/xrng
  if [[ "$(command -v xrng || true)" == "$XRNG" ]]; then
    echo "main: installed $XRNG (on PATH) and the C++ package (find_package(xrng): xrng::core, xrng::host)"
  else
    echo "main: installed $XRNG and the C++ package; $prefix/bin is not first on PATH for xrng" \
         "(found: $(command -v xrng || echo none)): export PATH=\"$prefix/bin:\$PATH\""
  fi
else
  XRNG=./build/xrng
  echo "main: could not install into $prefix (install.log); the command is $XRNG (or set XRNG_PREFIX)"
fi

echo
"$XRNG" verify

# demo ARGS...: prints the command exactly as it runs ("$ xrng" and ARGS,
# shell-quoted), then runs "$XRNG" ARGS. demo --join ARGS...: the output on one line.
demo() {
  local join=0
  if [[ $1 == --join ]]; then join=1; shift; fi
  printf '$ xrng'
  printf ' %q' "$@"
  printf '\n'
  if ((join)); then "$XRNG" "$@" | paste -sd' '; else "$XRNG" "$@"; fi
}

echo
echo "== demo =="
demo gen --dist normal --seed 42 --count 6
echo "# random access: the same last two values"
demo gen --dist normal --seed 42 --start 4 --count 2
echo "# epoch 3's shuffle (seed 123456789+3)"
demo --join gen --dist perm --epoch 3 --n 10
echo "# what rank 1 of 2 gets (a shard's whole length, ceil(n / world), unless --count says otherwise)"
demo --join gen --dist perm --epoch 3 --n 10 --rank 1 --world 2
demo fingerprint --dist normal --dtype bf16 --seed 7 --count 16777216
echo "(run the same command on any other machine: the same line means the same 16M values)"
