"""A client driver on the official Python MCP SDK (2.3, from .peers/py): connects
to a server over stdio or Streamable HTTP in a chosen protocol era, lists the
tools, calls tools, and prints one JSON object per line for each result.

    .peers/py/bin/python tests/interop/peers/py_client.py --mode MODE
        [--call NAME [--args JSON]]... [--allow-tool-error] [--no-list]
        [--surface] [--read URI]... [--prompt NAME [--prompt-args JSON]]...
        [--timeout SECONDS] (--url URL | --stdio CMD [ARGS...])

MODE (how the SDK's Client(mode=...) is set):
  2025-11-25  Client(mode="legacy"): the initialize handshake, offering
              2025-11-25 (the SDK's newest handshake version). Fails when the
              server negotiates another version.
  2026-07-28  Client(mode="2026-07-28"): the stateless per-request era, no
              handshake. The driver first sends server/discover itself
              (ClientSession.send_discover) and adopts its result, so a server
              without server/discover fails here (--no-discover skips it and
              adopts a synthesized result, as the SDK does by default).
  auto        Client(mode="auto"): server/discover, then initialize on a
              legacy server. The "connected" line tells which era won.

--context-calls adds the calls listed in the JSON of $MCP_CONFORMANCE_CONTEXT
under "toolCalls": [{"name": ..., "arguments": {...}}] (the conformance
suite's client mode sets it for scenarios such as http-custom-headers).

--stdio takes the rest of the command line as the server command. --url may
be the last option with its value left out: the conformance suite's client
mode appends the server URL as the last argument.

Output lines (stdout), in order:
  {"event": "connected", "mode": ..., "protocolVersion": ..., "era": "2026-07-28"|"handshake",
   "serverInfo": {...}|null, "capabilities": {...}}
  {"event": "tools/list", "tools": [<Tool as on the wire>...]}           (unless --no-list)
  {"event": "tools/call", "name": ..., "arguments": {...}, "result": <CallToolResult as on the wire>}
  {"event": "resources/list", "resources": [...]}, {"event": "resources/templates/list",
   "resourceTemplates": [...]}, {"event": "prompts/list", "prompts": [...]}  (with --surface)
  {"event": "resources/read", "uri": ..., "result": <ReadResourceResult as on the wire>}  (per --read)
  {"event": "prompts/get", "name": ..., "arguments": {...}, "result": <GetPromptResult as on the wire>}
  {"event": "error", "stage": ..., "error": "..."}                        (then exit 1)
--trace-file FILE records the SDK's OpenTelemetry spans (one per request, whose
context it sends in _meta) in FILE as JSON lines (see py_trace.py).
Exit status 0 when everything succeeded; 1 on any failure, including a tool
result with isError: true unless --allow-tool-error; 2 on usage errors. The
response cache of the SDK is off: every list and call reaches the server.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client
from mcp.client.stdio import StdioServerParameters

MODES = ("2025-11-25", "2026-07-28", "auto")


class DriverError(Exception):
    def __init__(self, stage: str, message: str) -> None:
        super().__init__(message)
        self.stage = stage


def emit(obj: dict[str, Any]) -> None:
    print(json.dumps(obj, ensure_ascii=False, sort_keys=True), flush=True)


def wire(model: Any) -> Any:
    """A pydantic model as it came on the wire: camelCase, only the fields that
    were set (no SDK defaults such as resultType filled in), no None fields."""
    if model is None:
        return None
    return model.model_dump(by_alias=True, mode="json", exclude_none=True, exclude_unset=True)


def describe(e: BaseException) -> str:
    """The leaf errors of an exception (task groups nest them), one per `; `."""
    subs = getattr(e, "exceptions", None)
    if subs:
        return "; ".join(describe(sub) for sub in subs)
    return f"{type(e).__name__}: {e}"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="py_client.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=MODES, default="auto", help="protocol era (default: auto)")
    parser.add_argument("--call", action="append", default=[], metavar="NAME", help="call this tool (repeatable)")
    parser.add_argument(
        "--args",
        action="append",
        default=[],
        metavar="JSON",
        help="arguments (a JSON object) for the preceding --call; default {}",
    )
    parser.add_argument(
        "--context-calls",
        action="store_true",
        help="also call the tools listed in $MCP_CONFORMANCE_CONTEXT's toolCalls (set by the conformance suite)",
    )
    parser.add_argument("--allow-tool-error", action="store_true", help="a result with isError: true is not a failure")
    parser.add_argument("--no-list", action="store_true", help="do not send tools/list")
    parser.add_argument(
        "--surface", action="store_true", help="list every resource, resource template and prompt"
    )
    parser.add_argument("--read", action="append", default=[], metavar="URI", help="read this resource (repeatable)")
    parser.add_argument("--prompt", action="append", default=[], metavar="NAME", help="get this prompt (repeatable)")
    parser.add_argument(
        "--prompt-args",
        action="append",
        default=[],
        metavar="JSON",
        help="arguments (a JSON object of strings) for the preceding --prompt; default {}",
    )
    parser.add_argument("--no-discover", action="store_true", help="--mode 2026-07-28: adopt without server/discover")
    parser.add_argument("--timeout", type=float, default=30.0, help="overall timeout in seconds (default 30)")
    parser.add_argument(
        "--trace-file", metavar="FILE", help="record the client's OpenTelemetry spans in FILE (py_trace.py)"
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--url", nargs="?", const="", metavar="URL", help="Streamable HTTP endpoint")
    target.add_argument("--stdio", nargs=argparse.REMAINDER, metavar="CMD", help="server command and its arguments")

    # Pair each --args with the --call before it, each --prompt-args with
    # the --prompt before it.
    calls: list[tuple[str, str]] = []
    prompts: list[tuple[str, str]] = []
    for i, arg in enumerate(argv):
        if arg == "--stdio":
            break
        if arg == "--call" and i + 1 < len(argv):
            calls.append((argv[i + 1], "{}"))
        elif arg == "--args" and i + 1 < len(argv):
            if not calls:
                parser.error("--args must follow a --call")
            calls[-1] = (calls[-1][0], argv[i + 1])
        elif arg == "--prompt" and i + 1 < len(argv):
            prompts.append((argv[i + 1], "{}"))
        elif arg == "--prompt-args" and i + 1 < len(argv):
            if not prompts:
                parser.error("--prompt-args must follow a --prompt")
            prompts[-1] = (prompts[-1][0], argv[i + 1])
    args = parser.parse_args(argv)
    if args.stdio is not None and not args.stdio:
        parser.error("--stdio needs a command")
    if args.url == "":
        parser.error("--url needs a URL")
    args.calls = []
    for name, raw in calls:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            parser.error(f"--args for {name} is not JSON: {e}")
        if not isinstance(value, dict):
            parser.error(f"--args for {name} must be a JSON object")
        args.calls.append((name, value))
    args.prompts = []
    for name, raw in prompts:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            parser.error(f"--prompt-args for {name} is not JSON: {e}")
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            parser.error(f"--prompt-args for {name} must be a JSON object of strings")
        args.prompts.append((name, value))
    if args.context_calls:
        try:
            context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}"))
            args.calls.extend((c["name"], c.get("arguments") or {}) for c in context.get("toolCalls", []))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
            parser.error(f"MCP_CONFORMANCE_CONTEXT has no usable toolCalls: {e}")
    return args


def make_client(args: argparse.Namespace) -> Client:
    if args.stdio is not None:
        # The whole environment, not the SDK's short default list, so that
        # the server sees what the test set (MCPGEN_*, RUST_LOG, ...).
        server: Any = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:], env=dict(os.environ))
    else:
        server = args.url
    mode = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28", "auto": "auto"}[args.mode]
    return Client(server, mode=mode, cache=None, client_info=types.Implementation(name="mcpgen-py-client", version="1.0.0"))


async def run(args: argparse.Namespace) -> int:
    stage = "connect"
    failed = False
    try:
        async with make_client(args) as client:
            session = client.session
            if args.mode == "2026-07-28" and not args.no_discover:
                stage = "server/discover"
                raw = await session.send_discover(args.mode)
                discovered = types.DiscoverResult.model_validate(raw)
                session.adopt(discovered)
            version = client.protocol_version
            era = "2026-07-28" if version in MODERN_PROTOCOL_VERSIONS else "handshake"
            emit(
                {
                    "event": "connected",
                    "mode": args.mode,
                    "protocolVersion": version,
                    "era": era,
                    "serverInfo": wire(client.server_info),
                    "capabilities": wire(client.server_capabilities),
                }
            )
            if args.mode == "2025-11-25" and version != "2025-11-25":
                raise DriverError("connect", f"asked for 2025-11-25, the server negotiated {version}")
            if not args.no_list:
                stage = "tools/list"
                tools: list[Any] = []
                cursor: str | None = None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(wire(t) for t in page.tools)
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                emit({"event": "tools/list", "tools": tools})
            for name, arguments in args.calls:
                stage = f"tools/call {name}"
                result = await client.call_tool(name, arguments)
                emit({"event": "tools/call", "name": name, "arguments": arguments, "result": wire(result)})
                if result.is_error and not args.allow_tool_error:
                    print(f"py_client: tool {name} returned isError: true", file=sys.stderr)
                    failed = True
            if args.surface:
                for method, key, attr, lister in (
                    ("resources/list", "resources", "resources", client.list_resources),
                    ("resources/templates/list", "resourceTemplates", "resource_templates", client.list_resource_templates),
                    ("prompts/list", "prompts", "prompts", client.list_prompts),
                ):
                    stage = method
                    items: list[Any] = []
                    cursor = None
                    while True:
                        page = await lister(cursor=cursor)
                        items.extend(wire(item) for item in getattr(page, attr))
                        cursor = page.next_cursor
                        if cursor is None:
                            break
                    emit({"event": method, key: items})
            for uri in args.read:
                stage = f"resources/read {uri}"
                emit({"event": "resources/read", "uri": uri, "result": wire(await client.read_resource(uri))})
            for name, arguments in args.prompts:
                stage = f"prompts/get {name}"
                result = await client.get_prompt(name, arguments)
                emit({"event": "prompts/get", "name": name, "arguments": arguments, "result": wire(result)})
    except DriverError as e:
        emit({"event": "error", "stage": e.stage, "error": str(e)})
        print(f"py_client: {e.stage}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # every failure of the SDK or the server ends here
        message = describe(e)
        emit({"event": "error", "stage": stage, "error": message})
        print(f"py_client: {stage}: {message}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def main() -> int:
    args = parse_args(sys.argv[1:])
    if args.trace_file:
        import py_trace

        py_trace.install(args.trace_file)

    async def bounded() -> int:
        with anyio.fail_after(args.timeout):
            return await run(args)

    try:
        return anyio.run(bounded)
    except TimeoutError:
        emit({"event": "error", "stage": "timeout", "error": f"no result within {args.timeout} s"})
        print(f"py_client: timed out after {args.timeout} s", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
