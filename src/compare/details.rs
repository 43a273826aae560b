//! What changed below an item's verdict: in each pair of trials, the tool calls
//! (added, removed, other arguments, another answer, slower), the hook decisions,
//! the evals' scores and verdicts, the time taken, tokens and cost; in a scenario,
//! its assertions; in a test case, its message and answer; in a probe, its time.

use serde_json::Value as Json;

use crate::diff::{Paired, changes as json_changes, pair};

use super::items::{list, text};
use super::{Change, Metric, Tolerances};

/// Changes of time smaller than this are never reported, whatever the fraction:
/// below it, a report shows the machine's noise.
pub(crate) const LATENCY_FLOOR_MS: f64 = 100.0;

/// How many changes of one answer or argument list are shown; the rest are counted.
const MOST_POINTERS: usize = 10;

/// The changes between trial `trial` of two runs; `trial` is `None` when each run
/// played one, so the lines need not say which.
/// The evals of a scenario's assertions (`assertions`, their ids) are told by
/// their score alone: their verdicts are the scenario's.
pub(super) fn trial(
    trial: Option<usize>,
    base: &Json,
    head: &Json,
    tol: &Tolerances,
    assertions: &[&str],
    out: &mut Vec<Change>,
) {
    let at = At(trial);
    tool_calls(at, base, head, tol, out);
    hook_decisions(at, base, head, out);
    evals(at, base, head, tol, assertions, out);
    let totals = |side: &Json, pointer: &str| side.pointer(pointer).and_then(Json::as_f64);
    if let (Some(b), Some(h)) = (
        totals(base, "/totals/duration_ms"),
        totals(head, "/totals/duration_ms"),
    ) {
        latency(at, "latency", "", b, h, tol, out);
    }
    if let (Some(b), Some(h)) = (
        totals(base, "/totals/model/latency_ms"),
        totals(head, "/totals/model/latency_ms"),
    ) {
        latency(at, "model-latency", "model calls ", b, h, tol, out);
    }
    let tokens = |side: &Json| {
        let get = |key: &str| totals(side, &format!("/totals/model/{key}"));
        Some(get("input_tokens")? + get("output_tokens").unwrap_or(0.0))
    };
    if let (Some(b), Some(h)) = (tokens(base), tokens(head)) {
        cost(at, "tokens", b, h, tol, out, |v| format!("{v} tokens"));
    }
    if let (Some(b), Some(h)) = (
        totals(base, "/totals/model/cost_usd"),
        totals(head, "/totals/model/cost_usd"),
    ) {
        cost(at, "cost", b, h, tol, out, |v| format!("${v:.4}"));
    }
}

/// A scenario's assertions, by id: a verdict that changed, or a pass rate over the
/// trials that moved more than the score tolerance.
pub(super) fn assertions(base: &Json, head: &Json, tol: &Tolerances, out: &mut Vec<Change>) {
    let b = list(base, "assertions");
    let h = list(head, "assertions");
    for paired in pair(b, h, |a| text(a, "id").to_string()) {
        let Paired::Both(b, h) = paired else { continue };
        let id = text(b, "id");
        let what = match text(h, "message") {
            "" => format!("assertion {id} ({})", text(h, "type")),
            message => format!("assertion {id} ({message})"),
        };
        let rate = |a: &Json| {
            let passes = a.get("passes").and_then(Json::as_f64)?;
            let trials = a.get("trials").and_then(Json::as_f64)?;
            (trials > 0.0).then(|| passes / trials)
        };
        let (bo, ho) = (text(b, "outcome"), text(h, "outcome"));
        if bo != ho {
            let detail = match text(h, "detail") {
                "" => String::new(),
                detail => format!(": {}", one_line(detail)),
            };
            out.push(Change::new(
                "assertion",
                format!("{what}: {bo} → {ho}{detail}"),
            ));
        } else if let (Some(br), Some(hr)) = (rate(b), rate(h))
            && (hr - br).abs() > tol.score() + f64::EPSILON
        {
            let mut change = Change::new(
                "assertion-score",
                format!(
                    "{what}: pass rate {} → {} ({})",
                    num(br),
                    num(hr),
                    signed(hr - br)
                ),
            );
            change.worse = (hr < br).then_some(Metric::Score);
            out.push(change);
        }
    }
}

/// A test case: its message and the extension's answer (times aside).
pub(super) fn case(base: &Json, head: &Json, tol: &Tolerances, out: &mut Vec<Change>) {
    let (bm, hm) = (text(base, "message"), text(head, "message"));
    if bm != hm {
        let text = match hm {
            "" => "no message now".to_string(),
            message => format!("message: {message}"),
        };
        out.push(Change::new("message", text));
    }
    let nothing = Json::Null;
    let (ba, ha) = (
        base.get("actual").unwrap_or(&nothing),
        head.get("actual").unwrap_or(&nothing),
    );
    let found: Vec<_> = json_changes(ba, ha)
        .into_iter()
        .filter(|c| !c.pointer.ends_with("/duration_ms"))
        .collect();
    pointer_lines(At(None), "answer", "the answer", &found, out);
    duration(base, head, tol, out);
}

/// A check probe: its hint and its time.
pub(super) fn probe(base: &Json, head: &Json, tol: &Tolerances, out: &mut Vec<Change>) {
    let (bh, hh) = (text(base, "hint"), text(head, "hint"));
    if bh != hh && !hh.is_empty() {
        out.push(Change::new("hint", format!("hint: {hh}")));
    }
    duration(base, head, tol, out);
}

fn duration(base: &Json, head: &Json, tol: &Tolerances, out: &mut Vec<Change>) {
    let ms = |side: &Json| side.get("duration_ms").and_then(Json::as_f64);
    if let (Some(b), Some(h)) = (ms(base), ms(head)) {
        latency(At(None), "latency", "", b, h, tol, out);
    }
}

/// `trial N: ` in front of a line, when the runs played more than one trial.
#[derive(Clone, Copy)]
struct At(Option<usize>);

impl At {
    fn line(self, text: String) -> String {
        match self.0 {
            Some(n) => format!("trial {n}: {text}"),
            None => text,
        }
    }

    fn change(self, kind: &'static str, text: String) -> Change {
        let mut change = Change::new(kind, self.line(text));
        change.trial = self.0;
        change
    }
}

fn tool_calls(at: At, base: &Json, head: &Json, tol: &Tolerances, out: &mut Vec<Change>) {
    let b = keyed(list(base, "tool_calls"), &["name"]);
    let h = keyed(list(head, "tool_calls"), &["name"]);
    for paired in pair(&b, &h, |(key, _)| key.clone()) {
        match paired {
            Paired::OnlyLeft((_, call)) => out.push(at.change(
                "tool-call-removed",
                format!(
                    "`{}` is no longer called (it was, with {})",
                    text(call, "name"),
                    short(call.get("args"))
                ),
            )),
            Paired::OnlyRight((_, call)) => out.push(at.change(
                "tool-call-added",
                format!(
                    "`{}` is called now, with {}",
                    text(call, "name"),
                    short(call.get("args"))
                ),
            )),
            Paired::Both((_, b), (_, h)) => {
                let name = text(h, "name");
                let nothing = Json::Null;
                let args = |call: &Json| call.get("args").unwrap_or(&nothing).clone();
                let found = json_changes(&args(b), &args(h));
                pointer_lines(at, "tool-args", &format!("`{name}` argument"), &found, out);
                let (bs, hs) = (text(b, "status"), text(h, "status"));
                if bs != hs {
                    out.push(at.change("tool-status", format!("`{name}` answered {hs}, was {bs}")));
                }
                let ms = |call: &Json| call.get("duration_ms").and_then(Json::as_f64);
                if let (Some(bm), Some(hm)) = (ms(b), ms(h)) {
                    latency(at, "tool-latency", &format!("`{name}` "), bm, hm, tol, out);
                }
            }
        }
    }
}

fn hook_decisions(at: At, base: &Json, head: &Json, out: &mut Vec<Change>) {
    let b = keyed(list(base, "hook_decisions"), &["hook", "phase"]);
    let h = keyed(list(head, "hook_decisions"), &["hook", "phase"]);
    let place = |d: &Json| format!("hook `{}` at {}", text(d, "hook"), text(d, "phase"));
    let reason = |d: &Json| match text(d, "reason") {
        "" => String::new(),
        reason => format!(": {}", one_line(reason)),
    };
    for paired in pair(&b, &h, |(key, _)| key.clone()) {
        let line = match paired {
            Paired::OnlyLeft((_, d)) => {
                format!("{} no longer decides {}", place(d), text(d, "action"))
            }
            Paired::OnlyRight((_, d)) => {
                format!(
                    "{} decides {} now{}",
                    place(d),
                    text(d, "action"),
                    reason(d)
                )
            }
            Paired::Both((_, b), (_, h)) if text(b, "action") != text(h, "action") => format!(
                "{} decides {} now, was {}{}",
                place(h),
                text(h, "action"),
                text(b, "action"),
                reason(h)
            ),
            Paired::Both(..) => continue,
        };
        out.push(at.change("hook-decision", line));
    }
}

fn evals(
    at: At,
    base: &Json,
    head: &Json,
    tol: &Tolerances,
    assertions: &[&str],
    out: &mut Vec<Change>,
) {
    let b = keyed(list(base, "evals"), &["eval_id", "turn"]);
    let h = keyed(list(head, "evals"), &["eval_id", "turn"]);
    let is_assertion = |e: &Json| assertions.contains(&text(e, "eval_id"));
    let name = |e: &Json| {
        let what = if is_assertion(e) { "assertion" } else { "eval" };
        match e.get("turn").and_then(Json::as_u64) {
            Some(turn) => format!("{what} `{}` (turn {turn})", text(e, "eval_id")),
            None => format!("{what} `{}`", text(e, "eval_id")),
        }
    };
    for paired in pair(&b, &h, |(key, _)| key.clone()) {
        match paired {
            Paired::OnlyLeft((_, e)) => {
                out.push(at.change("eval-removed", format!("{} no longer runs", name(e))));
            }
            Paired::OnlyRight((_, e)) => out.push(at.change(
                "eval-added",
                format!("{} runs now: {}", name(e), text(e, "status")),
            )),
            Paired::Both((_, b), (_, h)) => {
                let (bs, hs) = (text(b, "status"), text(h, "status"));
                let score = |e: &Json| e.get("score").and_then(Json::as_f64);
                let moved = match (score(b), score(h)) {
                    (Some(bv), Some(hv)) if (hv - bv).abs() > tol.score() + f64::EPSILON => {
                        Some((bv, hv))
                    }
                    _ => None,
                };
                let scored = |(bv, hv): (f64, f64)| {
                    format!("score {} → {} ({})", num(bv), num(hv), signed(hv - bv))
                };
                let mut change = match (bs != hs, moved) {
                    // An assertion's verdict is the scenario's, said there.
                    (true, _) if is_assertion(h) => continue,
                    (true, None) => at.change("eval-status", format!("{}: {bs} → {hs}", name(h))),
                    (true, Some(m)) => at.change(
                        "eval-status",
                        format!("{}: {bs} → {hs}, {}", name(h), scored(m)),
                    ),
                    (false, Some(m)) => at.change("score", format!("{}: {}", name(h), scored(m))),
                    (false, None) => continue,
                };
                change.worse = moved.filter(|(bv, hv)| hv < bv).map(|_| Metric::Score);
                out.push(change);
            }
        }
    }
}

/// A time that moved by more than the latency tolerance (a fraction of the base)
/// and by at least [`LATENCY_FLOOR_MS`].
fn latency(
    at: At,
    kind: &'static str,
    what: &str,
    base: f64,
    head: f64,
    tol: &Tolerances,
    out: &mut Vec<Change>,
) {
    let moved = (head - base).abs();
    if moved < LATENCY_FLOOR_MS || moved <= tol.latency() * base {
        return;
    }
    let mut change = at.change(
        kind,
        format!(
            "{what}took {} ms, was {} ms{}",
            num(head),
            num(base),
            percent(base, head)
        ),
    );
    change.worse = (head > base).then_some(Metric::Latency);
    out.push(change);
}

/// Tokens or cost that moved by more than the cost tolerance (a fraction).
fn cost(
    at: At,
    kind: &'static str,
    base: f64,
    head: f64,
    tol: &Tolerances,
    out: &mut Vec<Change>,
    show: impl Fn(f64) -> String,
) {
    let moved = (head - base).abs();
    if moved <= f64::EPSILON || moved <= tol.cost() * base {
        return;
    }
    let mut change = at.change(
        kind,
        format!("{} → {}{}", show(base), show(head), percent(base, head)),
    );
    change.worse = (head > base).then_some(Metric::Cost);
    out.push(change);
}

/// One line per place two values differ, up to [`MOST_POINTERS`], then a count.
fn pointer_lines(
    at: At,
    kind: &'static str,
    what: &str,
    found: &[crate::diff::Change],
    out: &mut Vec<Change>,
) {
    for c in found.iter().take(MOST_POINTERS) {
        let place = match c.pointer.as_str() {
            "" => String::new(),
            pointer => format!(" {pointer}"),
        };
        let mut change = at.change(
            kind,
            format!(
                "{what}{place}: {} → {}",
                short(c.left.as_ref()),
                short(c.right.as_ref())
            ),
        );
        change.pointer = Some(c.pointer.clone());
        out.push(change);
    }
    if found.len() > MOST_POINTERS {
        out.push(at.change(
            kind,
            format!("{what}: {} more change(s)", found.len() - MOST_POINTERS),
        ));
    }
}

/// Each item of a list beside its key: the values of `fields` and how many items
/// before it had the same ones, so the second call of a tool pairs with the second.
fn keyed<'a>(items: &'a [Json], fields: &[&str]) -> Vec<((Vec<String>, usize), &'a Json)> {
    let mut seen: Vec<Vec<String>> = Vec::new();
    items
        .iter()
        .map(|item| {
            let key: Vec<String> = fields
                .iter()
                .map(|f| match item.get(*f) {
                    Some(Json::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                })
                .collect();
            let nth = seen.iter().filter(|k| **k == key).count();
            seen.push(key.clone());
            ((key, nth), item)
        })
        .collect()
}

/// A value in one short line: compact JSON, cut at 80 characters; `(none)` for
/// nothing.
fn short(value: Option<&Json>) -> String {
    let Some(value) = value else {
        return "(none)".into();
    };
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn one_line(text: &str) -> String {
    short(Some(&Json::String(
        text.lines().next().unwrap_or_default().into(),
    )))
    .trim_matches('"')
    .to_string()
}

/// A number without a needless fraction: `1`, `0.5`, `0.333`.
pub(super) fn num(value: f64) -> String {
    let rounded = (value * 1000.0).round() / 1000.0;
    if rounded.fract() == 0.0 && rounded.abs() < 1e15 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded}")
    }
}

fn signed(delta: f64) -> String {
    if delta >= 0.0 {
        format!("+{}", num(delta))
    } else {
        format!("−{}", num(-delta))
    }
}

/// ` (+42%)`, or nothing when the base was zero.
fn percent(base: f64, head: f64) -> String {
    if base <= 0.0 {
        return String::new();
    }
    let change = (head - base) / base * 100.0;
    if change >= 0.0 {
        format!(" (+{:.0}%)", change)
    } else {
        format!(" (−{:.0}%)", -change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tol() -> Tolerances {
        Tolerances::default()
    }

    fn texts(changes: &[Change]) -> Vec<&str> {
        changes.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn tool_calls_pair_by_name_and_order() {
        let base = json!({"tool_calls": [
            {"name": "lookup", "args": {"id": "A-1"}, "status": "ok", "duration_ms": 10},
            {"name": "lookup", "args": {"id": "A-2"}, "status": "ok", "duration_ms": 10},
            {"name": "gone", "args": {}, "status": "ok"}]});
        let head = json!({"tool_calls": [
            {"name": "lookup", "args": {"id": "A-1"}, "status": "ok", "duration_ms": 10},
            {"name": "lookup", "args": {"id": "A-3"}, "status": "error", "duration_ms": 900},
            {"name": "new", "args": {"x": 1}, "status": "ok"}]});
        let mut out = Vec::new();
        trial(Some(1), &base, &head, &tol(), &[], &mut out);
        assert_eq!(
            texts(&out),
            [
                "trial 1: `lookup` argument /id: \"A-2\" → \"A-3\"",
                "trial 1: `lookup` answered error, was ok",
                "trial 1: `lookup` took 900 ms, was 10 ms (+8900%)",
                "trial 1: `gone` is no longer called (it was, with {})",
                "trial 1: `new` is called now, with {\"x\":1}",
            ]
        );
        assert_eq!(out[0].pointer.as_deref(), Some("/id"));
        assert_eq!(out[2].worse, Some(Metric::Latency));
    }

    #[test]
    fn hook_decisions_evals_and_totals_are_compared() {
        let base = json!({
            "hook_decisions": [],
            "evals": [{"eval_id": "tone", "turn": 1, "score": 1.0, "status": "passed"}],
            "totals": {"duration_ms": 1000, "model": {"latency_ms": 0, "input_tokens": 100, "output_tokens": 20, "cost_usd": 0.01}}});
        let head = json!({
            "hook_decisions": [{"hook": "guard", "phase": "before_execution", "action": "deny_tool", "reason": "no"}],
            "evals": [{"eval_id": "tone", "turn": 1, "score": 0.5, "status": "failed"}],
            "totals": {"duration_ms": 1400, "model": {"latency_ms": 0, "input_tokens": 100, "output_tokens": 40, "cost_usd": 0.012}}});
        let mut out = Vec::new();
        trial(None, &base, &head, &tol(), &[], &mut out);
        assert_eq!(
            texts(&out),
            [
                "hook `guard` at before_execution decides deny_tool now: no",
                "eval `tone` (turn 1): passed → failed, score 1 → 0.5 (−0.5)",
                "120 tokens → 140 tokens (+17%)",
                "$0.0100 → $0.0120 (+20%)",
            ],
            "a 40% slower trial is within the default latency tolerance"
        );
        let loose = Tolerances {
            score: Some(0.5),
            cost: Some(0.25),
            latency: Some(0.3),
        };
        let mut out = Vec::new();
        trial(None, &base, &head, &loose, &[], &mut out);
        assert_eq!(
            texts(&out),
            [
                "hook `guard` at before_execution decides deny_tool now: no",
                "eval `tone` (turn 1): passed → failed",
                "took 1400 ms, was 1000 ms (+40%)",
            ]
        );
    }

    #[test]
    fn small_times_are_noise() {
        let mut out = Vec::new();
        latency(At(None), "latency", "", 10.0, 90.0, &tol(), &mut out);
        assert!(out.is_empty(), "80 ms is below the floor");
        latency(At(None), "latency", "", 10.0, 200.0, &tol(), &mut out);
        assert_eq!(texts(&out), ["took 200 ms, was 10 ms (+1900%)"]);
    }

    #[test]
    fn a_case_answer_is_compared_by_pointer_without_its_times() {
        let base = json!({"message": null, "duration_ms": 5, "actual": {"status": "ok", "result": {"s": "delayed"}, "duration_ms": 5}});
        let head = json!({"message": "expected `delayed`", "duration_ms": 7, "actual": {"status": "ok", "result": {"s": "shipped"}, "duration_ms": 7}});
        let mut out = Vec::new();
        case(&base, &head, &tol(), &mut out);
        assert_eq!(
            texts(&out),
            [
                "message: expected `delayed`",
                "the answer /result/s: \"delayed\" → \"shipped\""
            ]
        );
    }
}
