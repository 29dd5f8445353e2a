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

    # DPoP: a well-formed header (ES256, a public jwk) with claims, unsigned;
    # and real proofs made by the target itself (odd first byte: method,
    # URL, token, then the byte to alter).
    def b64(value: bytes) -> str:
        import base64
        return base64.urlsafe_b64encode(value).rstrip(b"=").decode()
    header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}}
    claims = {"jti": "e1j3V_bKic8-LAEB", "htm": "POST", "htu": "https://mcp.example.com/mcp", "iat": 1760000000, "ath": "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"}
    put(corpus, "dpop", b"\x00" + f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}.AAAA".encode())
    put(corpus, "dpop", b"\x01POST\nhttps://mcp.example.com/mcp\ntoken\n")
    put(corpus, "dpop", b"\x03POST\nhttps://mcp.example.com/mcp?x=1\ntoken\nz")
    put(corpus, "dpop", b"\x05GET\nhttps://mcp.example.com/mcp\ntoken\n")
    # OAuth documents as servers send them.
    put(corpus, "oauth_documents", json.dumps({"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"], "scopes_supported": ["files:read"], "dpop_bound_access_tokens_required": True}).encode())
    put(corpus, "oauth_documents", json.dumps({"issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize", "token_endpoint": "https://auth.example.com/token", "code_challenge_methods_supported": ["S256"], "dpop_signing_alg_values_supported": ["ES256"], "grant_types_supported": ["authorization_code", "client_credentials"]}).encode())
    put(corpus, "oauth_documents", json.dumps({"access_token": "abc", "token_type": "DPoP", "expires_in": 3600, "refresh_token": "r", "scope": "files:read"}).encode())
    put(corpus, "oauth_documents", json.dumps({"access_token": "idjag", "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"}).encode())

    # A stdio server's turns (blank-line separated; $ID is the request's id):
    # a good handshake and answers; a server request and a notification
    # before the answer; an error; a wrong id, then garbage.
    init_result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
    good = [
        json.dumps({"jsonrpc": "2.0", "id": "$ID", "result": init_result}).replace('"$ID"', "$ID"),
        json.dumps({"jsonrpc": "2.0", "id": "$ID", "result": {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}}).replace('"$ID"', "$ID"),
        json.dumps({"jsonrpc": "2.0", "id": "$ID", "result": {"content": [{"type": "text", "text": "hi"}]}}).replace('"$ID"', "$ID"),
    ]
    put(corpus, "client_stdio", "\n\n".join(good).encode())
    noisy = [
        good[0],
        json.dumps({"jsonrpc": "2.0", "id": 99, "method": "sampling/createMessage", "params": {}}) + "\n" + json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}) + "\n" + good[1],
        json.dumps({"jsonrpc": "2.0", "id": "$ID", "error": {"code": -32602, "message": "no"}}).replace('"$ID"', "$ID"),
    ]
    put(corpus, "client_stdio", "\n\n".join(noisy).encode())
    put(corpus, "client_stdio", (good[0] + "\n\n" + json.dumps({"jsonrpc": "2.0", "id": 123456789, "result": {}}) + "\nnot json\n[[[[").encode())

    # An HTTP server's answers, one per request, NUL-separated (first byte:
    # even 2025-11-25, odd 2026-07-28; $ID is the request's id, $LEN the
    # body's length, a leading ! closes the connection after the answer).
    def answer(status: str, headers: list, body: bytes = b"", chunked: bool = False, close: bool = False) -> bytes:
        head = [f"HTTP/1.1 {status}"] + headers
        if chunked:
            head.append("transfer-encoding: chunked")
            middle = len(body) // 2
            parts = [body[:middle], body[middle:]]
            body = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts if part) + b"0\r\n\r\n"
        else:
            head.append("content-length: $LEN")
        return (b"!" if close else b"") + "\r\n".join(head).encode() + b"\r\n\r\n" + body

    def rpc(result=None, error=None) -> bytes:
        message = {"jsonrpc": "2.0", "id": "$ID"}
        message.update({"error": error} if error is not None else {"result": result})
        return json.dumps(message).replace('"$ID"', "$ID").encode()

    def sse(*events: bytes) -> bytes:
        return b"".join(events)

    as_json = ["content-type: application/json"]
    as_sse = ["content-type: text/event-stream", "cache-control: no-cache"]
    tools = {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "x-mcp-header": "Text"}}}}]}
    called = {"content": [{"type": "text", "text": "hi"}], "isError": False}
    listed = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).encode()
    stateful = [
        answer("200 OK", as_json + ["mcp-session-id: s-1"], rpc(init_result)),
        answer("202 Accepted", []),
        answer("405 Method Not Allowed", ["allow: POST, DELETE"]),
        answer("200 OK", as_sse, sse(b": hello\n\n", b"id: e-1\nretry: 10\ndata: " + listed + b"\n\n", b"id: e-2\ndata: " + rpc(tools) + b"\n\n"), chunked=True),
        answer("200 OK", as_json, rpc(called), chunked=True),
        answer("200 OK", as_json, rpc({})),
        answer("204 No Content", [], close=True),
    ]
    put(corpus, "client_http", b"\x00" + b"\x00".join(stateful))
    discovered = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
    mismatch = {"code": -32020, "message": "header mismatch: Mcp-Param-Text"}
    stateless = [
        answer("200 OK", as_json, rpc(discovered)),
        answer("200 OK", as_sse, sse(b"data: " + rpc(tools) + b"\n\n")),
        answer("400 Bad Request", as_json, rpc(error=mismatch)),
        answer("200 OK", as_json, rpc(tools)),
        answer("200 OK", as_sse, sse(b"event: message\r\ndata: " + rpc(called) + b"\r\n\r\n"), chunked=True),
        answer("200 OK", as_json, rpc({})),
    ]
    put(corpus, "client_http", b"\x01" + b"\x00".join(stateless))
    # What goes wrong: a stream that ends before its response and is
    # resumed, a body cut short, a chunk size that lies, an error status
    # with and without a JSON-RPC body, a redirect, an authorization
    # challenge, a status line that is not one, an answer for another id.
    broken = [
        answer("200 OK", as_json + ["mcp-session-id: s-2"], rpc(init_result)),
        answer("202 Accepted", []),
        answer("200 OK", as_sse, sse(b"id: 1\nretry: 5\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n"), close=True),
        answer("200 OK", as_sse, sse(b"id: 2\ndata: " + rpc(tools) + b"\n\n")),
        b"!HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n{\"jsonrpc\":\"2.0\",",
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nfffffffffff\r\n{}\r\n",
        answer("500 Internal Server Error", as_json, rpc(error={"code": -32603, "message": "boom", "data": {"x": [1, 2]}})),
    ]
    put(corpus, "client_http", b"\x02" + b"\x00".join(broken))
    refused = [
        answer("401 Unauthorized", ['www-authenticate: Bearer resource_metadata="http://mcp.test/.well-known/oauth-protected-resource"']),
        answer("302 Found", ["location: http://elsewhere.test/mcp"]),
        answer("404 Not Found", ["content-type: text/plain"], b"no such endpoint"),
        b"HTTP/1.1 abc\r\n\r\n",
        answer("200 OK", as_json, json.dumps({"jsonrpc": "2.0", "id": 424242, "result": {}}).encode()),
        b"!not http at all",
    ]
    put(corpus, "client_http", b"\x03" + b"\x00".join(refused))
    put(corpus, "client_http", b"\x00" + b"\x00".join(refused))


if __name__ == "__main__":
    main()
