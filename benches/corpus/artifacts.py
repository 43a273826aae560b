"""The corpus: which artifacts of the three snapshots are run, and by which command."""

import hashlib
import json
import os
import re

# PromptKit's SDK examples that run offline: each has a mock-provider smoke test
# (or a main that builds a mock provider). The prompt and the messages are the ones
# the example's own test or main sends; `expect` pins an answer the example pins.
SDK_EXAMPLES = {
    "client-tools": {"pack": "client-tools.pack.json", "prompt": "assistant",
                     "messages": ["Where am I?"]},
    "eval-hooks": {"pack": "assistant.pack.json", "prompt": "chat",
                   "messages": ["What is the capital of France?", "What is 2 + 2?",
                                "List three programming languages."]},
    "hello": {"pack": "hello.pack.json", "prompt": "chat", "messages": ["Hello"],
              "vars": {"user_name": "Test"}},
    "hitl": {"pack": "hitl.pack.json", "prompt": "refund_agent",
             "messages": ["I need a refund of $150 for order #12345 because the product "
                          "was damaged"]},
    "hooks": {"pack": "hooks.pack.json", "prompt": "chat",
              "messages": ["Hello", "What's your bank's routing number?"],
              "expect": {2: "I can't help with bank routing numbers."}},
    "json-function": {"pack": "research.pack.json", "prompt": "plan",
                      "messages": ['{"topic":"battery storage","audience":"executive"}'],
                      "vars": {"topic": "battery storage", "audience": "executive",
                               "input": '{"topic":"battery storage","audience":"executive"}'}},
    "media-storage-ref": {"pack": "media-storage-ref.pack.json", "prompt": "vision-analyst",
                          "messages": ["hi"]},
    # Keyless, but its input is two tracks of synthetic audio through VAD and STT.
    "multitrack-ingestion": {"verdict": "duplex audio ingestion (tracks, VAD, STT): no "
                                        "promptexec command plays it"},
    "runtime-config": {"pack": "agent.pack.json", "prompt": "support", "messages": ["Hello"],
                       "config": "runtime.yaml", "vars": {"company_name": "Acme Corp"}},
    "sdk-evals": {"pack": "assistant.pack.json", "prompt": "chat",
                  "messages": ["What is the capital of France?", "What is 2 + 2?",
                               "List three programming languages."]},
    "sdk-http-auth": {"pack": "assistant.pack.json", "prompt": "assistant",
                      "messages": ["Look up customer John Smith"]},
    "streaming": {"pack": "streaming.pack.json", "prompt": "storyteller",
                  "messages": ["Tell a story"], "stream": True},
    "tools": {"pack": "tools.pack.json", "prompt": "assistant",
              "messages": ["What time is it?"]},
    "variables": {"pack": "assistant.pack.json", "prompt": "assistant", "messages": ["Hello"],
                  "vars": {"user_id": "test-user"}},
}

# The other folders of sdk/examples, and why they are not in the corpus.
SDK_LEFT_OUT = {
    "evaluate": "sdk.Evaluate over a message list the code builds; promptexec's "
                "`eval --pack` reads a run transcript, so there is no unchanged route",
    "onnx-audio-emotion": "an ONNX audio model downloaded from Hugging Face",
    "custom-compaction": "prints sample code; opens no conversation",
    "session-recording": "records a session with a network model, then replays it",
    "workflow-external": "Go code driving workflow transitions; no pack",
    "vad-demo": "audio frames through VAD; no pack",
}

# Packs PromptKit itself refuses (its own tests pin the refusal): refusing them, with an
# error naming the same thing, is running them as PromptKit does.
EXPECTED_REFUSALS = {
    # sdk/guardrail_validator_policy_test.go, TestOpen_UnknownValidatorTypeIsFatal
    "promptkit:sdk/testdata/packs/guardrail-bad-type.pack.json": "pii_leakge",
}

SCENARIO_RE = re.compile(r"^kind:\s*['\"]?Scenario['\"]?\s*$", re.M)
ARENA_RE = re.compile(r"^kind:\s*['\"]?Arena['\"]?\s*$", re.M)
OFFLINE_PROVIDER_RE = re.compile(r"^\s*type:\s*['\"]?(mock|replay)['\"]?\s*$", re.M)


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def walk(root, predicate):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules"))
        for filename in sorted(filenames):
            path = os.path.join(dirpath, filename)
            if predicate(path):
                found.append(path)
    return sorted(found)


def project_dir(scenario):
    """The folder a scenario file belongs to: the parent of its `scenarios/` folder."""
    parts = scenario.split(os.sep)
    if "scenarios" in parts:
        index = len(parts) - 1 - parts[::-1].index("scenarios")
        return os.sep.join(parts[:index])
    return os.path.dirname(scenario)


def task_types(text):
    return sorted(set(re.findall(r"^\s*task_type:\s*['\"]?([\w.-]+)", text, re.M)))


def stub_pack(work, names):
    """A minimal pack offering the named prompts (a scenario's `task_type`)."""
    pack = {
        "id": "corpus-stub", "name": "corpus-stub", "version": "1.0.0",
        "template_engine": {"version": "v1", "syntax": "{{variable}}"},
        "prompts": {n: {"id": n, "name": n, "version": "1.0.0",
                        "system_template": "You are a helpful assistant."} for n in names},
    }
    text = json.dumps(pack, indent=2, sort_keys=True)
    path = os.path.join(work, "stubs", hashlib.sha256(text.encode()).hexdigest()[:16]
                        + ".pack.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        with open(path, "w") as out:
            out.write(text)
    return path


def artifact(aid, kind, repo, path, argv, cwd, **extra):
    return {"id": aid, "kind": kind, "repo": repo, "path": path, "argv": argv, "cwd": cwd,
            **extra}


def discover(trees, binary, work):
    artifacts, excluded = [], []
    pk, pa, pc = trees["promptkit"], trees["promptarena"], trees["picoclaw"]

    # 1. Every PromptPack: `promptexec validate --pack PACK`.
    for name in ("promptkit", "promptarena"):
        root = trees[name]
        for pack in walk(root, lambda p: p.endswith(".pack.json")):
            rel = os.path.relpath(pack, root)
            artifacts.append(artifact(f"pack {name}:{rel}", "pack", name, rel,
                                      [binary, "validate", "--pack", os.path.basename(pack)],
                                      os.path.dirname(pack),
                                      refusal=EXPECTED_REFUSALS.get(f"{name}:{rel}")))

    # 2. Every scenario file, played as a suite of one: `promptexec run PACK FILE`, PACK
    # being the project's own pack, else a stub offering the scenario's task_type.
    for name in ("promptkit", "promptarena"):
        root = trees[name]
        for path in walk(root, lambda p: p.endswith((".yaml", ".yml"))):
            text = read(path)
            if not SCENARIO_RE.search(text):
                continue
            rel = os.path.relpath(path, root)
            home = project_dir(path)
            packs = walk(home, lambda p: p.endswith(".pack.json") and os.path.dirname(p) == home)
            pack = packs[0] if len(packs) == 1 else stub_pack(work, task_types(text) or ["default"])
            artifacts.append(artifact(f"scenario {name}:{rel}", "scenario", name, rel,
                                      [binary, "run", pack, os.path.basename(path),
                                       "--format", "json", "-j", "1"],
                                      os.path.dirname(path),
                                      pack="own" if len(packs) == 1 else "stub"))

    # 3. PromptKit's offline SDK examples: `promptexec run PACK --prompt P --message M...`.
    for example in sorted(SDK_EXAMPLES):
        spec = SDK_EXAMPLES[example]
        folder = os.path.join(pk, "sdk", "examples", example)
        if "verdict" in spec:
            artifacts.append(artifact(f"example promptkit:sdk/examples/{example}",
                                      "sdk-example", "promptkit", f"sdk/examples/{example}",
                                      None, folder, verdict=spec["verdict"]))
            continue
        argv = [binary]
        if spec.get("config"):
            argv += ["-c", spec["config"]]
        argv += ["run", spec["pack"], "--prompt", spec["prompt"], "--format", "json"]
        for message in spec["messages"]:
            argv += ["--message", message]
        for key, value in sorted(spec.get("vars", {}).items()):
            argv += ["--var", f"{key}={value}"]
        if spec.get("stream"):
            argv.append("--stream")
        artifacts.append(artifact(f"example promptkit:sdk/examples/{example}", "sdk-example",
                                  "promptkit", f"sdk/examples/{example}", argv, folder,
                                  expect=spec.get("expect", {})))

    examples = os.path.join(pk, "sdk", "examples")
    for entry in sorted(os.listdir(examples)):
        if entry in SDK_EXAMPLES or not os.path.isdir(os.path.join(examples, entry)):
            continue
        has_pack = any(name.endswith(".pack.json")
                       for name in os.listdir(os.path.join(examples, entry)))
        reason = SDK_LEFT_OUT.get(entry) or (
            "no mock provider: needs a network model" if has_pack else "no pack: a helper "
            "package or configuration samples")
        excluded.append({"id": f"example promptkit:sdk/examples/{entry}", "reason": reason})

    # 4. PromptArena's examples run offline (a mock or replay provider, or mock-run by
    # PromptArena's own Makefile): `promptexec run CONFIG.arena.yaml` in the example's
    # folder, with `--mock FILE` where PromptArena adds `--mock-provider --mock-config FILE`.
    examples_root = os.path.join(pa, "examples")
    mock_runs = makefile_mock_runs(pa)
    for entry in sorted(os.listdir(examples_root)):
        example = os.path.join(examples_root, entry)
        if not os.path.isdir(example):
            continue
        aid = f"example promptarena:examples/{entry}"
        yamls = walk(example, lambda p: p.endswith((".yaml", ".yml")))
        readme = read(os.path.join(example, "README.md"))
        mock = mock_runs.get(entry) or readme_mock_config(readme, entry)
        if not mock and not any(OFFLINE_PROVIDER_RE.search(read(p)) for p in yamls):
            excluded.append({"id": aid,
                             "reason": "no mock or replay provider: needs a network model"})
            continue
        if calls_the_internet(yamls):
            excluded.append({"id": aid, "reason": "its `mode: live` tools call public HTTP "
                                                  "APIs: needs the network"})
            continue
        config = arena_config(example, readme, mock)
        if not config:
            artifacts.append(artifact(aid, "arena-example", "promptarena", f"examples/{entry}",
                                      None, example, verdict="no arena config"))
            continue
        artifacts.append(arena_artifact(aid, "arena-example", "promptarena",
                                        f"examples/{entry}", binary, example, config, mock,
                                        readme_mock_provider(readme) and not mock))

    # 4b. PromptKit's Arena projects (server/a2a/examples/*/arena), run as PromptArena
    # runs them (`promptarena run` in the folder), when every agent they name is a mock.
    for arena_dir in walk(pk, lambda p: os.path.basename(p) == "config.arena.yaml"
                          and os.path.basename(os.path.dirname(p)) == "arena"):
        folder = os.path.dirname(arena_dir)
        rel = os.path.relpath(os.path.dirname(folder), pk)
        aid = f"example promptkit:{rel}"
        text = read(arena_dir)
        if re.search(r"^\s*url:\s*['\"]?https?://", text, re.M):
            excluded.append({"id": aid, "reason": "an A2A agent served over HTTP by the "
                                                  "example's own Go server"})
            continue
        artifacts.append(arena_artifact(aid, "promptkit-arena", "promptkit", rel, binary,
                                        folder, "config.arena.yaml", None))

    # 5. Every session recording of promptarena's examples, replayed: the recording's
    # user messages sent with `--replay FILE --match content`; each answer must be the
    # recorded one.
    for path in walk(examples_root, lambda p: p.endswith(".recording.json")):
        rel = os.path.relpath(path, pa)
        users, answers = recorded_messages(path)
        argv = [binary, "run", stub_pack(work, ["assistant"]), "--replay", path,
                "--match", "content", "--format", "json"]
        for message in users:
            argv += ["--message", message]
        artifacts.append(artifact(f"recording promptarena:{rel}", "recording", "promptarena",
                                  rel, argv, os.path.dirname(path),
                                  expect={turn: text for turn, text in
                                          enumerate(answers, start=1)}))

    # 6. PicoClaw's hook docs: each process-hook entry with its reference script,
    # pasted into a RuntimeConfig's spec.hooks: `promptexec hook test NAME --all-phases`.
    artifacts += picoclaw_hooks(pc, binary, work, excluded)
    return sorted(artifacts, key=lambda a: a["id"]), sorted(excluded, key=lambda e: e["id"])


# `run EXAMPLE --config FILE ... --mock-config MOCK` lines of PromptArena's Makefile
# (target `test-examples`).
MAKE_RUN_RE = re.compile(r"^\s*run\s+([\w.-]+)\s+(.*?);?\s*$", re.M)


def makefile_mock_runs(root):
    """Example name -> the mock responses file PromptArena's Makefile passes it."""
    found = {}
    for name, rest in MAKE_RUN_RE.findall(read(os.path.join(root, "Makefile"))):
        match = re.search(r"--mock-config\s+(\S+)", rest)
        if "--mock-provider" in rest and match:
            found[name] = match.group(1).rstrip(";")
    return found


def readme_mock_config(readme, entry):
    """The `--mock-config FILE` of the example's README (relative to the example)."""
    for line in readme.splitlines():
        if "--mock-provider" in line:
            match = re.search(r"--mock-config[ =](\S+)", line)
            if match:
                path = match.group(1).strip("`'\"")
                prefix = f"examples/{entry}/"
                return path[len(prefix):] if path.startswith(prefix) else path
    return None


LIVE_URL_RE = re.compile(r"^\s*url:\s*['\"]?https?://(?!localhost|127\.|\[::1\])", re.M)


def calls_the_internet(yamls):
    """Whether a `mode: live` Tool file of the example calls a host off this machine."""
    return any(re.search(r"^\s*mode:\s*['\"]?live", text, re.M) and LIVE_URL_RE.search(text)
               for text in map(read, yamls))


def names_offline_provider(example, config):
    """Whether an Arena config names a provider file of type mock or replay."""
    for name in re.findall(r"^\s*-?\s*file:\s*['\"]?([^'\"\s]+)", read(os.path.join(
            example, config)), re.M):
        if OFFLINE_PROVIDER_RE.search(read(os.path.join(example, name))):
            return True
    return False


def provider_files(example, config):
    """The texts of the `kind: Provider` files an Arena config names."""
    texts = [read(os.path.join(example, name)) for name in re.findall(
        r"^\s*-?\s*file:\s*['\"]?([^'\"\s]+)", read(os.path.join(example, config)), re.M)]
    return [t for t in texts if re.search(r"^kind:\s*['\"]?Provider", t, re.M)]


def arena_config(example, readme, mock):
    """The Arena config the example's README runs offline (`-c FILE.arena.yaml` naming
    a mock or replay provider), else `config.arena.yaml` (or `arena.yaml`) unless it
    names a network provider and another Arena file of the folder names only mocks."""
    named = []
    for match in re.finditer(r"promptarena run\b[^\n]*?(?:-c|--config)[ =](\S+)", readme):
        name = match.group(1).strip("`'\"")
        if name.endswith(".yaml") and "/" not in name and \
                os.path.exists(os.path.join(example, name)) and name not in named:
            named.append(name)
    if not mock:
        for name in named:
            if names_offline_provider(example, name):
                return name
    default = next((name for name in ("config.arena.yaml", "arena.yaml")
                    if os.path.exists(os.path.join(example, name))), None)
    def all_offline(name):
        texts = provider_files(example, name)
        return bool(texts) and all(OFFLINE_PROVIDER_RE.search(t) for t in texts)

    if not mock and default and not all_offline(default):
        # Another `kind: Arena` file of the folder whose providers are all mocks (such
        # as `config.arena-mock.yaml`) is the example's offline run.
        for name in sorted(os.listdir(example)):
            path = os.path.join(example, name)
            if name.endswith((".yaml", ".yml")) and ARENA_RE.search(read(path)) \
                    and all_offline(name):
                return name
    return default or (named[0] if named else None)


def readme_mock_provider(readme):
    """Whether the example's README runs it with `--mock-provider` and no mock file:
    every provider answers as its own mock."""
    return any("--mock-provider" in line and "--mock-config" not in line
               for line in readme.splitlines() if "promptarena run" in line)


def arena_artifact(aid, kind, repo, rel, binary, folder, config, mock, mock_provider=False):
    argv = [binary, "run", config, "--format", "json"]
    if mock:
        argv += ["--mock", mock]
    elif mock_provider:
        argv.append("--mock-provider")
    return artifact(aid, kind, repo, rel, argv, folder, config=config, mock=mock)


def recorded_messages(path):
    """The user and assistant messages of a recording, in either of PromptArena's
    shapes (`data` of `message.created` events, or `message` of `message` events)."""
    users, answers = [], []
    try:
        with open(path, encoding="utf-8") as handle:
            events = json.load(handle).get("events", [])
    except (OSError, ValueError, AttributeError):
        return users, answers
    for event in events:
        body = event.get("data") or event.get("message") or {}
        fields = {str(k).lower(): v for k, v in body.items()} if isinstance(body, dict) else {}
        role, content = fields.get("role"), fields.get("content")
        if isinstance(content, str) and role == "user":
            users.append(content)
        elif isinstance(content, str) and role == "assistant":
            answers.append(content)
    return users, answers


def code_blocks(text):
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)


HOOK_PACK = {
    "id": "picoclaw-hook-harness", "name": "picoclaw-hook-harness", "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {"chat": {"id": "chat", "name": "chat", "version": "1.0.0",
                         "system_template": "You are a helpful assistant.",
                         "tools": ["echo_text"]}},
    "tools": {"echo_text": {"name": "echo_text", "description": "Echo a text back",
                            "parameters": {"type": "object",
                                           "properties": {"text": {"type": "string"}},
                                           "required": ["text"]}}},
}
HOOK_MOCK = """scenarios:
  chat:
    turns:
      1:
        content: "Echoing."
        tool_calls:
          - name: echo_text
            arguments: { text: hello }
      2: "Done."
"""
ECHO_TOOL = """import json, sys
args = json.load(sys.stdin)["args"]
json.dump({"result": {"text": args.get("text", "")}}, sys.stdout)
"""


def hook_harness(work):
    """A pack with one tool, a mock that calls it, and the tool: the conversation a
    PicoClaw hook is tried in (PicoClaw's docs use `echo_text` for their samples)."""
    folder = os.path.join(work, "hooks", "harness")
    os.makedirs(folder, exist_ok=True)
    files = {"harness.pack.json": json.dumps(HOOK_PACK, indent=2, sort_keys=True),
             "mock-responses.yaml": HOOK_MOCK, "echo_text.py": ECHO_TOOL}
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as out:
            out.write(text)
    return folder


def picoclaw_hooks(root, binary, work, excluded):
    found = []
    docs = os.path.join(root, "docs", "architecture", "hooks")
    for doc in walk(docs, lambda p: p.endswith(".md") and not p.endswith(".zh.md")):
        rel = os.path.relpath(doc, root)
        blocks = code_blocks(read(doc))
        scripts = [body for lang, body in blocks
                   if lang == "python" and "__main__" in body]
        for index, (lang, body) in enumerate(blocks):
            if lang != "json" or '"hooks"' not in body:
                continue
            try:
                hooks = json.loads(body)["hooks"]
            except (ValueError, KeyError, TypeError):
                continue
            for name in sorted(hooks.get("builtins", {})):
                excluded.append({"id": f"hook picoclaw:{rel}#{index}:{name}",
                                 "reason": "in-process Go builtin: runs only inside PicoClaw"})
            for name, entry in sorted(hooks.get("processes", {}).items()):
                aid = f"hook picoclaw:{rel}#{index}:{name}"
                if len(scripts) != 1:
                    excluded.append({"id": aid, "reason": "no reference script in the doc"})
                    continue
                broken = python_error(scripts[0])
                if broken:
                    excluded.append({"id": aid, "reason": f"the doc's script does not run: "
                                                          f"{broken}"})
                    continue
                folder = os.path.join(work, "hooks", f"{os.path.basename(rel)}-{index}-{name}")
                os.makedirs(folder, exist_ok=True)
                command = entry.get("command")
                argv = command if isinstance(command, list) else [command]
                placed = dict(entry)
                for position, word in enumerate(argv):
                    if isinstance(word, str) and word.endswith(".py"):
                        script = os.path.join(folder, os.path.basename(word))
                        with open(script, "w") as out:
                            out.write(scripts[0])
                        argv = list(argv)
                        argv[position] = script
                placed["command"] = argv if isinstance(command, list) else argv[0]
                config = os.path.join(folder, "runtimeconfig.yaml")
                harness = hook_harness(work)
                with open(config, "w") as out:
                    out.write("apiVersion: promptkit.altairalabs.ai/v1alpha1\n"
                              "kind: RuntimeConfig\nmetadata:\n  name: picoclaw-hook\n"
                              "spec:\n  providers:\n    - id: mock\n      type: mock\n"
                              "      additional_config:\n        mock_config: "
                              + json.dumps(os.path.join(harness, "mock-responses.yaml"))
                              + "\n  tools:\n    echo_text:\n      exec:\n"
                              "        command: python3\n        args: ["
                              + json.dumps(os.path.join(harness, "echo_text.py")) + "]\n"
                              "  hooks:\n    " + json.dumps(name) + ": "
                              + json.dumps(placed, sort_keys=True) + "\n")
                log = (entry.get("env") or {}).get("PICOCLAW_HOOK_LOG_FILE") \
                    if isinstance(entry.get("env"), dict) else None
                found.append(artifact(
                    aid, "picoclaw-hook", "picoclaw", rel,
                    [binary, "-c", config, "hook", "test", name, "--all-phases"], folder,
                    then={"argv": [binary, "-c", config, "run",
                                   os.path.join(harness, "harness.pack.json"),
                                   "--message", "Echo hello", "--format", "json"],
                          "log": log,
                          "observes": bool(entry.get("observe")),
                          "intercepts": sorted(entry.get("intercept") or [])}))
    return found


def python_error(source):
    """The SyntaxError a script has for this Python, else None."""
    try:
        compile(source, "hook.py", "exec")
    except SyntaxError as error:
        return f"SyntaxError at line {error.lineno}: {error.msg}"
    return None
