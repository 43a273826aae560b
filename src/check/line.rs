//! Probes for long-running line-delimited JSON-RPC processes: server tools and
//! JSON-RPC hooks. Every probe starts a process of its own and, except the flushing
//! probe, closes stdin once its requests are written, so a process that buffers its
//! output still answers the others.

use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::time::Instant;

use crate::exec::{DEFAULT_GRACE, Outcome, RawJson};
use crate::tools::{ToolMode, ToolReport};

use super::ending;
use super::error::{ReplyError, ResponseError};
use super::line_process::{LineProcess, Next};
use super::subject::{LineServer, Options, ReplyShape};
use super::verdict::with_stderr;
use super::{CheckedKind, Probe, ProbeResult};

/// Ids a reply must carry back unchanged: zero (not to hooks, whose ids start at 1:
/// PicoClaw sends id 0 only with notifications), past 32 bits, and the largest a
/// double holds exactly.
const PROBE_IDS: [u64; 5] = [0, 1, 2, 4_294_967_296, 9_007_199_254_740_991];
const HOOK_PROBE_IDS: [u64; 5] = [1, 2, 3, 4_294_967_296, 9_007_199_254_740_991];

/// The ids `echoes_ids` sends to `subject`, and what to change when they do not come
/// back.
fn probe_ids(subject: &LineServer) -> (&'static [u64], &'static str) {
    match subject.kind {
        CheckedKind::RpcHook => (
            &HOOK_PROBE_IDS,
            "copy each request's `id` into its reply unchanged; ids can be larger than 2^32",
        ),
        _ => (
            &PROBE_IDS,
            "copy each request's `id` into its reply unchanged; ids can be 0 and larger than 2^32",
        ),
    }
}

pub(super) async fn probe(subject: &LineServer, options: &Options) -> Vec<ProbeResult> {
    let mut results = Vec::new();
    let wants = |p: Probe| options.wants(p);
    if !subject.preamble.is_empty() && wants(Probe::Hello) {
        results.push(timed(hello(subject)).await);
    }
    if wants(Probe::OneLinePerReply) || wants(Probe::WithinDeadline) {
        let (framing, deadline) = ordinary(subject).await;
        results.extend([framing, deadline].into_iter().filter(|r| wants(r.probe)));
    }
    if wants(Probe::FlushesReplies) {
        results.push(timed(flushes(subject)).await);
    }
    if wants(Probe::EchoesIds) {
        results.push(timed(echoes_ids(subject)).await);
    }
    if wants(Probe::IgnoresUnknownFields) {
        results.push(timed(unknown_fields(subject)).await);
    }
    if wants(Probe::Notifications) {
        results.push(timed(notifications(subject)).await);
    }
    if !subject.methods.is_empty() && wants(Probe::AnswersEachPhase) {
        results.push(timed(each_method(subject)).await);
    }
    if wants(Probe::ExitsOnEof) || wants(Probe::NoLeftoverProcesses) {
        let started = Instant::now();
        let (exits, leftovers) = exits_on_eof(subject).await;
        let took = started.elapsed();
        results.extend(
            [exits.took(took), leftovers.took(took)]
                .into_iter()
                .filter(|r| wants(r.probe)),
        );
    }
    results
}

async fn timed(probe: impl std::future::Future<Output = ProbeResult>) -> ProbeResult {
    let started = Instant::now();
    probe.await.took(started.elapsed())
}

fn timeout_of(subject: &LineServer) -> Duration {
    subject.call_kind.timeout_of(&subject.spec)
}

fn request_line(id: u64, method: &str, params: &Json) -> Vec<u8> {
    let mut line = serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .unwrap_or_default();
    line.push(b'\n');
    line
}

/// The preamble's requests (ids from 1) and then the ordinary request, one buffer.
fn ordinary_lines(subject: &LineServer) -> (Vec<u8>, usize) {
    let (mut bytes, id) = preamble_lines(subject);
    let (method, params, _) = &subject.request;
    bytes.extend(request_line(id, method, params));
    (bytes, subject.preamble.len() + 1)
}

/// A started process that was sent `bytes` (stdin then closed) and the next `count`
/// things it wrote, up to the subject's deadline.
struct Conversation {
    process: LineProcess,
    got: Vec<Next>,
}

async fn converse(
    subject: &LineServer,
    bytes: &[u8],
    count: usize,
    probe: Probe,
) -> Result<Conversation, ProbeResult> {
    let mut process = LineProcess::start(&subject.name, subject.call_kind, &subject.spec, &[])
        .map_err(|err| {
            ProbeResult::fail(
                probe,
                format!("could not start: {err}"),
                "fix the command first",
            )
        })?;
    let limit = timeout_of(subject);
    process.send(bytes, Instant::now() + limit).await;
    process.close_stdin();
    let mut got = Vec::new();
    while got.len() < count {
        // Each reply gets the deadline of its own request: a server may answer one
        // request at a time.
        let next = process.next(Instant::now() + limit).await;
        let done = matches!(next, Next::Eof | Next::Silent);
        got.push(next);
        if done {
            break;
        }
    }
    Ok(Conversation { process, got })
}

/// A reply line read as a JSON-RPC response: its id and its result or error.
fn response(next: &Next) -> Result<(Json, Result<Json, Json>), ResponseError> {
    let line = match next {
        Next::Line(line) => line,
        Next::Partial(bytes) => return Err(ResponseError::NoNewline { head: head(bytes) }),
        Next::TooLong(len) => return Err(ResponseError::TooLong(*len)),
        Next::Eof => return Err(ResponseError::Eof),
        Next::Silent => return Err(ResponseError::Silent),
    };
    let value: Json = serde_json::from_slice(line).map_err(|source| ResponseError::NotJson {
        head: head(line),
        source,
    })?;
    let object = value
        .as_object()
        .ok_or_else(|| ResponseError::NotAnObject { head: head(line) })?;
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(ResponseError::NoJsonrpc { head: head(line) });
    }
    let id = object.get("id").cloned().unwrap_or(Json::Null);
    match (object.get("result"), object.get("error")) {
        (Some(result), None | Some(Json::Null)) => Ok((id, Ok(result.clone()))),
        (None, Some(error)) => Ok((id, Err(error.clone()))),
        _ => Err(ResponseError::ResultOrError { head: head(line) }),
    }
}

fn head(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]);
    let more = if bytes.len() > 120 { "…" } else { "" };
    format!("`{}{more}`", text.trim_end())
}

fn died(process: &LineProcess, what: impl std::fmt::Display) -> String {
    with_stderr(what.to_string(), &process.stderr_tail())
}

async fn hello(subject: &LineServer) -> ProbeResult {
    let (method, params, shape) = &subject.preamble[0];
    let bytes = request_line(1, method, params);
    let conversation = match converse(subject, &bytes, 1, Probe::Hello).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    match response(&conversation.got[0]) {
        Ok((_, Ok(result))) => match shape.read(&result) {
            Ok(summary) => ProbeResult::pass(Probe::Hello, summary),
            Err(why) => ProbeResult::fail(Probe::Hello, why.to_string(), shape.hint()),
        },
        Ok((_, Err(error))) => ProbeResult::fail(
            Probe::Hello,
            format!("`{method}` answered an error: {error}"),
            shape.hint(),
        ),
        Err(why) => ProbeResult::fail(Probe::Hello, died(&conversation.process, why), shape.hint()),
    }
}

/// The ordinary conversation: framing of every reply, and the deadline.
async fn ordinary(subject: &LineServer) -> (ProbeResult, ProbeResult) {
    let started = Instant::now();
    let (bytes, count) = ordinary_lines(subject);
    let conversation = match converse(subject, &bytes, count, Probe::OneLinePerReply).await {
        Ok(c) => c,
        Err(failed) => return (failed.clone(), failed.for_probe(Probe::WithinDeadline)),
    };
    let took = started.elapsed();
    let limit = timeout_of(subject).as_millis();
    let framing = match conversation.got.iter().map(response).find_map(Result::err) {
        None => ProbeResult::pass(
            Probe::OneLinePerReply,
            format!("{count} replies, one JSON-RPC response per line"),
        ),
        Some(why) => ProbeResult::fail(
            Probe::OneLinePerReply,
            died(&conversation.process, why),
            "write each reply as one line of JSON ending in a newline; logs go to stderr",
        ),
    };
    let deadline = match conversation.got.last() {
        Some(Next::Silent) => ProbeResult::fail(
            Probe::WithinDeadline,
            format!("no reply within its {limit} ms deadline"),
            "answer an ordinary request faster, or raise timeout_ms",
        ),
        Some(Next::Eof) => ProbeResult::fail(
            Probe::WithinDeadline,
            died(
                &conversation.process,
                format!(
                    "stdout closed after {} of {count} replies",
                    conversation.got.len() - 1
                ),
            ),
            "answer every request before exiting",
        ),
        _ => ProbeResult::pass(
            Probe::WithinDeadline,
            format!(
                "answered in {} ms of its {limit} ms deadline",
                took.as_millis()
            ),
        ),
    };
    (framing.took(took), deadline.took(took))
}

async fn flushes(subject: &LineServer) -> ProbeResult {
    let fail = |why: String| {
        ProbeResult::fail(
            Probe::FlushesReplies,
            why,
            "flush stdout after every reply (Python: print(..., flush=True))",
        )
    };
    let mut process = match LineProcess::start(&subject.name, subject.call_kind, &subject.spec, &[])
    {
        Ok(p) => p,
        Err(err) => return fail(format!("could not start: {err}")),
    };
    let (method, params) = match subject.preamble.first() {
        Some((m, p, _)) => (m, p),
        None => (&subject.request.0, &subject.request.1),
    };
    let started = Instant::now();
    let limit = timeout_of(subject);
    process
        .send(&request_line(1, method, params), started + limit)
        .await;
    match process.next(started + limit).await {
        Next::Line(_) => ProbeResult::pass(
            Probe::FlushesReplies,
            format!(
                "replied in {} ms with stdin still open",
                started.elapsed().as_millis()
            ),
        ),
        Next::Silent => {
            process.close_stdin();
            match process.next(Instant::now() + DEFAULT_GRACE).await {
                Next::Line(_) | Next::Partial(_) => fail(format!(
                    "no reply in {} ms while stdin stayed open; it came once stdin closed",
                    limit.as_millis()
                )),
                _ => fail(format!(
                    "no reply in {} ms while stdin stayed open",
                    limit.as_millis()
                )),
            }
        }
        other => fail(died(
            &process,
            format!("{} before any reply", shown_next(&other)),
        )),
    }
}

async fn echoes_ids(subject: &LineServer) -> ProbeResult {
    let (probe_ids, hint) = probe_ids(subject);
    // The preamble takes the first ids, the ordinary request the rest.
    let mut bytes = Vec::new();
    let mut ids = probe_ids.iter().copied();
    for ((method, params, _), id) in subject.preamble.iter().zip(ids.by_ref()) {
        bytes.extend(request_line(id, method, params));
    }
    let (method, params, _) = &subject.request;
    for id in ids {
        bytes.extend(request_line(id, method, params));
    }
    let conversation = match converse(subject, &bytes, probe_ids.len(), Probe::EchoesIds).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    let mut echoed = Vec::new();
    for next in &conversation.got {
        match response(next) {
            Ok((id, _)) => echoed.push(id),
            Err(why) => {
                return ProbeResult::fail(Probe::EchoesIds, died(&conversation.process, why), hint);
            }
        }
    }
    let sent: Vec<Json> = probe_ids.iter().map(|id| json!(id)).collect();
    let key = |v: &Json| v.to_string();
    let mut sorted = sent.clone();
    let mut back = echoed.clone();
    sorted.sort_by_key(key);
    back.sort_by_key(key);
    let shown = |ids: &[Json]| {
        ids.iter()
            .map(Json::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if sorted == back {
        ProbeResult::pass(
            Probe::EchoesIds,
            format!(
                "{} pipelined requests, every id echoed ({})",
                sent.len(),
                shown(&echoed)
            ),
        )
    } else {
        ProbeResult::fail(
            Probe::EchoesIds,
            format!(
                "sent ids {}; the replies carried {}",
                shown(&sent),
                shown(&echoed)
            ),
            hint,
        )
    }
}

/// Whether the ordinary request is answered with a result (not an error) when
/// `extend` adds fields to it.
async fn unknown_fields(subject: &LineServer) -> ProbeResult {
    let hint = "ignore request fields you do not know";
    let (mut bytes, id) = preamble_lines(subject);
    let (method, params, shape) = &subject.request;
    bytes.extend(request_line(id, method, params));
    let mut extended = params.clone();
    if let Some(object) = extended.as_object_mut() {
        object.insert("promptexec_probe".into(), json!({"unknown": true}));
    }
    let line = json!({"jsonrpc": "2.0", "id": id + 1, "method": method, "params": extended,
                      "promptexec_probe": true});
    bytes.extend(serde_json::to_vec(&line).unwrap_or_default());
    bytes.push(b'\n');
    let count = subject.preamble.len() + 2;
    let conversation = match converse(subject, &bytes, count, Probe::IgnoresUnknownFields).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    // The same kind of answer as the ordinary request's, in whichever order they came.
    let class = |next: &Next| match response(next) {
        Ok((_, Ok(result))) => shape.read(&result).map(|_| "a result".to_string()),
        Ok((_, Err(error))) => Ok(format!("an error ({})", error["code"])),
        Err(why) => Err(ReplyError::from(why)),
    };
    let answers: Vec<Result<String, ReplyError>> =
        conversation.got.iter().rev().take(2).map(class).collect();
    match answers.as_slice() {
        [Ok(a), Ok(b)] if a == b => ProbeResult::pass(
            Probe::IgnoresUnknownFields,
            format!(
                "a request with fields the protocol does not define got {a}, as the ordinary one"
            ),
        ),
        [Ok(a), Ok(b)] => ProbeResult::fail(
            Probe::IgnoresUnknownFields,
            format!(
                "a request with fields the protocol does not define got {a}; the ordinary one {b}"
            ),
            hint,
        ),
        _ => {
            let why = answers
                .iter()
                .find_map(|a| a.as_ref().err().map(ToString::to_string))
                .unwrap_or_else(|| "no reply".into());
            ProbeResult::fail(
                Probe::IgnoresUnknownFields,
                died(&conversation.process, why),
                hint,
            )
        }
    }
}

/// The preamble's requests with ids from 1, and the next free id.
fn preamble_lines(subject: &LineServer) -> (Vec<u8>, u64) {
    let mut bytes = Vec::new();
    let mut id = 1;
    for (method, params, _) in &subject.preamble {
        bytes.extend(request_line(id, method, params));
        id += 1;
    }
    (bytes, id)
}

async fn notifications(subject: &LineServer) -> ProbeResult {
    let hint = "send nothing back for a message without an `id`, and keep serving";
    let (method, params) = &subject.notification;
    let (mut bytes, id) = preamble_lines(subject);
    let mut note =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .unwrap_or_default();
    note.push(b'\n');
    bytes.extend(note);
    let (m, p, _) = &subject.request;
    bytes.extend(request_line(id, m, p));
    let count = subject.preamble.len() + 1;
    let conversation = match converse(subject, &bytes, count, Probe::Notifications).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    for next in &conversation.got {
        match response(next) {
            Ok((Json::Null, _)) => {
                return ProbeResult::fail(
                    Probe::Notifications,
                    format!("answered the `{method}` notification: {}", shown_line(next)),
                    hint,
                );
            }
            Ok(_) => {}
            Err(why) => {
                return ProbeResult::fail(
                    Probe::Notifications,
                    died(
                        &conversation.process,
                        format!("after a `{method}` notification: {why}"),
                    ),
                    hint,
                );
            }
        }
    }
    ProbeResult::pass(
        Probe::Notifications,
        format!("no reply to a `{method}` notification; the next request was answered"),
    )
}

fn shown_line(next: &Next) -> String {
    match next {
        Next::Line(line) | Next::Partial(line) => head(line),
        other => shown_next(other).to_string(),
    }
}

fn shown_next(next: &Next) -> &'static str {
    match next {
        Next::Line(_) => "a line",
        Next::Partial(_) => "half a line",
        Next::TooLong(_) => "an overlong line",
        Next::Eof => "stdout closed",
        Next::Silent => "silence",
    }
}

async fn each_method(subject: &LineServer) -> ProbeResult {
    let hint = "answer every method the config intercepts, with an action it allows";
    let (mut bytes, first) = preamble_lines(subject);
    for (id, (method, params, _)) in (first..).zip(&subject.methods) {
        bytes.extend(request_line(id, method, params));
    }
    let count = subject.preamble.len() + subject.methods.len();
    let conversation = match converse(subject, &bytes, count, Probe::AnswersEachPhase).await {
        Ok(c) => c,
        Err(failed) => return failed,
    };
    let mut replies = std::collections::HashMap::new();
    for next in &conversation.got {
        match response(next) {
            Ok((id, reply)) => {
                replies.insert(id.to_string(), reply);
            }
            Err(why) => {
                return ProbeResult::fail(
                    Probe::AnswersEachPhase,
                    died(&conversation.process, why),
                    hint,
                );
            }
        }
    }
    let mut shown = Vec::new();
    for (i, (method, _, shape)) in subject.methods.iter().enumerate() {
        let id = (first + i as u64).to_string();
        let read = match replies.get(&id) {
            Some(Ok(result)) => shape.read(result),
            Some(Err(error)) => Err(ReplyError::AnsweredError(error.clone())),
            None => Err(ReplyError::NoReplyWithId),
        };
        match read {
            Ok(summary) => shown.push(format!("{method} ({summary})")),
            Err(why) => {
                return ProbeResult::fail(
                    Probe::AnswersEachPhase,
                    format!("`{method}`: {why}"),
                    shape_hint(*shape, hint),
                );
            }
        }
    }
    ProbeResult::pass(Probe::AnswersEachPhase, shown.join(", "))
}

fn shape_hint(shape: ReplyShape, fallback: &'static str) -> &'static str {
    match shape {
        ReplyShape::Action(_) => shape.hint(),
        _ => fallback,
    }
}

/// Once stdin closes after an ordinary conversation, the process exits within the
/// grace period; then nothing it started is still running.
async fn exits_on_eof(subject: &LineServer) -> (ProbeResult, ProbeResult) {
    let (bytes, count) = ordinary_lines(subject);
    let mut conversation = match converse(subject, &bytes, count, Probe::ExitsOnEof).await {
        Ok(c) => c,
        Err(failed) => {
            return (failed.clone(), failed.for_probe(Probe::NoLeftoverProcesses));
        }
    };
    ending::after_eof(&mut conversation.process).await
}

/// One `execute` call in a process of its own, stdin closed once it is written: the
/// fuzzer's way to call a server tool, so that flushing and ids (probes of their own)
/// do not decide what it finds.
pub(super) async fn call_once(subject: &LineServer, args: &Json) -> ToolReport {
    let started = Instant::now();
    let mut report = ToolReport::new(&subject.name, ToolMode::Server);
    let params = json!({"args": args});
    let bytes = request_line(1, &subject.request.0, &params);
    let outcome = match converse(subject, &bytes, 1, Probe::Fuzz).await {
        Err(failed) => Outcome::CouldNotStart {
            reason: failed.reason,
        },
        Ok(conversation) => {
            report.stderr_tail = conversation.process.stderr_tail();
            match conversation.got.first().map(response) {
                Some(Ok((_, Ok(result)))) => Outcome::Answered(result),
                Some(Ok((_, Err(error)))) => {
                    let message = error["message"].as_str().unwrap_or_default().to_string();
                    report.answered_error(message);
                    report.duration_ms = started.elapsed().as_millis() as u64;
                    return report;
                }
                Some(Err(_)) if matches!(conversation.got.first(), Some(Next::Silent)) => {
                    Outcome::TimedOut {
                        after: started.elapsed(),
                        nothing_read: true,
                    }
                }
                Some(Err(why)) => Outcome::ServerFailed {
                    reason: why.to_string(),
                },
                None => Outcome::ServerFailed {
                    reason: "no reply".into(),
                },
            }
        }
    };
    match outcome {
        Outcome::Answered(result) => report.succeeded(RawJson::from(&result)),
        other => report.settle(other),
    }
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}
