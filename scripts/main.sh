#!/usr/bin/env bash
# The main job: install what is missing, build, print the cross-backend
# conformance table (`xrng verify`), then a short demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >build.log 2>&1 || { tail -40 build.log; echo "main: build failed (full log: build.log)"; exit 1; }
echo
./build/xrng verify
echo
echo "== demo =="
echo "\$ xrng gen --dist normal --seed 42 --count 6"
./build/xrng gen --dist normal --seed 42 --count 6
echo "\$ xrng gen --dist normal --seed 42 --start 4 --count 2      # random access: the same last two values"
./build/xrng gen --dist normal --seed 42 --start 4 --count 2
echo "\$ xrng gen --dist perm --epoch 3 --n 10                      # epoch 3's shuffle (seed 123456789+3)"
./build/xrng gen --dist perm --epoch 3 --n 10 | paste -sd' '
echo "\$ xrng gen --dist perm --epoch 3 --n 10 --rank 1 --world 2   # what rank 1 of 2 gets"
./build/xrng gen --dist perm --epoch 3 --n 10 --rank 1 --world 2 --count 5 | paste -sd' '
echo "\$ xrng fingerprint --dist normal --dtype bf16 --seed 7 --count 16777216"
./build/xrng fingerprint --dist normal --dtype bf16 --seed 7 --count 16777216
echo "(run the same command on any other machine: the same line means the same 16M values)"
