//! The async runtime commands execute their plans on, and the interrupt they race.

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

/// Ctrl-C or SIGTERM. The handlers are in place as soon as this is called, before
/// the future is first polled, so a signal that comes while the work it races is
/// starting is not missed (a `select!` may poll the work first).
pub(super) fn interrupted() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let signals = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    );
    async move {
        let (Ok(mut int), Ok(mut term)) = signals else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
    }
}
