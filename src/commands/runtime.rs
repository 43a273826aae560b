//! The async runtime commands execute their plans on, and the interrupt they race.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

use crate::cli::CliError;

/// Runs `work` on a current-thread runtime: calls wait on I/O, and it starts faster.
pub(super) fn with_runtime<F, Fut, T>(work: F) -> Result<T, CliError>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<T, CliError>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(work())
}

/// Set by the first watcher that sees a signal, on whichever thread or runtime, before
/// anything is cancelled because of it: whatever stopped because of a signal finds
/// it set, so no worker takes that for a reason to start the next scenario.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether promptexec has seen Ctrl-C, SIGTERM or SIGHUP. Nothing new (a scenario, a
/// conversation) starts once it has.
pub(super) fn interrupt_seen() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Ctrl-C, SIGTERM, or SIGHUP (the terminal went away: the servers promptexec runs
/// must not be left behind); [`interrupt_seen`] says so from then on. The handlers are in place as soon as this is called,
/// before the future is first polled, so a signal that comes while the work it races
/// is starting is not missed (a `select!` may poll the work first).
pub(super) fn interrupted() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let signals = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    );
    async move {
        let (Ok(mut int), Ok(mut term), Ok(mut hup)) = signals else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
            _ = hup.recv() => {}
        }
        INTERRUPTED.store(true, Ordering::SeqCst);
    }
}

/// Watches for a signal, or for `stop`, for as long as it lives, and then cancels
/// `cancel`: whatever is under way on that token stops, the observers still draining
/// at the end of a run included, and [`CancelOnInterrupt::fired`] says so, so the
/// command ends 130 with what it has. Started inside the runtime the work runs on,
/// before the work: its handlers are in place when `start` returns.
pub(super) struct CancelOnInterrupt {
    fired: CancellationToken,
    watch: tokio::task::JoinHandle<()>,
}

impl CancelOnInterrupt {
    pub(super) fn start(cancel: &CancellationToken, stop: &CancellationToken) -> Self {
        let signal = interrupted();
        let fired = CancellationToken::new();
        // A signal seen elsewhere before this started stops the work at once.
        if interrupt_seen() {
            fired.cancel();
            cancel.cancel();
        }
        let watch = tokio::spawn({
            let (cancel, stop, fired) = (cancel.clone(), stop.clone(), fired.clone());
            async move {
                tokio::select! {
                    () = signal => {}
                    () = stop.cancelled() => {}
                }
                fired.cancel();
                cancel.cancel();
            }
        });
        Self { fired, watch }
    }

    /// Whether a signal (or `stop`) came while it watched.
    pub(super) fn fired(&self) -> bool {
        self.fired.is_cancelled()
    }
}

impl Drop for CancelOnInterrupt {
    fn drop(&mut self) {
        self.watch.abort();
    }
}

/// Ctrl-C, SIGTERM or SIGHUP watched for the whole of a long command (a suite), on a
/// thread of its own: a signal that comes between two conversations, when none of them is
/// listening, still stops the command. The handlers are in place when `start`
/// returns.
pub(super) struct InterruptWatch {
    fired: CancellationToken,
    done: CancellationToken,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InterruptWatch {
    pub(super) fn start() -> Result<Self, CliError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(CliError::Runtime)?;
        let (fired, done) = (CancellationToken::new(), CancellationToken::new());
        let (ready, installed) = std::sync::mpsc::channel();
        let thread = std::thread::spawn({
            let (fired, done) = (fired.clone(), done.clone());
            move || {
                runtime.block_on(async {
                    let signal = interrupted();
                    let _ = ready.send(());
                    tokio::select! {
                        () = signal => fired.cancel(),
                        () = done.cancelled() => {}
                    }
                });
            }
        });
        let _ = installed.recv();
        Ok(Self {
            fired,
            done,
            thread: Some(thread),
        })
    }

    /// Cancelled when a signal came.
    pub(super) fn token(&self) -> CancellationToken {
        self.fired.clone()
    }
}

impl Drop for InterruptWatch {
    fn drop(&mut self) {
        self.done.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How many things a command does at once when not told: one per core.
pub(super) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
