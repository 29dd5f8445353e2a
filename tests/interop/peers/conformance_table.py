"""Summarises a conformance results folder as a table, one row per scenario.

The suite (tests/interop/peers/conformance.sh server|client ... -o DIR) writes
DIR/server-<scenario>-<timestamp>/checks.json (client runs: DIR/<scenario>-
<timestamp>/checks.json; any depth below DIR is searched): a JSON array of checks, each with "id", "name",
"status" (SUCCESS, FAILURE, WARNING, SKIPPED or INFO), "description" and, when
not SUCCESS, usually "errorMessage".

    python3 tests/interop/peers/conformance_table.py DIR            # table
    python3 tests/interop/peers/conformance_table.py DIR --checks   # + every non-passing check
    python3 tests/interop/peers/conformance_table.py DIR --json     # one JSON object per scenario

Exit status: 1 when any check is FAILURE, else 0 (WARNING does not fail,
like the suite's own exit status without a baseline). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")


def scenario_of(folder: Path) -> str:
    name = STAMP.sub("", folder.name)
    if folder.parent.name == "auth":  # client scenarios named auth/<x> nest one folder deeper
        name = f"auth/{name}"
    return name[len("server-") :] if name.startswith("server-") else name


def load(results: Path) -> list[dict]:
    rows: dict[str, dict] = {}
    # Sorted by name, so that a later run of the same scenario (later stamp) wins.
    for checks_file in sorted(results.rglob("checks.json"), key=lambda f: f.parent.name):
        checks = json.loads(checks_file.read_text())
        counts = {s: 0 for s in ("SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO")}
        for check in checks:
            counts[check.get("status", "INFO")] = counts.get(check.get("status", "INFO"), 0) + 1
        scenario = scenario_of(checks_file.parent)
        rows[scenario] = {
            "scenario": scenario,
            "passed": counts["SUCCESS"],
            "failed": counts["FAILURE"],
            "warnings": counts["WARNING"],
            "skipped": counts["SKIPPED"],
            "not_passing": [
                {"id": c.get("id"), "name": c.get("name"), "status": c.get("status"), "error": c.get("errorMessage")}
                for c in checks
                if c.get("status") in ("FAILURE", "WARNING")
            ],
        }
    return list(rows.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="the folder given to the suite with -o")
    parser.add_argument("--checks", action="store_true", help="list every failing or warning check")
    parser.add_argument("--json", action="store_true", help="JSON lines instead of a table")
    args = parser.parse_args()
    rows = load(args.results)
    if not rows:
        print(f"conformance_table: no checks.json under {args.results}", file=sys.stderr)
        return 2
    if args.json:
        for row in rows:
            print(json.dumps(row))
    else:
        width = max(len("scenario"), *(len(r["scenario"]) for r in rows))
        print(f"{'scenario':<{width}}  passed  failed  warnings  skipped")
        for r in rows:
            print(f"{r['scenario']:<{width}}  {r['passed']:>6}  {r['failed']:>6}  {r['warnings']:>8}  {r['skipped']:>7}")
            if args.checks:
                for c in r["not_passing"]:
                    error = (c["error"] or "").replace("\n", " ")
                    print(f"    {c['status']}: {c['id']} ({c['name']}): {error[:300]}")
    return 1 if any(r["failed"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
