"""A small MCP server over stdio, for a python3 without the `mcp` package.

It offers the part of `mcp.server.mcpserver.MCPServer` that server.py uses:

    server = MCPServer("name")
    @server.tool()            # input schema from the type annotations, docstring as description
    @server.prompt()          # the function returns the text of one user message
    @server.resource("a://b") # the function returns the resource's text
    server.run()              # serve stdin/stdout until stdin closes

The wire format is MCP's stdio transport: one JSON-RPC message per line. Answers
follow the official package where a client can tell: the same input and output
schemas, `structuredContent` beside the text, `isError: true` for a tool that raises.
"""

import inspect
import json
import sys
import traceback
import typing

KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
FALLBACK_VERSION = "2025-06-18"

# JSON Schema types of the annotations a tool may use.
JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object", list: "array"}

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
PARSE_ERROR = -32700


class RpcError(Exception):
    """A request that gets a JSON-RPC error instead of a result."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _base_type(annotation):
    """`dict[str, Any]` and `dict` are both objects."""
    return typing.get_origin(annotation) or annotation


def _title(name):
    return name.title().replace("_", " ")


def _doc(fn):
    return inspect.getdoc(fn) or ""


def _input_schema(fn):
    properties, required = {}, []
    for name, param in inspect.signature(fn).parameters.items():
        prop = {"title": _title(name), "type": JSON_TYPES[_base_type(param.annotation)]}
        if param.default is inspect.Parameter.empty:
            required.append(name)
        else:
            prop["default"] = param.default
        properties[name] = prop
    return {"properties": properties, "required": required, "type": "object", "title": f"{fn.__name__}Arguments"}


def _output_schema(fn):
    """dict results are the structured content; other types are wrapped as {"result": ...}."""
    returns = inspect.signature(fn).return_annotation
    if returns is inspect.Signature.empty:
        return None
    title = f"{fn.__name__}Output"
    if _base_type(returns) is dict:
        return {"type": "object", "additionalProperties": True, "title": f"{fn.__name__}DictOutput"}
    result = {"title": "Result", "type": JSON_TYPES[_base_type(returns)]}
    return {"properties": {"result": result}, "required": ["result"], "type": "object", "title": title}


def _check_arguments(fn, arguments):
    """The arguments the schema asks for (others are left out, as the official package
    does), with ints standing in for floats as JSON allows."""
    checked = {}
    for name, param in inspect.signature(fn).parameters.items():
        if name not in arguments:
            if param.default is inspect.Parameter.empty:
                raise ValueError(f"missing argument '{name}'")
            continue
        value, wanted = arguments[name], _base_type(param.annotation)
        if wanted is float and type(value) is int:
            value = float(value)
        if type(value) is not wanted:
            raise ValueError(f"argument '{name}' should be {JSON_TYPES[wanted]}")
        checked[name] = value
    return checked


class MCPServer:
    def __init__(self, name, version=""):
        self.name = name
        self.version = version
        self.tools = {}
        self.annotations = {}
        self.prompts = {}
        self.resources = {}

    def tool(self, annotations=None):
        def register(fn):
            self.tools[fn.__name__] = fn
            if annotations:
                self.annotations[fn.__name__] = dict(annotations)
            return fn

        return register

    def prompt(self):
        def register(fn):
            self.prompts[fn.__name__] = fn
            return fn

        return register

    def resource(self, uri):
        def register(fn):
            self.resources[uri] = fn
            return fn

        return register

    # Each handler takes the request's params and returns its result.

    def _initialize(self, params):
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in KNOWN_VERSIONS else FALLBACK_VERSION,
            "capabilities": {
                "tools": {"listChanged": False},
                "prompts": {"listChanged": False},
                "resources": {"listChanged": False, "subscribe": False},
            },
            "serverInfo": {"name": self.name, "version": self.version},
        }

    def _list_tools(self, params):
        tools = []
        for name, fn in self.tools.items():
            tool = {"name": name, "description": _doc(fn), "inputSchema": _input_schema(fn)}
            if name in self.annotations:
                tool["annotations"] = self.annotations[name]
            if _output_schema(fn) is not None:
                tool["outputSchema"] = _output_schema(fn)
            tools.append(tool)
        return {"tools": tools}

    def _call_tool(self, params):
        name = params.get("name")
        fn = self.tools.get(name)
        if fn is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name}")
        try:
            arguments = _check_arguments(fn, params.get("arguments") or {})
        except ValueError as error:
            return _tool_error(name, error)
        try:
            value = fn(**arguments)
        except Exception as error:
            # The client sees the message; whoever reads stderr sees where it came from.
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            return _tool_error(name, error)
        text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        if _output_schema(fn) is not None:
            result["structuredContent"] = value if isinstance(value, dict) else {"result": value}
        return result

    def _list_prompts(self, params):
        prompts = []
        for name, fn in self.prompts.items():
            arguments = [
                {"name": arg, "required": param.default is inspect.Parameter.empty}
                for arg, param in inspect.signature(fn).parameters.items()
            ]
            prompts.append({"name": name, "description": _doc(fn), "arguments": arguments})
        return {"prompts": prompts}

    def _get_prompt(self, params):
        fn = self.prompts.get(params.get("name"))
        if fn is None:
            raise RpcError(INVALID_PARAMS, f"unknown prompt: {params.get('name')}")
        try:
            text = fn(**_check_arguments(fn, params.get("arguments") or {}))
        except ValueError as error:
            raise RpcError(INVALID_PARAMS, str(error)) from None
        message = {"role": "user", "content": {"type": "text", "text": text}}
        return {"description": _doc(fn), "messages": [message]}

    def _list_resources(self, params):
        resources = [
            {"uri": uri, "name": fn.__name__, "description": _doc(fn), "mimeType": "text/plain"}
            for uri, fn in self.resources.items()
        ]
        return {"resources": resources}

    def _read_resource(self, params):
        uri = params.get("uri")
        fn = self.resources.get(uri)
        if fn is None:
            raise RpcError(INVALID_PARAMS, f"unknown resource: {uri}")
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": fn()}]}

    def _answer(self, message):
        """The reply to one message, or None for a notification."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        if "id" not in message:
            return None
        handlers = {
            "initialize": self._initialize,
            "ping": lambda params: {},
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
            "prompts/list": self._list_prompts,
            "prompts/get": self._get_prompt,
            "resources/list": self._list_resources,
            "resources/read": self._read_resource,
        }
        handler = handlers.get(message.get("method"))
        if handler is None:
            return _error(message["id"], METHOD_NOT_FOUND, f"method not found: {message.get('method')}")
        try:
            return {"jsonrpc": "2.0", "id": message["id"], "result": handler(message.get("params") or {})}
        except RpcError as error:
            return _error(message["id"], error.code, str(error))

    def run(self):
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                reply = _error(None, PARSE_ERROR, "not JSON")
            else:
                reply = self._answer(message)
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


def _tool_error(name, error):
    text = f"Error executing tool {name}: {error}"
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _error(id, code, message):
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}
