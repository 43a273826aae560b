//! Probes for extensions that run as a process per call: exec tools, exec hooks and
//! exec evals. Each probe makes its own calls through the engine, so what it sees is
//! what a run would see.

use serde_json::json;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::exec::{self, Call, Finished, Outcome, StopReason};

use super::ending::no_leftovers;
use super::error::ReplyError;
use super::subject::{OneShot, Options, ReplyShape};
use super::verdict::with_stderr;
use super::{Probe, ProbeResult};

/// Every probe that applies to `subject`, in a fixed order.
pub(super) async fn probe(subject: &OneShot, options: &Options) -> Vec<ProbeResult> {
    let mut results = Vec::new();
    let compact = serde_json::to_vec(&subject.request).unwrap_or_default();
    let started = Instant::now();
    let base = call(subject, compact, true).await;
    let base_reply = reply(subject.reply, &base);
    let base_took = started.elapsed();
    let mut add = |result: ProbeResult| {
        if options.wants(result.probe) {
            results.push(result);
        }
    };
    add(one_json_answer(subject, &base, &base_reply).took(base_took));
    add(within_deadline(subject, &base).took(base_took));
    let leftovers = match base.stop {
        None => no_leftovers(&base.leftovers),
        Some(_) => ProbeResult::fail(
            Probe::NoLeftoverProcesses,
            "not judged: the process did not end on its own, so its group was killed",
            "make the ordinary request succeed first",
        ),
    };
    add(leftovers.took(base_took));
    if options.wants(Probe::ReadsWholeRequest) {
        let started = Instant::now();
        let pretty = serde_json::to_vec_pretty(&subject.request).unwrap_or_default();
        let spread = reply(subject.reply, &call(subject, pretty, false).await);
        add(same_answer(Probe::ReadsWholeRequest, &base_reply, &spread).took(started.elapsed()));
    }
    if options.wants(Probe::IgnoresUnknownFields) {
        let started = Instant::now();
        let mut extended = subject.request.clone();
        if let Some(object) = extended.as_object_mut() {
            object.insert("promptexec_probe".into(), json!({"unknown": true}));
        }
        let input = serde_json::to_vec(&extended).unwrap_or_default();
        let answered = reply(subject.reply, &call(subject, input, false).await);
        add(
            same_answer(Probe::IgnoresUnknownFields, &base_reply, &answered)
                .took(started.elapsed()),
        );
    }
    if options.wants(Probe::ClosedStdin) {
        let started = Instant::now();
        let finished = call(subject, Vec::new(), false).await;
        add(closed_stdin(&finished).took(started.elapsed()));
    }
    if !subject.phases.is_empty() && options.wants(Probe::AnswersEachPhase) {
        let started = Instant::now();
        let mut answers = Vec::new();
        for (phase, payload, shape) in &subject.phases {
            let input = serde_json::to_vec(payload).unwrap_or_default();
            answers.push((
                phase.as_str(),
                reply(*shape, &call(subject, input, false).await),
            ));
        }
        add(each_phase(&answers).took(started.elapsed()));
    }
    if subject.reply == ReplyShape::Eval {
        add(score_in_range(&base).took(base_took));
    }
    results
}

/// One call; with `watch_leftovers`, what the process left running is listed before
/// its group is killed (a look through all of `/proc`, so only the ordinary call).
async fn call(subject: &OneShot, input: Vec<u8>, watch_leftovers: bool) -> Finished {
    let mut call = Call::new(&subject.name, subject.call_kind, &subject.spec, input);
    call.watch_leftovers = watch_leftovers;
    exec::run(&call, &CancellationToken::new()).await
}

/// The reply read by `shape`: a short summary, or what went wrong.
fn reply(shape: ReplyShape, finished: &Finished) -> Result<String, ReplyError> {
    match exec::classify(finished) {
        Outcome::Answered(value) => shape.read(&value),
        Outcome::InvalidOutput { .. } if shape == ReplyShape::Ignored => Ok("answered".into()),
        other => Err(ReplyError::NoAnswer(with_stderr(
            other.describe(),
            &finished.stderr_tail,
        ))),
    }
}

fn one_json_answer(
    subject: &OneShot,
    f: &Finished,
    reply: &Result<String, ReplyError>,
) -> ProbeResult {
    match reply {
        Ok(summary) => ProbeResult::pass(Probe::OneJsonAnswer, summary.clone()),
        Err(why) => {
            let hint = match exec::classify(f) {
                Outcome::InvalidOutput { .. } => {
                    "write exactly one JSON object to stdout and nothing else; logs go to stderr"
                }
                Outcome::ExitedNonZero { .. } | Outcome::KilledBySignal { .. } => {
                    "exit 0 after writing the answer; report problems inside the answer"
                }
                Outcome::Answered(_) => subject.reply.hint(),
                _ => "make the ordinary request succeed first",
            };
            ProbeResult::fail(Probe::OneJsonAnswer, why.to_string(), hint)
        }
    }
}

fn within_deadline(subject: &OneShot, f: &Finished) -> ProbeResult {
    let deadline = subject.call_kind.timeout_of(&subject.spec).as_millis();
    match f.stop {
        Some(StopReason::TimedOut) => ProbeResult::fail(
            Probe::WithinDeadline,
            format!("no answer within its {deadline} ms deadline"),
            "answer an ordinary request faster, or raise timeout_ms",
        ),
        _ => ProbeResult::pass(
            Probe::WithinDeadline,
            format!(
                "ended in {} ms of its {deadline} ms deadline",
                f.duration.as_millis()
            ),
        ),
    }
}

/// Passes when a changed request gets the same kind of answer as the ordinary one.
fn same_answer(
    probe: Probe,
    ordinary: &Result<String, ReplyError>,
    changed: &Result<String, ReplyError>,
) -> ProbeResult {
    let what = match probe {
        Probe::ReadsWholeRequest => "the request spread over several lines",
        _ => "a request with a field the protocol does not define",
    };
    let shown = |r: &Result<String, ReplyError>| match r {
        Ok(s) => s.clone(),
        Err(e) => e.to_string(),
    };
    // Two failures are the same kind of answer: the ordinary one fails a probe of
    // its own, and their texts differ by timings.
    if ordinary.is_ok() == changed.is_ok() && shown(ordinary) == shown(changed) {
        return ProbeResult::pass(probe, format!("{what}: {}", shown(changed)));
    }
    if ordinary.is_err() && changed.is_err() {
        return ProbeResult::pass(
            probe,
            format!("{what} fails as the ordinary one does: {}", shown(changed)),
        );
    }
    let hint = match probe {
        Probe::ReadsWholeRequest => {
            "read stdin to EOF and parse it as one JSON document, not line by line"
        }
        _ => "ignore request fields you do not know",
    };
    ProbeResult::fail(
        probe,
        format!(
            "{what}: {}; the ordinary request: {}",
            shown(changed),
            shown(ordinary)
        ),
        hint,
    )
}

fn closed_stdin(f: &Finished) -> ProbeResult {
    match (&f.stop, f.end) {
        (Some(StopReason::TimedOut), _) => ProbeResult::fail(
            Probe::ClosedStdin,
            format!(
                "still running {} ms after its stdin was closed empty",
                f.duration.as_millis()
            ),
            "treat EOF on stdin as the end of the request; never wait for more",
        ),
        (None, Some(exec::ProcessEnd::Signaled(signal))) => ProbeResult::fail(
            Probe::ClosedStdin,
            with_stderr(
                format!("was killed by signal {signal} on an empty stdin"),
                &f.stderr_tail,
            ),
            "an empty request should end in an error answer, not a crash",
        ),
        (None, Some(exec::ProcessEnd::Exited(code))) => ProbeResult::pass(
            Probe::ClosedStdin,
            format!("exited with status {code} on an empty stdin"),
        ),
        _ => ProbeResult::fail(
            Probe::ClosedStdin,
            exec::classify(f).describe(),
            "make the ordinary request succeed first",
        ),
    }
}

fn each_phase(answers: &[(&str, Result<String, ReplyError>)]) -> ProbeResult {
    match answers.iter().find(|(_, r)| r.is_err()) {
        Some((phase, Err(why))) => ProbeResult::fail(
            Probe::AnswersEachPhase,
            format!("phase `{phase}`: {why}"),
            "answer every phase the config subscribes the hook to",
        ),
        _ => {
            let shown: Vec<String> = answers
                .iter()
                .map(|(phase, r)| format!("{phase} ({})", r.as_deref().unwrap_or_default()))
                .collect();
            ProbeResult::pass(Probe::AnswersEachPhase, shown.join(", "))
        }
    }
}

fn score_in_range(f: &Finished) -> ProbeResult {
    let checked = match exec::classify(f) {
        Outcome::Answered(value) => ReplyShape::score_in_range(&value),
        other => Err(ReplyError::NoAnswer(with_stderr(
            other.describe(),
            &f.stderr_tail,
        ))),
    };
    match checked {
        Ok(summary) => ProbeResult::pass(Probe::ScoreInRange, summary),
        Err(why) => ProbeResult::fail(
            Probe::ScoreInRange,
            why.to_string(),
            "answer a `score` between 0 and 1 inclusive",
        ),
    }
}
