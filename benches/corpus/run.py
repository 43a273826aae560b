#!/usr/bin/env python3
"""Run promptexec over the offline artifacts of PromptKit, PromptArena and PicoClaw.

Every artifact is run the way a user would run it through promptexec, unchanged,
and classified as ran (`ok`) or failed (`FAIL reason`). See README.md beside this
file for the mapping from artifact to command and for what counts as ran.

Python 3 standard library only. Not run by CI: it needs the three snapshots.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

from artifacts import discover, read
from verdict import WARNING_LINE_RE, all_errors, group_key, judge

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

DEFAULT_REPOS = {
    "promptkit": "/work/.mirror/AltairaLabs+PromptKit/repo",
    "promptarena": "/work/.mirror/AltairaLabs+promptarena/repo",
    "picoclaw": "/work/.mirror/sipeed+picoclaw/repo",
}
# The examples figure: PromptArena's examples, PromptKit's Arena projects and SDK examples.
EXAMPLE_KINDS = ("arena-example", "promptkit-arena", "sdk-example")
EMPTY_CONFIG = ("apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\n"
                "metadata:\n  name: empty\nspec: {}\n")


def git(git_dir, *args):
    done = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {args[0]} failed for {git_dir}: {done.stderr.strip()}")
    return done.stdout


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
    for name, path in DEFAULT_REPOS.items():
        parser.add_argument(f"--{name}", default=path, metavar="GIT_DIR",
                            help=f"git directory of {name} [default: {path}]")
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
    built = datetime.datetime.fromtimestamp(os.path.getmtime(source), datetime.timezone.utc)
    head = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h"], capture_output=True,
                          text=True).stdout.strip()
    version = f"{version.strip()}, built {built:%Y-%m-%d %H:%M:%S} UTC, checkout at {head}"
    print(f"# {source}: {version}")

    empty_config = os.path.join(work, "empty.runtimeconfig.yaml")
    with open(empty_config, "w") as out:
        out.write(EMPTY_CONFIG)
    artifacts, excluded = discover(trees, binary, work)
    if args.filter:
        artifacts = [a for a in artifacts if args.filter in a["id"]]
        excluded = [e for e in excluded if args.filter in e["id"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda a: run_one(a, args.timeout, empty_config), artifacts))
    for result in results:  # paths inside the exported trees, as repository paths
        for name, root in trees.items():
            for key in ("reason", "with_empty_config"):
                if isinstance(result.get(key), str):
                    result[key] = result[key].replace(root + os.sep, f"{name}:")

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
    partial = sum(1 for r in results if r["reason"].startswith("partial: "))
    for kind in sorted({r["kind"] for r in results}):
        mine = [r for r in results if r["kind"] == kind]
        print(f"{kind}: {sum(r['ran'] for r in mine)} of {len(mine)} ran")
    examples = [r for r in results if r["kind"] in EXAMPLE_KINDS]
    network = [r for r in examples if needs_network(r)]
    print(f"examples: {sum(r['ran'] for r in examples)} of {len(examples)} ran unchanged"
          f" ({len(network)} of the others play against a network provider: no key here,"
          f" or a type promptexec does not call)")
    print(f"{ran} of {len(results)} ran unchanged")
    print(f"({partial} more played only in part: a turn or an assertion not played)")

    if args.json:
        summary = {
            "commits": commits, "binary": source, "version": version.strip(),
            "ran": ran, "partial": partial, "total": len(results),
            "examples": {"ran": sum(1 for r in results if r["kind"] in EXAMPLE_KINDS
                                    and r["ran"]),
                         "network": sum(1 for r in results if r["kind"] in EXAMPLE_KINDS
                                        and needs_network(r)),
                         "total": sum(1 for r in results if r["kind"] in EXAMPLE_KINDS)},
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
            out.write(markdown(results, excluded, ran, partial))
    return 0


def needs_network(result):
    """Whether a run stopped because a provider it plays against is a network model
    (its key is not set, or promptexec does not call its type): PromptArena needs the
    network for it too."""
    return not result["ran"] and bool(NETWORK_RE.search(result["reason"]))


NETWORK_RE = re.compile(r"no API key|which promptexec does not call")


def markdown(results, excluded, ran, partial):
    """Failures grouped by reason, largest group first, as Markdown."""
    examples = [r for r in results if r["kind"] in EXAMPLE_KINDS]
    lines = [f"{ran} of {len(results)} ran unchanged; {partial} more played only in part.",
             f"examples: {sum(r['ran'] for r in examples)} of {len(examples)} ran unchanged.",
             ""]
    kinds = sorted({r["kind"] for r in results})
    lines += ["| kind | ran | partial | of |", "|---|---|---|---|"]
    for kind in kinds:
        mine = [r for r in results if r["kind"] == kind]
        part = sum(1 for r in mine if r["reason"].startswith("partial: "))
        lines.append(f"| {kind} | {sum(r['ran'] for r in mine)} | {part} | {len(mine)} |")
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
