//! The async runtime commands execute their plans on, and the interrupt they race.

use tokio_util::sync::CancellationToken;

use crate::cli::CliError;
pub(in crate::commands) use crate::exec::interrupted;

/// Runs `work` on a current-thread runtime: calls wait on I/O, and it starts faster.
pub(in crate::commands) fn with_runtime<F, Fut, T>(work: F) -> Result<T, CliError>
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

/// Ctrl-C, SIGTERM or SIGHUP watched for the whole of a long command (a suite), on a
/// thread of its own: a signal that comes between two conversations, when none of them is
/// listening, still stops the command. The handlers are in place when `start`
/// returns.
pub(in crate::commands) struct InterruptWatch {
    fired: CancellationToken,
    done: CancellationToken,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InterruptWatch {
    pub(in crate::commands) fn start() -> Result<Self, CliError> {
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
    pub(in crate::commands) fn token(&self) -> CancellationToken {
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
pub(in crate::commands) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
