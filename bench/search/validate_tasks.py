#!/usr/bin/env python3
"""Check tasks.json and held_out.json against the catalog.

Fails (exit 1) when a task names a tool that is not in the catalog, when an
entry is malformed, when a task text repeats (within or across the sets), or
when a development task and a held-out task are near-duplicates (word-set
Jaccard similarity >= 0.6). Prints each set's spread over servers.
Needs only the standard library:  python3 bench/search/validate_tasks.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fastmcp_bm25 import load_catalog  # noqa: E402  (fastmcp itself is not imported)

NEAR_DUP = 0.6


def words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.casefold()))


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def main() -> int:
    catalog = load_catalog()
    server_of = {name: server for server, name, _ in catalog}
    errors: list[str] = []
    sets = {}
    for set_name, file_name in (("dev", "tasks.json"), ("held_out", "held_out.json")):
        data = json.loads((HERE / file_name).read_text(encoding="utf-8"))
        if not isinstance(data, list):
            errors.append(f"{file_name}: not a JSON array")
            continue
        for i, item in enumerate(data):
            if not isinstance(item, dict) or set(item) != {"task", "tool"}:
                errors.append(f"{file_name}[{i}]: expected exactly the keys task, tool")
            elif item["tool"] not in server_of:
                errors.append(f"{file_name}[{i}]: tool {item['tool']!r} not in catalog")
        sets[set_name] = data

    all_texts = Counter(t["task"].strip().casefold() for d in sets.values() for t in d)
    for text, n in all_texts.items():
        if n > 1:
            errors.append(f"task repeated {n} times: {text!r}")

    for a in sets.get("dev", []):
        wa = words(a["task"])
        for b in sets.get("held_out", []):
            sim = jaccard(wa, words(b["task"]))
            if sim >= NEAR_DUP:
                errors.append(f"near-duplicate ({sim:.2f}): {a['task']!r} / {b['task']!r}")

    print(f"catalog: {len(catalog)} tools")
    for set_name, data in sets.items():
        spread = Counter(server_of.get(t["tool"], "?") for t in data)
        print(f"{set_name}: {len(data)} tasks, {len(spread)} servers, "
              f"{len({t['tool'] for t in data})} distinct tools")
        print("   " + ", ".join(f"{s}={n}" for s, n in spread.most_common()))
    for e in errors:
        print("ERROR:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
