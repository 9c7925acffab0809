#!/usr/bin/env bash
# Run on the development machine before a GPU call. The GPU machine has no
# doctest, Random123 or Eigen headers and cannot install any; this copies them
# (header-only, from this machine's Debian packages) into .gpu-deps/include,
# which is git-ignored and travels with the device tool's `carry`:
#   carry: [".gpu-deps"]   then on the GPU machine: tests/gpu/run.sh
# Nothing is vendored into the repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
dst=.gpu-deps/include
rm -rf .gpu-deps
mkdir -p "$dst"
copy() {  # copy SRC DEST_NAME (required or optional)
  if [ -d "$1" ]; then
    cp -r "$1" "$dst/$2"
    echo "prepare_deps: $1 -> $dst/$2"
  elif [ "$3" = required ]; then
    echo "prepare_deps: $1 is missing (apt-get install $4)" >&2
    exit 1
  else
    echo "prepare_deps: $1 not found, skipped"
  fi
}
copy /usr/include/doctest doctest required doctest-dev
copy /usr/include/Random123 Random123 required librandom123-dev
# Eigen: only the Eigen/ headers (find_path(... Eigen/Core PATH_SUFFIXES eigen3)).
if [ -d /usr/include/eigen3/Eigen ]; then
  mkdir -p "$dst/eigen3"
  cp -r /usr/include/eigen3/Eigen "$dst/eigen3/Eigen"
  echo "prepare_deps: /usr/include/eigen3/Eigen -> $dst/eigen3/Eigen"
fi
du -sh .gpu-deps
