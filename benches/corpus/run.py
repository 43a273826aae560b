#!/usr/bin/env python3
"""Run promptexec over the offline artifacts of PromptKit, PromptArena and PicoClaw.

Every artifact is run the way a user would run it through promptexec, unchanged,
and classified as ran (`ok`) or failed (`FAIL reason`). See README.md beside this
file for the mapping from artifact to command and for what counts as ran.

Python 3 standard library only. Not run by CI: it needs the three snapshots.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

DEFAULT_REPOS = {
    "promptkit": "/work/.mirror/AltairaLabs+PromptKit/repo",
    "promptarena": "/work/.mirror/AltairaLabs+promptarena/repo",
    "picoclaw": "/work/.mirror/sipeed+picoclaw/repo",
}

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
    "multitrack-ingestion": {"pack": "assistant.pack.json", "prompt": "assist",
                             "messages": ["Hello"]},
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

SCENARIO_RE = re.compile(r"^kind:\s*['\"]?Scenario['\"]?\s*$", re.M)
ARENA_RE = re.compile(r"^kind:\s*['\"]?Arena['\"]?\s*$", re.M)
MOCK_PROVIDER_RE = re.compile(r"^\s*type:\s*['\"]?mock['\"]?\s*$", re.M)
LOCATION_RE = re.compile(r"^(?:[^\s:]+:\d+:\d+|[^\s:]+\.(?:ya?ml|json)):\s*")
ERROR_LINE_RE = re.compile(r"^(error|[^\s:]+:\d+:\d+: (?!warning))")
WARNING_LINE_RE = re.compile(r"^(warning|[^\s:]+:\d+:\d+: warning)")
SKIP_RE = re.compile(r"not played|is skipped|are skipped")
EMPTY_CONFIG = ("apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\n"
                "metadata:\n  name: empty\nspec: {}\n")


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def export(name, git_dir, cache):
    """Export HEAD of a bare git dir into the cache; blobs absent from it are left out."""
    commit = git(git_dir, "rev-parse", "HEAD").strip()
    dest = os.path.join(cache, "trees", f"{name}-{commit[:12]}")
    marker = os.path.join(dest, ".corpus-exported")
    if os.path.exists(marker):
        return dest, commit, []
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    listing = git(git_dir, "ls-tree", "-r", "-z", "HEAD").split("\0")
    blobs = [entry.split("\t", 1) for entry in listing if entry]
    check = "\n".join(meta.split()[2] for meta, _ in blobs) + "\n"
    states = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-check"],
                            input=check, capture_output=True, text=True, check=True).stdout
    missing = [path for (_, path), state in zip(blobs, states.splitlines())
               if state.endswith(" missing")]
    pathspec = ["--", "."] + [f":(exclude,literal){p}" for p in missing] if missing else []
    archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", "HEAD", *pathspec],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", dest], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive failed for {git_dir}: {archive.stderr.read().decode()}")
    with open(marker, "w") as out:
        out.write(commit + "\n")
    return dest, commit, missing


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


def stub_pack(work, scenario_text):
    """A minimal pack offering the prompts a scenario names (its `task_type`)."""
    names = task_types(scenario_text) or ["default"]
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


def mock_config(example):
    """The mock responses file a PromptArena example's mock provider names."""
    for path in walk(example, lambda p: p.endswith((".yaml", ".yml"))):
        text = read(path)
        if MOCK_PROVIDER_RE.search(text):
            match = re.search(r"mock_config:\s*['\"]?([^'\"\s]+)", text)
            if match:
                for base in (os.path.dirname(path), example):
                    candidate = os.path.normpath(os.path.join(base, match.group(1)))
                    if os.path.exists(candidate):
                        return candidate
    return None


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
                                      os.path.dirname(pack)))

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
            pack = packs[0] if len(packs) == 1 else stub_pack(work, text)
            artifacts.append(artifact(f"scenario {name}:{rel}", "scenario", name, rel,
                                      [binary, "run", pack, os.path.basename(path),
                                       "--format", "json", "-j", "1"],
                                      os.path.dirname(path),
                                      pack="own" if len(packs) == 1 else "stub"))

    # 3. PromptKit's offline SDK examples: `promptexec run PACK --prompt P --message M...`.
    for example in sorted(SDK_EXAMPLES):
        spec = SDK_EXAMPLES[example]
        folder = os.path.join(pk, "sdk", "examples", example)
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

    # 4. PromptArena's examples with a mock provider: `promptexec run PACK scenarios/`
    # when the example ships a pack; else its `kind: Arena` config is the only way in.
    examples_root = os.path.join(pa, "examples")
    for entry in sorted(os.listdir(examples_root)):
        example = os.path.join(examples_root, entry)
        if not os.path.isdir(example):
            continue
        yamls = walk(example, lambda p: p.endswith((".yaml", ".yml")))
        if not any(MOCK_PROVIDER_RE.search(read(p)) for p in yamls):
            excluded.append({"id": f"example promptarena:examples/{entry}",
                             "reason": "no mock provider: needs a network model"})
            continue
        packs = walk(example, lambda p: p.endswith(".pack.json")
                     and os.path.dirname(p) == example)
        aid = f"example promptarena:examples/{entry}"
        if len(packs) == 1 and os.path.isdir(os.path.join(example, "scenarios")):
            argv = [binary, "run", os.path.basename(packs[0]), "scenarios", "--format", "json",
                    "-j", "2"]
            mock = mock_config(example)
            if mock:
                argv += ["--mock", os.path.relpath(mock, example)]
            artifacts.append(artifact(aid, "arena-example", "promptarena",
                                      f"examples/{entry}", argv, example))
        else:
            arenas = [p for p in yamls if ARENA_RE.search(read(p))]
            artifacts.append(artifact(aid, "arena-example", "promptarena", f"examples/{entry}",
                                      None, example,
                                      verdict="kind: Arena config not read"
                                      if arenas else "no pack and no arena config"))

    # 5. PicoClaw's hook docs: each process-hook entry with its reference script,
    # pasted into a RuntimeConfig's spec.hooks: `promptexec hook test NAME --all-phases`.
    artifacts += picoclaw_hooks(pc, binary, work, excluded)
    return sorted(artifacts, key=lambda a: a["id"]), sorted(excluded, key=lambda e: e["id"])


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


def first_error(stderr, stdout):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if ERROR_LINE_RE.match(line):
            return line
    for line in lines:
        if not line.startswith(("warning", "|", "^")) and not re.match(r"^\d+ \|", line):
            return line
    tail = [line.strip() for line in stdout.splitlines() if line.strip()]
    return (lines or tail or ["no output"])[0]


def all_errors(stderr):
    return [line.strip() for line in stderr.splitlines() if ERROR_LINE_RE.match(line.strip())]


def answers(report):
    """The assistant answers of a `run --format json` conversation, in order."""
    found = []
    for message in report.get("messages", []) if isinstance(report, dict) else []:
        if isinstance(message, dict) and message.get("role") == "assistant":
            found.append(message.get("content") or "")
    return found


def judge(item, code, stdout, stderr):
    """(ran, reason) for one finished command."""
    if code == 0 and not item["kind"] in ("arena-example", "scenario"):
        if item.get("expect"):
            try:
                got = answers(json.loads(stdout))
            except ValueError:
                return False, "no json report"
            for turn, text in sorted(item["expect"].items()):
                if len(got) < turn or text not in got[turn - 1]:
                    seen = got[turn - 1] if len(got) >= turn else "nothing"
                    return False, f"turn {turn} answered {seen!r}, not {text!r}"
        return True, ""
    suite = item["kind"] in ("arena-example", "scenario")
    report = None
    if suite and code in (0, 1):
        try:
            report = json.loads(stdout)
        except ValueError:
            report = None
    partial = partial_reason(report) if report else None
    if suite and code in (0, 1) and not partial:
        # A turn left unplayed with only a warning: the run is partial too.
        skips = [line.strip() for line in stderr.splitlines()
                 if WARNING_LINE_RE.match(line.strip()) and SKIP_RE.search(line)]
        partial = LOCATION_RE.sub("", skips[0]) if skips else None
    if partial:
        return False, f"partial: {partial}"
    if code == 0:
        return True, ""
    if code == 1 and report:
        # Exit 1 with every scenario played and no error: the suite's own verdict
        # (a failed assertion), which counts as ran.
        summary = report.get("summary") or {}
        if not summary.get("errors") and summary.get("failed"):
            return True, "verdict: an assertion failed"
    return False, f"exit {code}: {first_error(stderr, stdout)}"


def partial_reason(report):
    """Why a suite report is partial (an assertion or turn skipped), else None."""
    scenarios = report.get("scenarios") if isinstance(report, dict) else None
    for index in report.get("index", []) if isinstance(report, dict) else []:
        if str(index.get("result", "")).lower() == "partial":
            break
    else:
        return None
    for scenario in scenarios or []:
        for assertion in scenario.get("assertions", []):
            if assertion.get("outcome") == "skipped" or assertion.get("skipped") is True:
                why = assertion.get("detail") or assertion.get("reason") or "skipped"
                return f"{assertion.get('type', 'assertion')} skipped: {why}"
    return "a scenario is partial"


def execute(item, argv, timeout):
    """(ran, reason, exit code, error lines, warning lines) of one command."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("PROMPTEXEC_CONFIG", None)
    env["NO_COLOR"] = "1"
    try:
        done = subprocess.run(argv, cwd=item["cwd"], capture_output=True, text=True,
                              timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, f"timeout after {timeout} s", None, [], []
    ran, reason = judge(item, done.returncode, done.stdout, done.stderr)
    warnings = [line.strip() for line in done.stderr.splitlines()
                if WARNING_LINE_RE.match(line.strip())]
    return ran, reason, done.returncode, all_errors(done.stderr), warnings


HOOK_LOG_LOCK = threading.Lock()


def run_hook_conversation(item, timeout):
    """Play a conversation with one tool call past a PicoClaw hook; it ran when the run
    ends well and the hook's own log shows it heard what its entry asks for."""
    then = item["then"]
    with HOOK_LOG_LOCK:  # entries of one doc share their log file
        if then["log"] and os.path.exists(then["log"]):
            os.remove(then["log"])
        ran, reason, code, errors, warnings = execute(item, then["argv"], timeout)
        heard = set()
        if then["log"] and os.path.exists(then["log"]):
            for line in read(then["log"]).splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("direction") == "in" and entry.get("method"):
                    heard.add(entry["method"])
    if not ran:
        return False, f"in a run: {reason}", code, errors, warnings
    if then["log"]:
        wanted = (["hook.runtime_event"] if then["observes"] else []) + [
            f"hook.{name}" for name in then["intercepts"] if name in ("before_tool",
                                                                       "approve_tool",
                                                                       "after_tool")]
        missing = [method for method in wanted if method not in heard]
        if missing:
            return (False, f"in a run the hook heard {sorted(heard) or 'nothing'}, not "
                           f"{', '.join(missing)}", code, errors, warnings)
    return True, "", code, errors, warnings


def run_one(item, timeout, empty_config):
    if item["argv"] is None:
        return {**item, "ran": False, "reason": item["verdict"], "exit": None, "errors": [],
                "warnings": []}
    ran, reason, code, errors, warnings = execute(item, item["argv"], timeout)
    if ran and item.get("then"):
        ran, reason, code, errors, warnings = run_hook_conversation(item, timeout)
    result = {**item, "ran": ran, "reason": reason, "exit": code, "errors": errors,
              "warnings": warnings}
    if not ran and "error: no config" in reason:
        # What would stop it next: the same command with an empty RuntimeConfig.
        again = execute(item, [item["argv"][0], "-c", empty_config, *item["argv"][1:]],
                        timeout)
        result["with_empty_config"] = "ran" if again[0] else again[1]
        result["errors_with_empty_config"] = again[3]
        result["warnings_with_empty_config"] = again[4]
    return result


def group_key(reason):
    """A failure reason with its file location and exit code left out."""
    text = LOCATION_RE.sub("", re.sub(r"^exit \d+: ", "", reason))
    return re.sub(r"(?<=/)\d+(?=/|:|\s|$)", "N", text)


def find_binary(explicit):
    if explicit:
        return explicit
    for candidate in ("target/debug/promptexec", "target/release/promptexec"):
        path = os.path.join(ROOT, candidate)
        if os.path.exists(path):
            return path
    subprocess.run(["cargo", "build"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target/debug/promptexec")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--promptkit", default=DEFAULT_REPOS["promptkit"])
    parser.add_argument("--promptarena", default=DEFAULT_REPOS["promptarena"])
    parser.add_argument("--picoclaw", default=DEFAULT_REPOS["picoclaw"])
    parser.add_argument("--binary", help="promptexec [default: target/debug, else release]")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                        "promptexec-corpus"))
    parser.add_argument("--timeout", type=int, default=60, help="seconds per artifact")
    parser.add_argument("-j", "--jobs", type=int, default=4)
    parser.add_argument("--json", help="write a JSON summary to this file")
    parser.add_argument("--markdown", help="write the failures grouped by reason here")
    parser.add_argument("--filter", help="only artifacts whose id contains this text")
    args = parser.parse_args()

    os.makedirs(args.cache, exist_ok=True)
    trees, commits = {}, {}
    for name in ("promptkit", "promptarena", "picoclaw"):
        trees[name], commits[name], missing = export(name, getattr(args, name), args.cache)
        print(f"# {name} {commits[name]}" + (f" ({len(missing)} absent blobs left out)"
                                           if missing else ""))

    # Copy the binary, so a rebuild while the corpus runs does not change it mid-way.
    source = find_binary(args.binary)
    work = os.path.join(args.cache, "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    binary = os.path.join(work, "promptexec")
    shutil.copy2(source, binary)
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    print(f"# {source}: {version.strip()}")

    empty_config = os.path.join(work, "empty.runtimeconfig.yaml")
    with open(empty_config, "w") as out:
        out.write(EMPTY_CONFIG)
    artifacts, excluded = discover(trees, binary, work)
    if args.filter:
        artifacts = [a for a in artifacts if args.filter in a["id"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda a: run_one(a, args.timeout, empty_config), artifacts))

    for result in results:
        if result["ran"]:
            print(f"ok   {result['id']}" + (f"  ({result['reason']})" if result["reason"]
                                            else ""))
        else:
            print(f"FAIL {result['id']}: {result['reason']}")
    for item in excluded:
        print(f"skip {item['id']}: {item['reason']}")
    ran = sum(1 for r in results if r["ran"])
    groups = {}
    for result in results:
        if not result["ran"]:
            groups.setdefault(group_key(result["reason"]), []).append(result["id"])
    print(f"{ran} of {len(results)} ran unchanged")

    if args.json:
        summary = {
            "commits": commits, "binary": source, "version": version.strip(),
            "ran": ran, "total": len(results),
            "by_kind": {kind: {"ran": sum(1 for r in results if r["kind"] == kind
                                          and r["ran"]),
                               "total": sum(1 for r in results if r["kind"] == kind)}
                        for kind in sorted({r["kind"] for r in results})},
            "artifacts": [{k: r[k] for k in ("id", "kind", "ran", "reason", "exit", "errors",
                                             "warnings", "with_empty_config",
                                             "errors_with_empty_config",
                                             "warnings_with_empty_config") if k in r}
                          | {"command": None if r["argv"] is None else
                             ["promptexec"] + r["argv"][1:]}
                          for r in results],
            "failures_by_reason": {k: sorted(v) for k, v in
                                   sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))},
            "excluded": excluded,
        }
        with open(args.json, "w") as out:
            json.dump(summary, out, indent=2)
            out.write("\n")
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(markdown(results, excluded, ran))
    return 0


def markdown(results, excluded, ran):
    """Failures grouped by reason, largest group first, as Markdown."""
    lines = [f"{ran} of {len(results)} ran unchanged.", ""]
    kinds = sorted({r["kind"] for r in results})
    lines += ["| kind | ran | of |", "|---|---|---|"]
    for kind in kinds:
        mine = [r for r in results if r["kind"] == kind]
        lines.append(f"| {kind} | {sum(r['ran'] for r in mine)} | {len(mine)} |")
    lines += ["", "### Failing, grouped by reason", ""]
    groups = {}
    for result in results:
        if not result["ran"]:
            key = group_key(result["reason"])
            if "with_empty_config" in result:
                key = "no config; with an empty config: " + (
                    "runs" if result["with_empty_config"] == "ran"
                    else group_key(result["with_empty_config"]))
            groups.setdefault(key, []).append(result["id"])
    for key, ids in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"- **{len(ids)}** × {key}")
        lines += [f"  - {i}" for i in sorted(ids)]
    lines += ["", "### Every error line, by the number of artifacts it stops", "",
              "(all of each artifact's errors, not only its first; with an empty config where "
              "the artifact stops at the missing config)", ""]
    counts = {}
    for result in results:
        if result["ran"]:
            continue
        errors = result.get("errors_with_empty_config") or result["errors"]
        for key in sorted({group_key(e) for e in errors if "error: no config" not in e}):
            counts.setdefault(key, set()).add(result["id"])
    for key, ids in sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"- {len(ids)} × {key}")
    lines += ["", "### Left out (not offline, or not runnable outside their host)", ""]
    lines += [f"- {e['id']}: {e['reason']}" for e in excluded]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
