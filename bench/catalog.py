"""The catalogs of bench/scale.sh and bench/search/cost.sh: the distinct
real tools of ../shared/manifests/ and ../shared/manifests/real/ (files
by name), then those of WORK/openapi-*.tools.json (what `mcpgen import
openapi` made of ../shared/openapi/), a name met again suffixed _2, _3, ...

    python3 bench/catalog.py SHARED WORK N...

writes WORK/tools-N.json for each N (the first N tools) and WORK/pool.json
(every tool); fails when fewer than N distinct tools exist.
"""

import json
import pathlib
import sys

shared, work = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
sizes = [int(n) for n in sys.argv[3:]]
files = sorted((shared / "manifests").glob("*.json")) + sorted((shared / "manifests" / "real").glob("*.json"))
files += sorted(work.glob("openapi-*.tools.json"))
pool, seen = [], set()
for path in files:
    for tool in json.loads(path.read_text()).get("tools", []):
        name, k = tool["name"], 2
        while tool["name"] in seen:
            tool = dict(tool, name=f"{name}_{k}")
            k += 1
        seen.add(tool["name"])
        pool.append(tool)
for n in sizes:
    if n > len(pool):
        sys.exit(f"bench/catalog.py: {n} tools asked for, and only {len(pool)} distinct real tools exist")
    (work / f"tools-{n}.json").write_text(json.dumps({"tools": pool[:n]}))
(work / "pool.json").write_text(json.dumps({"tools": pool}))
