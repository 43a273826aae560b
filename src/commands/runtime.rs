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

/// Ctrl-C or SIGTERM.
pub(super) async fn interrupted() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
