#!/usr/bin/env python3
"""Tool-search retrieval benchmark, FastMCP side.

Builds the shared catalog (see README.md), registers every tool on a FastMCP
server unchanged (name, title, description, inputSchema, annotations), hides
the catalog behind FastMCP's BM25SearchTransform, and asks the `search_tools`
tool through FastMCP's in-memory client, once per task, exactly as an agent
would. Prints recall@5 and MRR (over the top MAX_RESULTS) for the development
set (tasks.json) and the judging set (held_out.json).

Run with the venv that has fastmcp installed:
    /work/venv-fastmcp/bin/python bench/search/fastmcp_bm25.py [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# ../shared beside the repository, or MCPGEN_SHARED.
DEFAULT_MANIFESTS = Path(os.environ.get("MCPGEN_SHARED", HERE.parents[1].parent / "shared")) / "manifests"
MAX_RESULTS = 50  # ranks beyond this count as "not found" (reciprocal rank 0)
TOP_K = 5


def load_catalog(manifests: Path = DEFAULT_MANIFESTS) -> list[tuple[str, str, dict]]:
    """The catalog rule, shared with the Rust side.

    manifests/*.json sorted by file name, then manifests/real/*.json sorted by
    file name; tools in file order, then array order; a name already taken by
    an earlier tool becomes the first free of name_2, name_3, ...

    Returns (server, final_name, tool_object) triples in catalog order.
    """
    root = Path(manifests)
    files = sorted(root.glob("*.json"), key=lambda p: p.name)
    files += sorted((root / "real").glob("*.json"), key=lambda p: p.name)
    taken: set[str] = set()
    catalog = []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        for tool in data["tools"]:
            name = tool["name"]
            if name in taken:
                k = 2
                while f"{name}_{k}" in taken:
                    k += 1
                name = f"{name}_{k}"
            taken.add(name)
            catalog.append((path.stem, name, tool))
    return catalog


def load_tasks(path: Path) -> list[dict]:
    tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(tasks, list):
        raise SystemExit(f"{path}: expected a JSON array")
    return tasks


def build_server(catalog):
    """A FastMCP server holding every catalog tool, behind BM25 search."""
    from fastmcp import FastMCP
    from fastmcp.server.transforms.search import BM25SearchTransform
    from fastmcp.tools import Tool, ToolResult

    class CatalogTool(Tool):
        """A tool declared by a manifest: its schema as given, no body."""

        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            raise NotImplementedError(f"{self.name} is a catalog stub")

    server = FastMCP("tool-search-bench")
    for _server_name, name, tool in catalog:
        server.add_tool(
            CatalogTool(
                name=name,
                title=tool.get("title"),
                description=tool.get("description"),
                parameters=tool.get("inputSchema") or {"type": "object", "properties": {}},
                annotations=tool.get("annotations"),
            )
        )
    server.add_transform(BM25SearchTransform(max_results=MAX_RESULTS))
    return server


def ranked_names(result) -> list[str]:
    """Tool names, best first, from a `search_tools` CallToolResult.

    The default serializer returns a list of MCP Tool dicts; FastMCP wraps a
    non-object return as structured content {"result": [...]}, and also sends
    it as one JSON text block. Prefer the structured form, fall back to text.
    """
    payload = None
    if result.structured_content is not None:
        payload = result.structured_content.get("result", result.structured_content)
    else:
        texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
        payload = json.loads("".join(texts)) if texts else []
    if isinstance(payload, str):  # e.g. a markdown serializer; not used here
        raise SystemExit("search_tools returned text, expected a list of tools")
    return [t["name"] for t in payload]


async def run_sets(server, sets: dict[str, list[dict]]) -> dict[str, list[dict]]:
    from fastmcp import Client

    out: dict[str, list[dict]] = {}
    async with Client(server) as client:
        listed = [t.name for t in await client.list_tools()]
        if "search_tools" not in listed:
            raise SystemExit(f"search_tools not listed; got {listed}")
        for set_name, tasks in sets.items():
            rows = []
            for item in tasks:
                result = await client.call_tool("search_tools", {"query": item["task"]})
                names = ranked_names(result)
                rank = names.index(item["tool"]) + 1 if item["tool"] in names else None
                rows.append({"task": item["task"], "tool": item["tool"],
                             "rank": rank, "top": names[:TOP_K]})
            out[set_name] = rows
    return out


def score(rows: list[dict]) -> dict[str, Any]:
    n = len(rows)
    hits = sum(1 for r in rows if r["rank"] is not None and r["rank"] <= TOP_K)
    rr = sum(1.0 / r["rank"] for r in rows if r["rank"] is not None)
    return {"tasks": n,
            "recall_at_5": round(hits / n, 4) if n else 0.0,
            "mrr": round(rr / n, 4) if n else 0.0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifests", type=Path, default=DEFAULT_MANIFESTS)
    ap.add_argument("--dev", type=Path, default=HERE / "tasks.json")
    ap.add_argument("--held-out", type=Path, default=HERE / "held_out.json")
    ap.add_argument("--verbose", action="store_true",
                    help="also print each task's rank and top 5 (to stderr)")
    args = ap.parse_args(argv)

    import fastmcp

    catalog = load_catalog(args.manifests)
    names = {name for _, name, _ in catalog}
    sets = {"dev": load_tasks(args.dev), "held_out": load_tasks(args.held_out)}
    for set_name, tasks in sets.items():
        missing = [t["tool"] for t in tasks if t["tool"] not in names]
        if missing:
            raise SystemExit(f"{set_name}: tools not in catalog: {missing}")

    server = build_server(catalog)
    results = asyncio.run(run_sets(server, sets))

    if args.verbose:
        for set_name, rows in results.items():
            for r in rows:
                rank = r["rank"] if r["rank"] is not None else "-"
                print(f"{set_name}\t{rank}\t{r['tool']}\t{r['task']}\t"
                      f"top5={','.join(r['top'])}", file=sys.stderr)

    report = {"fastmcp_version": fastmcp.__version__, "tools": len(catalog)}
    for set_name, rows in results.items():
        report[set_name] = score(rows)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
