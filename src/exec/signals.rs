//! The signals that end a command, for work that races them.

/// Ctrl-C, SIGTERM, or SIGHUP (the terminal went away: the servers promptexec runs
/// must not be left behind). The handlers are in place as soon as this is called,
/// before the future is first polled, so a signal that comes while the work it races
/// is starting is not missed (a `select!` may poll the work first).
pub fn interrupted() -> impl std::future::Future<Output = ()> {
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
    }
}
