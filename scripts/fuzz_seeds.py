"""Seeds the fuzz corpora (one file per input) from the specification
mirror and the repository's manifests. Usage: fuzz_seeds.py MIRROR CORPUS."""

import hashlib
import json
import sys
from pathlib import Path

REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]


def put(corpus: Path, target: str, data: bytes) -> None:
    folder = corpus / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ("seed-" + hashlib.sha1(data).hexdigest())).write_bytes(data)


def main() -> None:
    mirror, corpus = Path(sys.argv[1]), Path(sys.argv[2])
    repo = Path(__file__).resolve().parent.parent
    for index, rev in enumerate(REVISIONS):
        doc = mirror / rev / "doc-examples.json"
        if doc.is_file():
            for entry in json.loads(doc.read_text()):
                text = json.dumps(entry["json"], separators=(",", ":"))
                if isinstance(entry["json"], dict) and "jsonrpc" in entry["json"]:
                    put(corpus, "jsonrpc", text.encode())
        examples = mirror / rev / "examples"
        if examples.is_dir():
            for path in sorted(examples.glob("*/*.json")):
                body = json.dumps(json.loads(path.read_text()), separators=(",", ":"))
                put(corpus, "protocol", bytes([index]) + path.parent.name.encode() + b"\n" + body.encode())
                if path.parent.name.startswith("JSONRPC") or path.parent.name.endswith(("Request", "Notification")):
                    put(corpus, "jsonrpc", body.encode())
    manifests = list((repo.parent / "shared" / "manifests").glob("*.json"))
    manifests += list((repo / "examples").glob("*/tools.json"))
    for path in manifests:
        text = path.read_bytes()
        put(corpus, "manifest", b"\x00" + text)
        for tool in json.loads(text).get("tools", []):
            for key in ("inputSchema", "outputSchema"):
                if key in tool:
                    put(corpus, "generate", json.dumps(tool[key]).encode())
    # Tool names whose type names typify spells its own way (`x-name`
    # names the fuzzed tool).
    for name in ("get_a_b", "x_1_y", "2fa", "type"):
        put(corpus, "generate", json.dumps({"type": "object", "x-name": name}).encode())
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}}
    heads = {
        "modern": "content-type: application/json\naccept: application/json, text/event-stream\n"
                  "mcp-protocol-version: 2026-07-28\nmcp-method: tools/call\nmcp-name: echo\nmcp-param-text: hi",
        "legacy": "content-type: application/json\naccept: application/json, text/event-stream",
    }
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "f", "version": "1"}}}
    put(corpus, "http", b"\x00" + heads["modern"].encode() + b"\n\n" + json.dumps(call).encode())
    put(corpus, "http", b"\x00" + heads["legacy"].encode() + b"\n\n" + json.dumps(init).encode())
    put(corpus, "http", b"\x01accept: text/event-stream\nmcp-session-id: x\n\n")
    put(corpus, "jsonrpc", (json.dumps(init) + "\n" + json.dumps(call)).encode())
    # Event streams as servers send them: a BOM, comments, CRLF and CR line
    # ends, an id and retry, an event of two data lines.
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}})
    put(corpus, "sse", b"\x07" + f"id: 7\nretry: 1500\ndata: {message}\n\n".encode())
    put(corpus, "sse", b"\x20\xef\xbb\xbf: keep-alive\r\nevent: message\r\ndata: a\r\ndata: b\r\n\r\n")
    put(corpus, "sse", b"\x03data: one\rdata: two\r\rdata:x")
    put(corpus, "challenge", b'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"')
    put(corpus, "challenge", b'Basic realm="x", Bearer error="insufficient_scope", error_description="need \\"more\\"", scope="a b"\nDPoP algs="ES256"')


if __name__ == "__main__":
    main()
