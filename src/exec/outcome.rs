//! How a call ended, decided by one pure function from what was observed.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;

use super::rpc::NOT_FLUSHING_HINT;
use super::spawn::SpawnError;
use super::{Leftover, RawJson};

/// How the process itself ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessEnd {
    Exited(i32),
    Signaled(i32),
}

/// Why a call ended before the process was done on its own. At most one applies: the
/// first that happened.
#[derive(Debug, Clone)]
pub enum StopReason {
    /// The process could not be started; there is no process end.
    NotStarted(SpawnError),
    /// The deadline passed.
    TimedOut,
    /// The caller cancelled the call.
    Interrupted,
    /// Stdout went over this many bytes.
    OverCap(u64),
    /// Waiting for the process failed, so how it ended is unknown.
    Lost(Arc<io::Error>),
}

/// The raw facts of one finished call.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How the process ended; `None` only when it never started or was lost, which
    /// `stop` then says.
    pub end: Option<ProcessEnd>,
    pub stop: Option<StopReason>,
    pub stdout: Vec<u8>,
    pub stderr_tail: String,
    pub duration: Duration,
    /// What the process left running when it exited on its own; filled only for a
    /// call that asks (`Call::watch_leftovers`).
    pub leftovers: Vec<Leftover>,
}

impl Finished {
    /// A call whose process could not be started.
    pub fn not_started(err: SpawnError) -> Self {
        Self::never_ran(StopReason::NotStarted(err))
    }

    /// A call stopped before a process existed.
    pub(crate) fn never_ran(stop: StopReason) -> Self {
        Self {
            end: None,
            stop: Some(stop),
            stdout: Vec::new(),
            stderr_tail: String::new(),
            duration: Duration::ZERO,
            leftovers: Vec::new(),
        }
    }

    /// The exit status, when the process exited (rather than was killed).
    pub fn exit_code(&self) -> Option<i32> {
        match self.end {
            Some(ProcessEnd::Exited(code)) => Some(code),
            _ => None,
        }
    }
}

/// What a call amounted to. Tools, hooks and evals all start from this.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Exit status 0 and exactly one JSON value on stdout.
    Answered(Json),
    ExitedNonZero {
        code: i32,
    },
    KilledBySignal {
        signal: i32,
    },
    /// No answer by the deadline: a one-shot process was stopped, or a server's
    /// reply did not come. `nothing_read` when a server had not written anything to
    /// stdout at all (a one-shot process writes its answer only at the end).
    TimedOut {
        after: Duration,
        nothing_read: bool,
    },
    Interrupted,
    OutputTooLarge {
        limit: u64,
    },
    InvalidOutput {
        offset: usize,
        reason: String,
    },
    CouldNotStart {
        reason: String,
    },
    /// A long-running server failed the call: it exited, or is broken.
    ServerFailed {
        reason: String,
    },
}

impl Outcome {
    /// A short, lowercase description for messages.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Answered(_) => "answered".into(),
            Outcome::ExitedNonZero { code } => format!("exited with status {code}"),
            Outcome::KilledBySignal { signal } => format!("was killed by signal {signal}"),
            Outcome::TimedOut {
                after,
                nothing_read,
            } => {
                let hint = if *nothing_read { NOT_FLUSHING_HINT } else { "" };
                format!("timed out after {} ms{hint}", after.as_millis())
            }
            Outcome::Interrupted => "was interrupted".into(),
            Outcome::OutputTooLarge { limit } => {
                format!("wrote more than {limit} bytes to stdout (max_output_bytes)")
            }
            Outcome::InvalidOutput { offset, reason } => {
                format!("wrote invalid output: {reason} at byte {offset}")
            }
            Outcome::CouldNotStart { reason } => format!("could not start: {reason}"),
            Outcome::ServerFailed { reason } => reason.clone(),
        }
    }
}

/// Classifies a finished call. Our own reason for stopping the child comes first: a
/// child we killed at its deadline also shows a signal, but the deadline is the news.
pub fn classify(f: &Finished) -> Outcome {
    classify_as(f, parse_one_value).unwrap_or_else(Outcome::Answered)
}

/// [`classify`] with an answer kept as the text the process wrote: `Ok` for an
/// answer, the outcome otherwise.
pub fn classify_raw(f: &Finished) -> Result<RawJson, Outcome> {
    match classify_as(f, parse_one::<RawJson>) {
        Ok(other) => Err(other),
        Err(answer) => Ok(answer),
    }
}

/// Every outcome but an answer in `Ok`; an answer, read by `parse`, in `Err`.
fn classify_as<T>(f: &Finished, parse: fn(&[u8]) -> Parsed<T>) -> Result<Outcome, T> {
    Ok(match &f.stop {
        Some(StopReason::NotStarted(err)) => Outcome::CouldNotStart {
            reason: err.to_string(),
        },
        Some(StopReason::Lost(err)) => Outcome::CouldNotStart {
            reason: format!("waiting for the process failed: {err}"),
        },
        Some(StopReason::Interrupted) => Outcome::Interrupted,
        Some(StopReason::TimedOut) => Outcome::TimedOut {
            after: f.duration,
            nothing_read: false,
        },
        Some(StopReason::OverCap(limit)) => Outcome::OutputTooLarge { limit: *limit },
        None => match f.end {
            // Only a hand-built record gets here: `run` always says why.
            None => Outcome::CouldNotStart {
                reason: "no process".into(),
            },
            Some(ProcessEnd::Signaled(signal)) => Outcome::KilledBySignal { signal },
            Some(ProcessEnd::Exited(code)) if code != 0 => Outcome::ExitedNonZero { code },
            Some(ProcessEnd::Exited(_)) => match parse(&f.stdout) {
                Ok(value) => return Err(value),
                Err((offset, reason)) => Outcome::InvalidOutput { offset, reason },
            },
        },
    })
}

type Parsed<T> = Result<T, (usize, String)>;

/// Exactly one JSON value, with whitespace around it allowed; otherwise the byte
/// offset of the first problem.
pub(super) fn parse_one_value(bytes: &[u8]) -> Result<Json, (usize, String)> {
    parse_one(bytes)
}

fn parse_one<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Parsed<T> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err((0, "a byte-order mark before the JSON".into()));
    }
    if let Err(err) = std::str::from_utf8(bytes) {
        return Err((err.valid_up_to(), "invalid UTF-8".into()));
    }
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .ok_or((0, "empty output, expected one JSON value".to_string()))?;
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<T>();
    match stream.next() {
        Some(Ok(value)) => {
            let end = stream.byte_offset();
            match bytes[end..].iter().position(|b| !b.is_ascii_whitespace()) {
                None => Ok(value),
                Some(extra) => Err((end + extra, "more output after the JSON value".into())),
            }
        }
        Some(Err(err)) => Err((
            offset_of(bytes, err.line(), err.column()).max(start),
            format!("not JSON ({err})"),
        )),
        None => Err((start, "expected one JSON value".into())),
    }
}

/// Byte offset of a 1-based line and column as serde_json counts them.
fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut offset = 0;
    for _ in 1..line {
        match bytes[offset..].iter().position(|&b| b == b'\n') {
            Some(nl) => offset += nl + 1,
            None => break,
        }
    }
    (offset + column.saturating_sub(1)).min(bytes.len())
}

/// How a long-running process ended, for messages (`exited with status 7`).
pub fn describe_exit(status: &io::Result<std::process::ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Ok(s) => match (s.code(), s.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            _ => "exited".to_string(),
        },
        Err(err) => format!("could not be waited for ({err})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finished(end: ProcessEnd, stdout: &str) -> Finished {
        Finished {
            end: Some(end),
            stop: None,
            stdout: stdout.as_bytes().to_vec(),
            stderr_tail: String::new(),
            duration: Duration::from_millis(5),
            leftovers: Vec::new(),
        }
    }

    fn stopped(end: ProcessEnd, stop: StopReason) -> Finished {
        Finished {
            stop: Some(stop),
            ..finished(end, "{\"result\": 1}")
        }
    }

    #[test]
    fn one_value_with_whitespace_is_an_answer() {
        let f = finished(ProcessEnd::Exited(0), "\n  {\"result\": 1}\n");
        assert_eq!(classify(&f), Outcome::Answered(json!({"result": 1})));
    }

    #[test]
    fn non_zero_exit_wins_over_valid_json() {
        let f = finished(ProcessEnd::Exited(3), "{\"result\": 1}");
        assert_eq!(classify(&f), Outcome::ExitedNonZero { code: 3 });
    }

    #[test]
    fn deadline_wins_over_the_signal_that_enforced_it() {
        let f = stopped(ProcessEnd::Signaled(9), StopReason::TimedOut);
        assert_eq!(
            classify(&f),
            Outcome::TimedOut {
                after: Duration::from_millis(5),
                nothing_read: false
            }
        );
        let f = finished(ProcessEnd::Signaled(9), "");
        assert_eq!(classify(&f), Outcome::KilledBySignal { signal: 9 });
    }

    #[test]
    fn a_stop_wins_over_a_clean_exit_with_an_answer() {
        // A child that traps SIGTERM and exits 0 after printing still missed its deadline.
        let f = stopped(ProcessEnd::Exited(0), StopReason::TimedOut);
        assert!(matches!(classify(&f), Outcome::TimedOut { .. }));
        assert_eq!(
            f.exit_code(),
            Some(0),
            "the exit status is kept for reports"
        );
        let f = stopped(ProcessEnd::Exited(0), StopReason::Interrupted);
        assert_eq!(classify(&f), Outcome::Interrupted);
    }

    #[test]
    fn output_cap_is_reported_before_anything_else_the_child_did() {
        let mut f = stopped(ProcessEnd::Signaled(15), StopReason::OverCap(4));
        f.stdout = b"xxxx".to_vec();
        assert_eq!(classify(&f), Outcome::OutputTooLarge { limit: 4 });
        assert_eq!(f.exit_code(), None);
    }

    #[test]
    fn spawn_errors_and_interrupts_are_their_own_outcomes() {
        let f = Finished::not_started(SpawnError::NotInPath("nope".into()));
        assert_eq!(
            classify(&f),
            Outcome::CouldNotStart {
                reason: "command `nope` not found in PATH".into()
            }
        );
        assert_eq!(f.exit_code(), None);
        let f = stopped(ProcessEnd::Signaled(15), StopReason::Interrupted);
        assert_eq!(classify(&f), Outcome::Interrupted);
    }

    #[test]
    fn a_lost_process_says_waiting_failed() {
        let mut f = finished(ProcessEnd::Exited(0), "");
        f.end = None;
        f.stop = Some(StopReason::Lost(Arc::new(io::Error::other("gone"))));
        assert_eq!(
            classify(&f),
            Outcome::CouldNotStart {
                reason: "waiting for the process failed: gone".into()
            }
        );
    }

    #[test]
    fn invalid_output_names_the_byte_offset() {
        let cases: &[(&[u8], usize, &str)] = &[
            (b"", 0, "empty output"),
            (b"   \n", 0, "empty output"),
            (b"{\"a\":1} {\"b\":2}", 8, "more output"),
            (b"starting up\n{\"a\":1}", 0, "not JSON"),
            (b"{\"a\": \"\xff\"}", 7, "invalid UTF-8"),
            (b"\xEF\xBB\xBF{}", 0, "byte-order mark"),
            (b"{\"a\":\n  tru}", 11, "not JSON"),
        ];
        for (bytes, offset, reason) in cases {
            let err = parse_one_value(bytes).expect_err("invalid");
            assert_eq!(
                err.0,
                *offset,
                "offset for {:?}",
                String::from_utf8_lossy(bytes)
            );
            assert!(err.1.contains(reason), "{} should mention {reason}", err.1);
        }
    }
}
