//! `invoke-tool --batch`: calls stream from the input to the output. Lines are read
//! as calls finish, at most `-j` calls run at once, and a finished call waits in a
//! bounded window until every line before it is printed, so memory stays flat
//! whatever the input size and the output keeps the input order.

use std::collections::VecDeque;
use std::future::Future;

use futures::FutureExt;
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value as Json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::cli::{CliError, Console, Exit};
use crate::config::ExecSpec;
use crate::doc::Diagnostics;
use crate::tool_caller::ToolCaller;
use crate::tools::ToolReport;

use super::Plan;
use super::lines::{BatchLines, Line};
use crate::commands::common::exit::{of_tool, worse};
use crate::commands::common::runtime::{interrupted, with_runtime};

/// Lines travel from the reading thread in chunks of up to this many, so the two
/// threads wake each other once per chunk rather than once per line.
const CHUNK: usize = 64;

/// Chunks parsed ahead of the calls, so a slow reader rarely holds a call back.
const CHUNKS_AHEAD: usize = 4;

/// Output is written when this much is waiting, even if more results are ready.
const FLUSH_AT: usize = 64 * 1024;

/// Runs the batch and prints each call's envelope in input order as soon as it and
/// those before it are done. The exit code is the worst outcome: a failure, else a
/// tool error, else a pending. A line that is not a call ends the batch: no call
/// starts after it, those started are printed, the rest of the input is still read
/// so every bad line is named, and the batch fails with those lines.
pub(super) fn execute(
    plan: &Plan,
    spec: &ExecSpec,
    lines: BatchLines,
    console: &mut Console,
) -> Result<Exit, CliError> {
    with_runtime(|| async {
        let caller = ToolCaller::new(&plan.name, spec);
        let cancel = CancellationToken::new();
        let input = read_in_background(lines);
        let mut out = Output::new(console);
        let work = stream_calls(plan, &caller, &cancel, input, &mut out);
        let finished = tokio::select! {
            result = work => Some(result),
            () = interrupted() => None,
        };
        match finished {
            Some(result) => {
                caller.shutdown().await;
                result
            }
            None => {
                cancel.cancel();
                caller.stop_now();
                caller.shutdown().await;
                // Calls already done are printed; a closed stdout does not change
                // that the batch was interrupted.
                let _ = out.flush();
                Ok(Exit::Interrupted)
            }
        }
    })
}

type Chunk = Vec<Result<Line, CliError>>;

/// The lines, parsed (and checked) on a thread of their own, a bounded number ahead.
/// A chunk goes as soon as the input has nothing more at hand, so a line typed on
/// stdin is not held back waiting for the next one. The thread ends when the input
/// does or when nobody is listening any more.
fn read_in_background(mut lines: BatchLines) -> Input {
    let (sender, receiver) = mpsc::channel::<Chunk>(CHUNKS_AHEAD);
    std::thread::spawn(move || {
        let mut chunk = Vec::with_capacity(CHUNK);
        while let Some(line) = lines.next() {
            chunk.push(line);
            if (chunk.len() >= CHUNK || !lines.buffered())
                && sender.blocking_send(std::mem::take(&mut chunk)).is_err()
            {
                return;
            }
        }
        if !chunk.is_empty() {
            let _ = sender.blocking_send(chunk);
        }
    });
    Input {
        chunks: receiver,
        current: VecDeque::new(),
    }
}

/// The receiving end: the chunk being taken apart, then the ones still to come.
struct Input {
    chunks: mpsc::Receiver<Chunk>,
    current: VecDeque<Result<Line, CliError>>,
}

impl Input {
    /// The next line, or `None` at the end of the input. Cancel-safe: a line is
    /// taken only when it is returned.
    async fn next(&mut self) -> Option<Result<Line, CliError>> {
        loop {
            if let Some(line) = self.current.pop_front() {
                return Some(line);
            }
            self.current = self.chunks.recv().await?.into();
        }
    }
}

/// What happened next: a call finished, or the input had something to say.
enum Step {
    Finished(usize, Box<ToolReport>),
    /// The next line, or `None` at the end of the input.
    Read(Option<Result<Line, CliError>>),
}

/// Starts calls while there is room, prints results in order, and returns the
/// worst outcome once the input is used up and every call is printed.
async fn stream_calls(
    plan: &Plan,
    caller: &ToolCaller,
    cancel: &CancellationToken,
    mut input: Input,
    out: &mut Output<'_>,
) -> Result<Exit, CliError> {
    let mut running = FuturesUnordered::new();
    let mut window = Window::default();
    let mut worst = Exit::Success;
    let mut reading = true;
    let mut stopped: Option<CliError> = None;
    // Lines started and not yet printed: the calls in flight and the finished ones
    // waiting for an earlier line, as many again as may run at once.
    let unprinted_limit = plan.jobs.saturating_mul(2);
    loop {
        while let Some(report) = window.pop_ready() {
            worst = worse(worst, of_tool(&report));
            out.push(&report)?;
        }
        let room = reading
            && stopped.is_none()
            && running.len() < plan.jobs
            && window.len() < unprinted_limit;
        if !room && running.is_empty() {
            break;
        }
        // Output waits while results keep coming, and is written before waiting.
        let step = match next_step(&mut input, &mut running, room).now_or_never() {
            Some(step) => step,
            None => {
                out.flush()?;
                next_step(&mut input, &mut running, room).await
            }
        };
        match step {
            Step::Finished(seq, report) => window.fill(seq, report),
            Step::Read(None) => reading = false,
            Step::Read(Some(Ok(Line::Call(args)))) => {
                let seq = window.open();
                running.push(call(caller, args, seq, plan, cancel));
            }
            Step::Read(Some(Ok(Line::Unreadable(problem)))) => {
                stopped = Some(CliError::Invalid(problem.into()));
            }
            Step::Read(Some(Ok(Line::OffSchema(problems)))) => {
                stopped = Some(CliError::Invalid(problems));
            }
            Step::Read(Some(Err(err))) => stopped = Some(err),
        }
    }
    out.flush()?;
    match stopped {
        None => Ok(worst),
        Some(CliError::Invalid(problems)) => Err(rest_of_bad_lines(problems, &mut input).await),
        Some(err) => Err(err),
    }
}

/// One call, tagged with its place in the input.
async fn call(
    caller: &ToolCaller,
    args: Json,
    seq: usize,
    plan: &Plan,
    cancel: &CancellationToken,
) -> (usize, Box<ToolReport>) {
    (
        seq,
        Box::new(caller.call(&args, plan.timeout, cancel).await),
    )
}

/// A finished call if one is ready, else the next line when there is room for it.
async fn next_step<F>(input: &mut Input, running: &mut FuturesUnordered<F>, room: bool) -> Step
where
    F: Future<Output = (usize, Box<ToolReport>)>,
{
    let busy = !running.is_empty();
    tokio::select! {
        biased;
        Some((seq, report)) = running.next(), if busy => Step::Finished(seq, report),
        line = input.next(), if room => Step::Read(line),
        // Not reached: the loop stops before there is nothing to wait for.
        else => Step::Read(None),
    }
}

/// The input after a bad line, read to the end so every bad line is named.
async fn rest_of_bad_lines(mut problems: Diagnostics, input: &mut Input) -> CliError {
    while let Some(line) = input.next().await {
        match line {
            Ok(Line::Call(_)) => {}
            Ok(Line::Unreadable(problem)) => problems.push(problem),
            Ok(Line::OffSchema(found)) => problems.extend(found),
            Err(err) => return err,
        }
    }
    CliError::Invalid(problems)
}

/// Lines started and not yet printed, in input order: `None` while a call runs.
#[derive(Default)]
struct Window {
    /// The sequence number of the first slot.
    first: usize,
    slots: VecDeque<Option<Box<ToolReport>>>,
}

impl Window {
    /// A slot for the next line; its sequence number.
    fn open(&mut self) -> usize {
        self.slots.push_back(None);
        self.first + self.slots.len() - 1
    }

    fn fill(&mut self, seq: usize, report: Box<ToolReport>) {
        let place = seq.checked_sub(self.first);
        if let Some(slot) = place.and_then(|i| self.slots.get_mut(i)) {
            *slot = Some(report);
        }
    }

    /// The first line's report once it and every line before it are done.
    fn pop_ready(&mut self) -> Option<Box<ToolReport>> {
        if !matches!(self.slots.front(), Some(Some(_))) {
            return None;
        }
        self.first += 1;
        self.slots.pop_front().flatten()
    }

    fn len(&self) -> usize {
        self.slots.len()
    }
}

/// Envelopes gathered into one write per burst instead of one per line.
struct Output<'a> {
    console: &'a mut Console,
    pending: String,
}

impl<'a> Output<'a> {
    fn new(console: &'a mut Console) -> Self {
        Self {
            console,
            pending: String::with_capacity(FLUSH_AT),
        }
    }

    /// One call's envelope on a line of its own.
    fn push(&mut self, report: &ToolReport) -> Result<(), CliError> {
        crate::report::push_jsonl(&mut self.pending, report);
        if self.pending.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), CliError> {
        if !self.pending.is_empty() {
            self.console.out(&self.pending)?;
            self.pending.clear();
        }
        Ok(())
    }
}
