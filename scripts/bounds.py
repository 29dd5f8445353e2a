"""Bounded resources, measured (issue 13, item 4): peak memory (VmHWM of the
process, from wait4) and wall time of the generator on the largest hostile
inputs, and of a generated server under a flood of oversized and unread
messages on stdio and over Streamable HTTP.

Usage: python3 scripts/bounds.py [--bin DIR]   (default DIR: target/release,
else target/debug; needs the mcpgen and weather-server binaries built:
cargo build --release -p mcpgen -p weather-server). Prints a markdown table.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024


def run(cmd, stdin_data=None):
    """Runs cmd to completion under GNU time (so that the peak is the
    command's own: ru_maxrss survives exec, and this script is large);
    returns (exit status, seconds, peak RSS MiB, last line of stderr)."""
    with tempfile.NamedTemporaryFile("r") as stats:
        start = time.monotonic()
        proc = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%M", "-o", stats.name] + cmd,
                                stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if stdin_data is not None:
            threading.Thread(target=feed, args=(proc.stdin, stdin_data), daemon=True).start()
        err = proc.stderr.read().decode(errors="replace").strip().splitlines()
        proc.wait()
        secs = time.monotonic() - start
        kib = int(stats.read().split()[-1])
    return proc.returncode, secs, kib / 1024, (err[-1] if err else "")


def feed(pipe, chunks):
    try:
        for chunk in chunks:
            pipe.write(chunk)
        pipe.close()
    except (BrokenPipeError, OSError):
        pass


def billion_laughs():
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for prev, name in zip("abcdefgh", "bcdefghi"):
        text += f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
    return text + "tools: [{name: t, inputSchema: {type: object}}]\n"


def long_and_deep():
    deep = {"type": "string"}
    for _ in range(60):
        deep = {"type": "object", "properties": {"c": deep}}
    return {"tools": [{"name": "long", "description": "d\n" * 200_000, "inputSchema": {
        "type": "object", "title": "T" * 100_000,
        "properties": {"p" * 100_000: {"type": "string"}, "deep": deep}}}]}


def ref_chain(links):
    defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(links)}
    defs[f"d{links}"] = {"type": "object", "properties": {"x": {"type": "integer"}}}
    return {"tools": [{"name": "chain", "inputSchema": {
        "type": "object", "properties": {"v": {"$ref": "#/$defs/d0"}}, "$defs": defs}}]}


def many_tools(count):
    props = {f"field_{i}": {"type": "string", "description": "x" * 200} for i in range(20)}
    return {"tools": [{"name": f"tool_{i}", "description": "y" * 500,
                       "inputSchema": {"type": "object", "properties": props, "required": ["field_0"]}}
                      for i in range(count)]}


def generator_rows(mcpgen, tmp):
    shared = REPO.parent / "shared" / "manifests" / "github.json"
    inputs = [
        ("billion laughs (606-byte YAML)", "laughs.yaml", billion_laughs()),
        ("100,000-char name and title, 60-level nesting, 200,000-line description", "long.json",
         json.dumps(long_and_deep())),
        ("$ref chain of 10,000 links", "chain.json", json.dumps(ref_chain(10_000))),
        ("2,000 tools of 20 properties (26 MB)", "many.json", json.dumps(many_tools(2_000))),
    ]
    if shared.is_file():
        inputs.append(("github.json (shared real manifest)", "github.json", shared.read_text()))
    rows = []
    for label, name, text in inputs:
        path = tmp / name
        path.write_text(text)
        size = path.stat().st_size
        for command in (["manifest", "check", str(path)],
                        ["generate", "--manifest", str(path), "--out", str(tmp / ("out-" + name))]):
            status, secs, rss, last = run([str(mcpgen)] + command)
            outcome = "ok" if status == 0 else f"exit {status}: {last[:90]}"
            rows.append((f"`mcpgen {command[0]}{' check' if command[0] == 'manifest' else ''}`", label,
                         f"{size / 1024:,.1f} KiB", outcome, f"{secs:.2f} s", f"{rss:.1f} MiB"))
    return rows


def stdio_flood(server):
    """40 lines of 40 MiB each (over the 32 MiB cap), then a valid ping."""
    line = b"[" + b"1," * (20 * MIB) + b"1]\n"
    init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bounds", "version": "1"}}}).encode() + b"\n"
    chunks = [init] + [line] * 40 + [b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n']
    status, secs, rss, _ = run([str(server)], stdin_data=chunks)
    return ("stdio", "initialize, 40 lines of 40 MiB (1.6 GB in all), ping, EOF", f"exit {status}",
            f"{secs:.2f} s", f"{rss:.1f} MiB")


def http_flood(server):
    """Oversized bodies (declared and chunked) and requests whose answers
    are never read, from 64 connections at once."""
    proc = subprocess.Popen([str(server), "--http", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    addr = None
    for raw in proc.stderr:
        text = raw.decode(errors="replace")
        if "http://" in text:
            addr = text.split("http://", 1)[1].split("/", 1)[0]
            break
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    host, port = addr.rsplit(":", 1)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "get_forecast", "arguments": {"city": "Oslo"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            "Mcp-Method: tools/call\r\nMcp-Name: get_forecast\r\n")

    def oversized(declared):
        try:
            with socket.create_connection((host, int(port))) as s:
                if declared:
                    s.sendall(head.encode() + f"Content-Length: {64 * MIB}\r\n\r\n".encode())
                else:
                    s.sendall(head.encode() + b"Transfer-Encoding: chunked\r\n\r\n")
                chunk = b"x" * MIB
                frame = chunk if declared else f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
                for _ in range(64):
                    s.sendall(frame)
        except OSError:
            pass  # the server answered 413 and closed: what it should do

    def unread():
        try:
            s = socket.create_connection((host, int(port)))
            req = head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
            s.sendall(req * 2_000)  # pipelined; the answers are never read
            time.sleep(2)
            s.close()
        except OSError:
            pass

    threads = [threading.Thread(target=oversized, args=(i % 2 == 0,)) for i in range(32)]
    threads += [threading.Thread(target=unread) for _ in range(32)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.monotonic() - start
    # Still serving: one ordinary call.
    with socket.create_connection((host, int(port))) as s:
        s.sendall(head.encode() + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    ok = answer.startswith(b"HTTP/1.1 200")
    with open(f"/proc/{proc.pid}/status") as f:
        hwm = next(line for line in f if line.startswith("VmHWM")).split()[1]
    proc.terminate()
    proc.wait()
    return ("HTTP", "64 connections: 32 × 64 MiB bodies (declared or chunked), 32 × 2,000 pipelined calls never read",
            "a call after it: " + ("200" if ok else "FAILED"), f"{secs:.2f} s", f"{int(hwm) / 1024:.1f} MiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path)
    args = parser.parse_args()
    bindir = args.bin or next((REPO / "target" / p for p in ("release", "debug")
                               if (REPO / "target" / p / "weather-server").is_file()), None)
    if bindir is None:
        sys.exit("bounds.py: build first: cargo build --release -p mcpgen -p weather-server")
    env_note = f"binaries from {bindir.relative_to(REPO) if bindir.is_relative_to(REPO) else bindir}"
    with tempfile.TemporaryDirectory() as tmp:
        rows = generator_rows(bindir / "mcpgen", Path(tmp))
    print(f"Generator ({env_note}):\n")
    print("| command | input | size | outcome | time | peak RSS |\n| --- | --- | ---: | --- | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nServer, examples/weather-server ({env_note}):\n")
    print("| transport | flood | outcome | time | peak RSS |\n| --- | --- | --- | ---: | ---: |")
    for row in (stdio_flood(bindir / "weather-server"), http_flood(bindir / "weather-server")):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
