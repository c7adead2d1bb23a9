"""cdinspect's MCP server driven by the official MCP client library for Python (the `mcp`
package), as an assistant's host drives it: the handshake, the tool list, typed arguments, a
wrong argument, pages followed by cursor (the library checks each page's structured content
against the tool's output schema), every tool's answer checked against its output schema with
a JSON Schema validator, resources (the schema's and the MCP Apps views', which a client sees
when it declares the extension, as this one does, through the library's own `extensions`), and
a slow call that times out in the client, which then sends notifications/cancelled. Prints
what it saw as one JSON object.

Usage: python official_client.py CDINSPECT STORE
"""
import asyncio
import json
import sys

import jsonschema

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def text(result):
    return result.content[0].text if result.content else ""


async def main(binary, store):
    seen = {}
    params = StdioServerParameters(command=binary, args=["mcp", store, "--timeout", "0"])
    async with stdio_client(params) as (read, write):
        views_extension = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
        async with ClientSession(read, write, extensions=views_extension) as session:
            initialized = await session.initialize()
            seen["server"] = initialized.server_info.name
            tools = (await session.list_tools()).tools
            seen["tools"] = sorted(tool.name for tool in tools)
            seen["titled"] = all(tool.title and tool.annotations and tool.annotations.title for tool in tools)
            schemas = {tool.name: tool.output_schema for tool in tools}
            seen["withoutOutputSchema"] = sorted(name for name, schema in schemas.items() if not schema)

            # Every tool, each of its views: the structured answer fits the declared schema.
            calls = [("info", {}), ("entities", {}), ("schema", {}), ("schema", {"entity": "Person"}),
                     ("count", {"entity": "Person"}), ("explain", {"entity": "Person", "predicate": "age > 3"}),
                     ("explain", {"entity": "Person", "as": "swift"}), ("fetch", {"entity": "Car", "limit": 3}),
                     ("sql", {"query": "SELECT Z_PK, ZNAME FROM ZPERSON LIMIT 2"}), ("history", {"limit": 3}),
                     ("history", {"limit": 3, "changes": True}), ("doctor", {}), ("model", {}), ("model", {"view": "hashes"}),
                     ("model", {"view": "graph"}), ("model", {"view": "classes"}), ("model", {"view": "diff", "other": store}),
                     ("snapshots", {}), ("diff", {"other": store}), ("cloudkit", {})]
            checked, failures = [], []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                if result.is_error:
                    if name != "cloudkit":  # the example store is not mirrored: an error is its answer
                        failures.append(f"{name} {arguments}: {text(result)}")
                    continue
                try:
                    jsonschema.validate(result.structured_content, schemas[name])
                    checked.append(name)
                except jsonschema.ValidationError as error:
                    failures.append(f"{name} {arguments}: {error.message}")
            seen["schemaChecked"] = sorted(set(checked))
            seen["schemaFailures"] = failures
            prompts = (await session.list_prompts()).prompts
            seen["prompts"] = [prompt.name for prompt in prompts]
            broken = await session.get_prompt("what-is-broken")
            seen["promptMentionsDoctor"] = "doctor" in broken.messages[0].content.text

            counted = await session.call_tool("count", {"entity": "Person", "predicate": "age > %@", "arguments": [30]})
            seen["count"] = json.loads(text(counted))["count"]
            by_name = await session.call_tool("count", {"entity": "Person", "where": "age > %@", "arg": [30]})
            seen["countByCommandLineNames"] = json.loads(text(by_name))["count"]
            try:
                wrong = await session.call_tool("count", {"entity": "Person", "wehre": "age > 30"})
                seen["where"] = {"isError": wrong.is_error, "text": text(wrong)}
            except Exception as error:  # an invalid-params error is raised by the library
                seen["where"] = {"raised": str(error)}

            names, pages, cursor = [], 0, None
            while True:
                arguments = {"cursor": cursor} if cursor else {"entity": "Person", "limit": 0, "keys": ["name"]}
                page = await session.call_tool("fetch", arguments)
                if page.is_error:
                    seen["fetchError"] = text(page)
                    break
                pages += 1
                names += [item["name"] for item in page.structured_content["objects"]]
                cursor = page.structured_content.get("nextCursor")
                if not cursor:
                    break
            seen["fetched"] = len(set(names))
            seen["pages"] = pages

            listed = await session.list_resources()
            seen["resources"] = [str(resource.uri) for resource in listed.resources]
            schema = await session.read_resource("cdinspect://schema/Person")
            seen["schemaTable"] = json.loads(schema.contents[0].text)["table"]
            views = {}
            for resource in listed.resources:
                if str(resource.uri).startswith("ui://"):
                    read = await session.read_resource(resource.uri)
                    content = read.contents[0]
                    views[str(resource.uri)] = {"listed": resource.mime_type, "read": content.mime_type,
                                                "document": content.text.startswith("<!DOCTYPE html>")}
            seen["views"] = views

            # A runaway statement: the library gives up after a second and cancels the call;
            # the server goes on answering.
            try:
                await session.call_tool("sql", {"query": "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"},
                                        read_timeout_seconds=1)
                seen["runaway"] = "answered"
            except Exception as error:
                seen["runaway"] = type(error).__name__
            after = await session.call_tool("sql", {"query": "SELECT count(*) AS n FROM ZPERSON"})
            seen["afterCancel"] = after.structured_content["rows"][0]["n"]
    print(json.dumps(seen))


asyncio.run(main(sys.argv[1], sys.argv[2]))
