"""Fingerprints battery.py for the torch this Python imports, under one CPU capability.

    python3 record.py CAPABILITY [--merge recorded.json]

CAPABILITY is what ATEN_CPU_CAPABILITY is set to (avx2, default, avx512); the
process imports torch after setting it. "avx2-intel" is avx2 with Intel MKL
told the CPU is Intel's (mkl/record_intel.sh preloads mkl/intel_cpu.c), so
torch 2.0 to 2.6's MKL draws are an Intel CPU's. On an AArch64 Python (check_aarch64.sh
runs one under qemu-aarch64) the key is "aarch64" for CAPABILITY default and
"aarch64-CAPABILITY" otherwise (sve256, ...). Prints (or merges into the JSON file)
{torch version: {key: {group: "values:state"}}}, a group being one kind
of case over battery.py's five seeds (its name without the seed), "values" the
first 8 hex digits of the sha256 of the five cases' values (their repr), "state"
the same of the five generator states after them. check.sh runs it for an
installed torch version.
"""
import hashlib
import json
import os
import platform
import sys


def groups(results):
    """{group: "values:state"} of battery.run()'s [(name, values, state)]."""
    by = {}
    for name, values, state in results:
        seed, group = name.split(" ", 1)
        v, s = by.setdefault(group, (hashlib.sha256(), hashlib.sha256()))
        v.update(f"{seed}:{values!r}\n".encode())
        s.update(seed.encode() + b":" + state)
    return {g: v.hexdigest()[:8] + ":" + s.hexdigest()[:8] for g, (v, s) in by.items()}


def main():
    cap = sys.argv[1]
    if cap.endswith("-intel"):  # (mkl/record_intel.sh: MKL told the CPU is Intel's)
        if "intel_cpu" not in os.environ.get("LD_PRELOAD", ""):
            sys.exit("record.py: CAPABILITY-intel needs LD_PRELOAD of mkl/intel_cpu.c's library (record_intel.sh)")
    os.environ["ATEN_CPU_CAPABILITY"] = cap.removesuffix("-intel")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch
    import battery
    version = torch.__version__.split("+")[0]
    if platform.machine() == "aarch64":
        cap = "aarch64" if cap == "default" else f"aarch64-{cap}"
    rec = {version: {cap: groups(battery.run())}}
    if len(sys.argv) > 3 and sys.argv[2] == "--merge":
        path = sys.argv[3]
        data = json.load(open(path)) if os.path.exists(path) else {}
        data.setdefault(version, {})[cap] = rec[version][cap]
        data = {v: {c: dict(sorted(g.items())) for c, g in sorted(caps.items())}
                for v, caps in sorted(data.items(), key=lambda kv: tuple(int(x) for x in kv[0].split(".")))}
        with open(path, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        runs = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else "?"  # (1.13 has none)
        print(f"torch {torch.__version__} {cap} (torch runs {runs}): "
              f"{len(rec[version][cap])} groups -> {path}")
    else:
        json.dump(rec, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
