"""A dual-era reference peer: the official Python MCP SDK (2.3, from .peers/py)
serving the conformance suite's tool fixtures over Streamable HTTP or stdio.

Unlike the TypeScript SDK 1.x, the Python SDK 2.3 speaks both eras on one
endpoint: the initialize handshake (up to 2025-11-25, with sessions) and the
stateless 2026-07-28 per-request envelope (server/discover, _meta, caching
hints, HTTP status mapping of JSON-RPC errors). That makes it the reference
to compare mcpgen's 2026-07-28 server with.

    .peers/py/bin/python tests/interop/peers/py_http_server.py [--port N] [--json]
    .peers/py/bin/python tests/interop/peers/py_http_server.py --stdio

HTTP: binds 127.0.0.1 (--port 0, the default, picks a free port) and prints
the endpoint URL (http://127.0.0.1:PORT/mcp) as the first line on stdout.
--json answers with application/json instead of SSE where the SDK can.
--trace-file FILE records the SDK's OpenTelemetry spans (one per request,
continuing the trace context in _meta) in FILE as JSON lines (py_trace.py).

Tools: test_simple_text, test_image_content, test_audio_content,
test_embedded_resource, test_multiple_content_types, test_error_handling,
test_tool_with_progress, test_tool_with_logging, test_logging_tool,
test_missing_capability, add_numbers {a, b}, echo {text}.
"""

from __future__ import annotations

import argparse
import base64
import socket
import sys

import anyio
import uvicorn
from mcp_types import (
    AudioContent,
    CallToolResult,
    ClientCapabilities,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
assert base64.b64decode(PNG) and base64.b64decode(WAV)

mcp = MCPServer("mcpgen-py-reference-peer", version="1.0.0")


def text(t: str) -> TextContent:
    return TextContent(type="text", text=t)


@mcp.tool(description="Returns one text item")
def test_simple_text() -> CallToolResult:
    return CallToolResult(content=[text("This is a simple text response for testing.")])


@mcp.tool(description="Returns one PNG image")
def test_image_content() -> CallToolResult:
    return CallToolResult(content=[ImageContent(type="image", data=PNG, mime_type="image/png")])


@mcp.tool(description="Returns one WAV clip")
def test_audio_content() -> CallToolResult:
    return CallToolResult(content=[AudioContent(type="audio", data=WAV, mime_type="audio/wav")])


def embedded(uri: str, mime: str, body: str) -> EmbeddedResource:
    return EmbeddedResource(type="resource", resource=TextResourceContents(uri=uri, mime_type=mime, text=body))


@mcp.tool(description="Returns an embedded text resource")
def test_embedded_resource() -> CallToolResult:
    return CallToolResult(
        content=[embedded("test://embedded-resource", "text/plain", "This is an embedded resource content.")]
    )


@mcp.tool(description="Returns text, image and resource")
def test_multiple_content_types() -> CallToolResult:
    return CallToolResult(
        content=[
            text("Multiple content types test:"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            embedded("test://mixed-content-resource", "application/json", '{"test":"data","value":123}'),
        ]
    )


@mcp.tool(description="Always fails with isError")
def test_error_handling() -> CallToolResult:
    return CallToolResult(is_error=True, content=[text("This tool intentionally returns an error for testing")])


@mcp.tool(description="Reports progress 0, 50, 100 of 100")
async def test_tool_with_progress(ctx: Context) -> CallToolResult:
    for progress in (0, 50, 100):
        await ctx.report_progress(progress, 100)
        if progress < 100:
            await anyio.sleep(0.05)
    return CallToolResult(content=[text("Progress test completed")])


async def three_logs(ctx: Context) -> CallToolResult:
    for i, message in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if i:
            await anyio.sleep(0.05)
        await ctx.info(message)
    return CallToolResult(content=[text("Logging test completed")])


@mcp.tool(description="Logs three info messages (handshake-era fixture)")
async def test_tool_with_logging(ctx: Context) -> CallToolResult:
    return await three_logs(ctx)


@mcp.tool(description="Logs three info messages (2026-07-28: only when the request opts in with a logLevel)")
async def test_logging_tool(ctx: Context) -> CallToolResult:
    return await three_logs(ctx)


@mcp.tool(description="Needs the client's sampling capability; -32021 without it")
def test_missing_capability(ctx: Context) -> CallToolResult:
    caps = ctx.client_capabilities
    if caps is None or caps.sampling is None:
        required = ClientCapabilities.model_validate({"sampling": {}})
        raise MCPError(
            code=-32021,
            message="Client did not declare the sampling capability",
            data={"requiredCapabilities": required.model_dump(by_alias=True, mode="json", exclude_none=True)},
        )
    return CallToolResult(content=[text("sampling declared")])


@mcp.tool(description="Adds two numbers")
def add_numbers(a: float, b: float) -> str:
    return f"The sum of {a:g} and {b:g} is {a + b:g}"


@mcp.tool(description="Echoes its text")
def echo(text: str) -> str:
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stdio", action="store_true", help="serve over stdio instead of HTTP")
    parser.add_argument("--port", type=int, default=0, help="HTTP port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--json", action="store_true", help="JSON responses instead of SSE")
    parser.add_argument(
        "--trace-file", metavar="FILE", help="record the server's OpenTelemetry spans in FILE (py_trace.py)"
    )
    args = parser.parse_args()
    if args.trace_file:
        import py_trace

        py_trace.install(args.trace_file)
    if args.stdio:
        mcp.run("stdio")
        return
    # Bind first so that the URL can be printed before serving (port 0 = any).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    app = mcp.streamable_http_app(json_response=args.json, host="127.0.0.1")
    print(f"http://127.0.0.1:{port}/mcp", flush=True)
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
