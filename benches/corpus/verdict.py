"""Whether an artifact ran: exit codes, reports and the first error line."""

import json
import re

LOCATION_RE = re.compile(r"^(?:\w+:)?(?:[^\s:]+:\d+:\d+|[^\s:]+\.(?:ya?ml|json)):\s*")
ERROR_LINE_RE = re.compile(
    r"^(error|[^\s:]+:\d+:\d+: (?!warning)|[^\s:]+\.(?:ya?ml|json): (?!warning))")
WARNING_LINE_RE = re.compile(r"^(warning|[^\s:]+(?::\d+:\d+)?: warning)")
SUITE_KINDS = ("arena-example", "promptkit-arena", "scenario")
SKIP_RE = re.compile(r"not played|is skipped|are skipped")


def first_error(stderr, stdout):
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if ERROR_LINE_RE.match(line):
            return line
    for line in lines:
        if not line.startswith(("warning", "|", "^")) and not re.match(r"^\d+ \|", line) \
                and not WARNING_LINE_RE.match(line):
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
    if item.get("refusal"):
        if code == 2 and item["refusal"] in stderr:
            return True, f"refused, as PromptKit refuses it ({item['refusal']})"
        return False, (f"exit {code}: PromptKit refuses this (naming {item['refusal']!r}); "
                       f"promptexec did not")
    if code == 0 and item["kind"] not in SUITE_KINDS:
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
    suite = item["kind"] in SUITE_KINDS
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
    """Why a suite report is partial (a turn or an assertion not played), else None.
    An assertion skipped by its own `when` is the suite's logic, not a gap."""
    if not isinstance(report, dict):
        return None
    for scenario in report.get("scenarios") or []:
        for assertion in scenario.get("assertions", []):
            detail = str(assertion.get("detail") or "")
            if assertion.get("outcome") == "skipped" and detail.startswith("not played"):
                return f"{assertion.get('type', 'assertion')} skipped: {detail}"
        for problem in scenario.get("problems") or []:
            if isinstance(problem, str) and problem.startswith("not played"):
                return problem
        for turn in (scenario.get("unplayed_turns") or []) + (
                scenario.get("played_in_part") or []):
            if isinstance(turn, str):
                return turn
            if isinstance(turn, dict) and turn.get("reason"):
                return f"not played: {turn['reason']}"
    if any(str(i.get("result", "")).lower() == "partial" for i in report.get("index", [])):
        return "a scenario is partial"
    return None


def group_key(reason):
    """A failure reason with its file location and exit code left out."""
    text = LOCATION_RE.sub("", re.sub(r"^exit \d+: ", "", reason))
    text = re.sub(r"(?<=/)\d+(?=/|:|\s|$)", "N", text)
    text = re.sub(r"\bturn \d+\b", "turn N", text)
    text = re.sub(r"\(role `[^`]*`, persona `[^`]*`\)", "(role R, persona P)", text)
    text = re.sub(r"\(persona `[^`]*`\)", "(persona P)", text)
    return re.sub(r"^partial: not played: not played: ", "partial: not played: ", text)
