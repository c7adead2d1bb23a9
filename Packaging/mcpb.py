#!/usr/bin/env python3
"""The MCP bundle (`cdinspect.mcpb`) that Claude's desktop app installs in one click.

    mcpb.py manifest SERVER VERSION PLATFORM   print manifest.json: its tools and prompts are
                                               asked of SERVER itself, so they are the server's
                                               own declarations, not a second list
    mcpb.py check MANIFEST                     check MANIFEST against the v0.4 manifest schema's
                                               required fields, types and closed objects
    mcpb.py pack FOLDER BUNDLE                 zip FOLDER's files into BUNDLE, modes kept
    mcpb.py unpack BUNDLE FOLDER               unzip BUNDLE into FOLDER, modes kept
    mcpb.py start FOLDER STORE                 start the unzipped bundle's server as a host
                                               would (its mcp_config, ${__dirname} and
                                               ${user_config.store} filled in) and print its
                                               answer to initialize

Python's standard library only: `make mcpb` and `.ci/run` need nothing installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "mcpb", "version": "1"}}}


def ask(command, requests):
    """The answers, by id, of a server started with `command` to `requests` after initialize."""
    lines = [INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}] + requests
    text = "".join(json.dumps(line) + "\n" for line in lines)
    run = subprocess.run(command, input=text, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        sys.exit(f"mcpb: the server {command[0]} exited with {run.returncode}: {run.stderr.strip()}")
    answers = {}
    for line in run.stdout.splitlines():
        message = json.loads(line)
        if "id" in message:
            if "error" in message:
                sys.exit(f"mcpb: the server {command[0]} answered request {message['id']} with an error: {message['error']}")
            answers[message["id"]] = message
    return answers


def manifest(server, version, platform):
    folder = tempfile.mkdtemp()
    try:
        # The example store, copied: opening it leaves a -shm beside it.
        store = os.path.join(folder, "People.sqlite")
        shutil.copy(os.path.join(os.path.dirname(__file__), "..", "Examples", "People.sqlite"), store)
        arguments = {"why-not-synced": {"object": "${arguments.object}"},
                     "will-it-migrate": {"model": "${arguments.model}"}}
        answers = ask([server, store], [{"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                        {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}])
        tools = answers[2]["result"]["tools"]
        prompts = answers[3]["result"]["prompts"]
        texts = ask([server, store], [{"jsonrpc": "2.0", "id": 10 + i, "method": "prompts/get",
                                       "params": {"name": p["name"], "arguments": arguments.get(p["name"], {})}}
                                      for i, p in enumerate(prompts)])
    finally:
        shutil.rmtree(folder)
    return {
        "manifest_version": "0.4",
        "name": "cdinspect",
        "display_name": "cdinspect: Core Data and SwiftData stores",
        "version": version,
        "description": "Read a Core Data or SwiftData SQLite store as the app sees it: schema, fetches with "
                       "NSPredicate, history, CloudKit sync state, health and model migration. Read-only.",
        "long_description": "In a host that shows MCP Apps views, fetch and sql answers show as a grid with pages "
                            "(an object's link fetches it), the model as its diagram and entity cards, doctor's report "
                            "as a space chart with its findings, and history as a timeline with its changes. Every "
                            "answer is also text and structured content, for hosts that show none.",
        "author": {"name": "The cdinspect authors"},
        "license": "MIT",
        "keywords": ["core data", "swiftdata", "sqlite", "ios", "macos", "cloudkit"],
        "server": {
            "type": "binary",
            "entry_point": "server/cdinspect-mcp",
            "mcp_config": {"command": "${__dirname}/server/cdinspect-mcp", "args": ["${user_config.store}"]},
        },
        "user_config": {
            "store": {"type": "file", "title": "Store",
                      "description": "The .sqlite store to serve (its -wal beside it). It is opened read-only.",
                      "required": True},
        },
        "compatibility": {"platforms": [platform]},
        "tools": [{"name": t["name"], "description": t.get("description", "")} for t in tools],
        "prompts": [{"name": p["name"], "description": p.get("description", ""),
                     "arguments": [a["name"] for a in p.get("arguments", [])],
                     "text": texts[10 + i]["result"]["messages"][0]["content"]["text"]}
                    for i, p in enumerate(prompts)],
    }


# The v0.4 manifest schema's rules, as (allowed keys, required keys) per object, and the types.
TOP = {"$schema": str, "dxt_version": str, "manifest_version": str, "name": str, "display_name": str,
       "version": str, "description": str, "long_description": str, "author": dict, "repository": dict,
       "homepage": str, "documentation": str, "support": str, "icon": str, "icons": list, "screenshots": list,
       "localization": dict, "server": dict, "tools": list, "tools_generated": bool, "prompts": list,
       "prompts_generated": bool, "keywords": list, "license": str, "privacy_policies": list,
       "compatibility": dict, "user_config": dict, "_meta": dict}
TOP_REQUIRED = ["name", "version", "description", "author", "server"]
SERVER_TYPES = {"python", "node", "binary", "uv"}
CONFIG_TYPES = {"string", "number", "boolean", "directory", "file"}
CONFIG_KEYS = {"type": str, "title": str, "description": str, "required": bool, "default": object,
               "multiple": bool, "sensitive": bool, "min": (int, float), "max": (int, float)}
PLATFORMS = {"darwin", "win32", "linux"}


def check(path):
    problems = []

    def closed(where, value, allowed, required):
        if not isinstance(value, dict):
            problems.append(f"{where} is not an object")
            return
        for key in value:
            if key not in allowed:
                problems.append(f"{where} has '{key}', which the schema does not allow")
            elif allowed[key] is not object and not isinstance(value[key], allowed[key]):
                problems.append(f"{where}.{key} has the wrong type")
        for key in required:
            if key not in value:
                problems.append(f"{where} lacks '{key}'")

    def strings(where, value):
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            problems.append(f"{where} is not an array of strings")

    with open(path) as file:
        m = json.load(file)
    closed("manifest", m, TOP, TOP_REQUIRED)
    if m.get("manifest_version", "0.4") != "0.4":
        problems.append("manifest_version is not \"0.4\"")
    closed("author", m.get("author", {}), {"name": str, "email": str, "url": str}, ["name"])
    server = m.get("server", {})
    closed("server", server, {"type": str, "entry_point": str, "mcp_config": dict}, ["type", "entry_point"])
    if server.get("type") not in SERVER_TYPES:
        problems.append(f"server.type is not one of {sorted(SERVER_TYPES)}")
    if server.get("type") != "uv" and "mcp_config" not in server:
        problems.append("server lacks 'mcp_config'")
    config = server.get("mcp_config", {})
    closed("server.mcp_config", config, {"command": str, "args": list, "env": dict, "platform_overrides": dict}, ["command"])
    strings("server.mcp_config.args", config.get("args", []))
    if not all(isinstance(v, str) for v in config.get("env", {}).values()):
        problems.append("server.mcp_config.env has a value that is not a string")
    for name, entry in m.get("user_config", {}).items():
        closed(f"user_config.{name}", entry, CONFIG_KEYS, ["type", "title", "description"])
        if entry.get("type") not in CONFIG_TYPES:
            problems.append(f"user_config.{name}.type is not one of {sorted(CONFIG_TYPES)}")
    for i, tool in enumerate(m.get("tools", [])):
        closed(f"tools[{i}]", tool, {"name": str, "description": str}, ["name"])
    for i, prompt in enumerate(m.get("prompts", [])):
        closed(f"prompts[{i}]", prompt, {"name": str, "description": str, "arguments": list, "text": str}, ["name", "text"])
        strings(f"prompts[{i}].arguments", prompt.get("arguments", []))
    compatibility = m.get("compatibility", {})
    closed("compatibility", compatibility, {"claude_desktop": str, "platforms": list, "runtimes": dict}, [])
    for platform in compatibility.get("platforms", []):
        if platform not in PLATFORMS:
            problems.append(f"compatibility.platforms has '{platform}', not one of {sorted(PLATFORMS)}")
    strings("keywords", m.get("keywords", []))
    if problems:
        sys.exit("mcpb: " + path + " does not fit the v0.4 manifest schema:\n  " + "\n  ".join(problems))
    print(f"mcpb: {path} fits the v0.4 manifest schema ({len(m.get('tools', []))} tools, {len(m.get('prompts', []))} prompts)")


def pack(folder, bundle):
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as archive:
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                path = os.path.join(root, name)
                info = zipfile.ZipInfo(os.path.relpath(path, folder))
                info.external_attr = (os.stat(path).st_mode & 0o777 | 0o100000) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as file:
                    archive.writestr(info, file.read())


def unpack(bundle, folder):
    with zipfile.ZipFile(bundle) as archive:
        for info in archive.infolist():
            path = archive.extract(info, folder)
            mode = info.external_attr >> 16 & 0o777
            if mode:
                os.chmod(path, mode)


def start(folder, store):
    with open(os.path.join(folder, "manifest.json")) as file:
        config = json.load(file)["server"]["mcp_config"]

    def fill(text):
        return text.replace("${__dirname}", folder).replace("${user_config.store}", store)
    answers = ask([fill(config["command"])] + [fill(arg) for arg in config.get("args", [])], [])
    print(json.dumps(answers[1]))


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "manifest":
        print(json.dumps(manifest(*arguments), indent=2))
    elif command == "check":
        check(*arguments)
    elif command == "pack":
        pack(*arguments)
    elif command == "unpack":
        unpack(*arguments)
    elif command == "start":
        start(*arguments)
    else:
        sys.exit(f"mcpb: no command '{command}' (manifest, check, pack, unpack, start)")
