#!/usr/bin/env python3
"""Count the MCP tools that neighbouring OpenAPI-to-MCP importers make.

  neighbours.py ops DOC                 operations (path, method) in DOC
  neighbours.py fastmcp DOC             FastMCP.from_openapi -> tools/list
  neighbours.py rmcp DOC BIN            rmcp-openapi-server BIN DOC -> tools/list
  neighbours.py table DIR [BIN]         all documents of DIR: a Markdown table,
                                        details in $NEIGHBOURS_OUT (a JSON file)

Each prints one JSON object on stdout: {"tools": N, "error": str|null, ...}.
A document that fails to load gives tools = 0 and the error.
Needs: PyYAML and fastmcp (whose Client also talks to rmcp-openapi-server over
streamable HTTP). The documents are read the same way for both tools: YAML
1.2-like (timestamps stay strings), then handed over as JSON data.
"""
import asyncio
import json
import logging
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def load(path):
    text = open(path, encoding="utf-8").read()
    if text.lstrip().startswith("{"):
        return json.loads(text)
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        k: [(t, rx) for t, rx in v if t != "tag:yaml.org,2002:timestamp"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    doc = yaml.load(text, Loader=Loader)
    # JSON round trip: integer keys such as 200 become "200", as in JSON.
    return json.loads(json.dumps(doc))


def operations(doc):
    ops = []
    for path, item in (doc.get("paths") or {}).items():
        if isinstance(item, dict):
            for m in METHODS:
                if isinstance(item.get(m), dict):
                    ops.append((path, m, item[m].get("operationId")))
    return ops


def summarize(tool_names, error=None, **extra):
    names = tool_names
    out = {
        "tools": len(names),
        "error": error,
        "long_names": sorted(n for n in names if len(n) > 64),
        "max_name_len": max((len(n) for n in names), default=0),
        "duplicates": len(names) - len(set(names)),
    }
    out.update(extra)
    return out


class Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f"{record.levelname}: {record.getMessage()}"[:300])


async def fastmcp_tools(path):
    import httpx2
    from fastmcp import Client, FastMCP

    cap = Capture()
    logging.getLogger("fastmcp").addHandler(cap)
    doc = load(path)
    try:
        server = FastMCP.from_openapi(
            openapi_spec=doc,
            client=httpx2.AsyncClient(base_url="http://127.0.0.1:9"),
        )
        async with Client(server) as c:
            tools = await c.list_tools()
        names = [t.name for t in tools]
        return summarize(names, None, warnings=len(cap.records), log=cap.records[:20],
                         names=names)
    except Exception as e:  # a document that fails to load counts as zero
        return summarize([], f"{type(e).__name__}: {str(e)[:400]}",
                         warnings=len(cap.records), log=cap.records[:20])
    finally:
        logging.getLogger("fastmcp").removeHandler(cap)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def rmcp_tools(path, binary, timeout=600):
    from fastmcp import Client

    doc = load(path)
    # rmcp-openapi-server reads JSON only (serde_json::from_str).
    tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(doc, tmp)
    tmp.close()
    port = free_port()
    log = tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(
        [binary, tmp.name, "--base-url", "http://127.0.0.1:9", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn"), NO_COLOR="1"),
    )
    t0 = time.monotonic()
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                text = log.read().strip().splitlines()
                text = [re.sub(r"^\S+Z\s+(ERROR|WARN)\s+\S+:\s*", "", l) for l in text[-3:]]
                return summarize([], f"exited {proc.returncode}: " + " | ".join(text)[:600])
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                pass
            if time.monotonic() - t0 > timeout:
                return summarize([], "timeout")
            await asyncio.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp") as c:
            tools = await c.list_tools()
        names = [t.name for t in tools]
        log.seek(0)
        warn = [l for l in log.read().splitlines() if "WARN" in l or "ERROR" in l]
        return summarize(names, None, warnings=len(warn), log=warn[:20], names=names,
                         startup_s=round(time.monotonic() - t0, 2))
    except Exception as e:
        return summarize([], f"{type(e).__name__}: {str(e)[:400]}")
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        os.unlink(tmp.name)


DOCS = [
    "oai-petstore.yaml", "swagger-petstore31.yaml", "netlify-api.yml",
    "figma-rest-api.yaml", "twilio-verify-v2.json",
    "pinecone-db-control-2025-10.yaml", "lob-api.yml", "box-api-v2025.json",
    "stripe-api.yaml",
]


def cell(r):
    if r is None:
        return "not run"
    if r["error"]:
        return "0 (fails, see below)"
    s = str(r["tools"])
    notes = []
    if r["long_names"]:
        notes.append(f"{len(r['long_names'])} name(s) > 64 chars")
    if r["duplicates"]:
        notes.append(f"{r['duplicates']} duplicate name(s)")
    if r.get("warnings"):
        notes.append(f"{r['warnings']} warning(s)")
    return s + (f" ({'; '.join(notes)})" if notes else "")


def table(folder, binary):
    results = {}
    total = {"ops": 0, "rmcp": 0, "fastmcp": 0}
    print("| document | operations | rmcp-openapi tools | FastMCP tools |")
    print("|---|---|---|---|")
    for name in DOCS:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        ops = len(operations(load(path)))
        t0 = time.monotonic()
        fm = asyncio.run(fastmcp_tools(path))
        fm["seconds"] = round(time.monotonic() - t0, 1)
        rm = None
        if binary:
            t0 = time.monotonic()
            rm = asyncio.run(rmcp_tools(path, binary))
            rm["seconds"] = round(time.monotonic() - t0, 1)
        results[name] = {"operations": ops, "fastmcp": fm, "rmcp": rm}
        total["ops"] += ops
        total["fastmcp"] += fm["tools"]
        total["rmcp"] += rm["tools"] if rm else 0
        print(f"| {name} | {ops} | {cell(rm)} | {cell(fm)} |", flush=True)
    print(f"| **total** | {total['ops']} | {total['rmcp'] if binary else 'not run'} | {total['fastmcp']} |")
    print()
    for name, r in results.items():
        for tool in ("rmcp", "fastmcp"):
            x = r[tool]
            if x and x["error"]:
                print(f"- {name}, {tool}: {' '.join(x['error'].split())[:300]}")
            if x and x["long_names"]:
                print(f"- {name}, {tool}: names over 64 chars: {', '.join(x['long_names'])}")
    out = os.environ.get("NEIGHBOURS_OUT")
    if out:
        with open(out, "w") as f:
            json.dump(results, f, indent=1)


def main(argv):
    mode, path = argv[1], argv[2]
    if mode == "ops":
        ops = operations(load(path))
        print(json.dumps({"operations": len(ops),
                          "ids": [o[2] or f"{o[1].upper()} {o[0]}" for o in ops]}))
    elif mode == "fastmcp":
        logging.basicConfig(level=logging.CRITICAL)
        print(json.dumps(asyncio.run(fastmcp_tools(path))))
    elif mode == "rmcp":
        print(json.dumps(asyncio.run(rmcp_tools(path, argv[3]))))
    elif mode == "table":
        logging.basicConfig(level=logging.CRITICAL)
        table(path, argv[3] if len(argv) > 3 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
