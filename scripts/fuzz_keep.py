"""Keeps a merged fuzz corpus: fuzz_keep.py MERGED SEEDS KEPT MAX_BYTES.

Leaves out every input that carries a 64-byte run of a seed (the seeds
come from the specification mirror and the shared manifests, whose text
is not committed), then keeps the smallest inputs up to MAX_BYTES in
all, and makes KEPT hold exactly those (named by their SHA-1, as
libFuzzer names them). Prints what it kept and left out."""

import hashlib
import sys
from pathlib import Path

WINDOW = 64


def windows(data: bytes) -> set:
    return {data[i:i + WINDOW] for i in range(0, max(len(data) - WINDOW + 1, 0))}


def main() -> None:
    merged, seeds, kept, cap = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    seen = set()
    if seeds.is_dir():
        for seed in seeds.iterdir():
            seen |= windows(seed.read_bytes())
    inputs = sorted((p.read_bytes() for p in merged.iterdir() if p.is_file()), key=len)
    keep, borrowed, over, total = [], 0, 0, 0
    for data in inputs:
        if any(data[i:i + WINDOW] in seen for i in range(0, max(len(data) - WINDOW + 1, 0))):
            borrowed += 1
        elif total + len(data) > cap:
            over += 1
        else:
            keep.append(data)
            total += len(data)
    kept.mkdir(parents=True, exist_ok=True)
    names = {hashlib.sha1(d).hexdigest(): d for d in keep}
    for old in kept.iterdir():
        if old.name not in names:
            old.unlink()
    for name, data in names.items():
        (kept / name).write_bytes(data)
    print(f"{kept}: {len(names)} inputs, {total} bytes kept; "
          f"{borrowed} carrying a seed's text and {over} over the cap left out")


if __name__ == "__main__":
    main()
