//! Waiting for a change to any of a set of files, for `--watch`. The files' folders
//! are watched (an editor that saves by writing a new file and renaming it over the
//! old one replaces the file, and a watch on the file itself would lose it), events
//! on other files in them are ignored, and a burst of events is one change once
//! it has been quiet for a moment. Where the system gives no file events (or
//! `PROMPTEXEC_WATCH_POLL=1` says so), the files are polled instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::{EventKind, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher as _};
use tokio_util::sync::CancellationToken;

/// How long events must stop before they count as one change: an editor's save is a
/// write, a rename and a change of mode in a few milliseconds.
const QUIET: Duration = Duration::from_millis(200);

/// How often a stop is looked for while waiting, and files polled where they must be.
const TICK: Duration = Duration::from_millis(100);
const POLL_EVERY: Duration = Duration::from_millis(250);

/// The variable that makes the watch poll even where file events work.
pub(crate) const FORCE_POLL: &str = "PROMPTEXEC_WATCH_POLL";

/// The file watcher could not be set up at all.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch files: {0}")]
pub(crate) struct WatchError(#[source] notify::Error);

/// What is watched: single files, and folders whose every file counts (a scenario
/// added to a folder of scenarios is a change).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Watched {
    pub files: BTreeSet<PathBuf>,
    pub folders: BTreeSet<PathBuf>,
}

impl Watched {
    /// How many files and folders are watched.
    pub(crate) fn len(&self) -> usize {
        self.files.len() + self.folders.len()
    }

    fn covers(&self, path: &Path) -> bool {
        self.files.contains(path) || self.folders.iter().any(|folder| path.starts_with(folder))
    }
}

/// A live watch of a [`Watched`] set.
pub(crate) struct Watcher {
    watched: Watched,
    events: Receiver<notify::Result<notify::Event>>,
    /// Kept for its drop, which ends the watch.
    _inner: Box<dyn notify::Watcher + Send>,
    /// Whether the files are polled rather than evented.
    pub polling: bool,
}

impl Watcher {
    /// Watches the files and folders of `watched` (made absolute, so that event
    /// paths compare with them). File events where the system has them, else polling.
    pub(crate) fn start(watched: &Watched) -> Result<Self, WatchError> {
        let watched = Watched {
            files: watched.files.iter().map(|p| absolute(p)).collect(),
            folders: watched.folders.iter().map(|p| absolute(p)).collect(),
        };
        let forced = std::env::var_os(FORCE_POLL).is_some_and(|v| v != "0" && !v.is_empty());
        let evented = if forced {
            None
        } else {
            let (send, events) = channel();
            RecommendedWatcher::new(send, notify::Config::default())
                .and_then(|inner| watch_all(inner, &watched))
                .ok()
                .map(|inner| (Box::new(inner) as Box<dyn notify::Watcher + Send>, events))
        };
        let (inner, events, polling) = match evented {
            Some((inner, events)) => (inner, events, false),
            None => {
                let (send, events) = channel();
                let config = notify::Config::default()
                    .with_poll_interval(POLL_EVERY)
                    .with_compare_contents(true);
                let inner = PollWatcher::new(send, config)
                    .and_then(|inner| watch_all(inner, &watched))
                    .map_err(WatchError)?;
                (
                    Box::new(inner) as Box<dyn notify::Watcher + Send>,
                    events,
                    true,
                )
            }
        };
        Ok(Self {
            watched,
            events,
            _inner: inner,
            polling,
        })
    }

    /// The files that changed, once they have been quiet for [`QUIET`]; `None` when
    /// `stop` is cancelled first (or the watch broke down).
    pub(crate) fn next_change(&self, stop: &CancellationToken) -> Option<Vec<PathBuf>> {
        let mut changed: BTreeSet<PathBuf> = BTreeSet::new();
        let mut last = Instant::now();
        loop {
            if stop.is_cancelled() {
                return None;
            }
            if !changed.is_empty() && last.elapsed() >= QUIET {
                return Some(changed.into_iter().collect());
            }
            match self.events.recv_timeout(TICK) {
                Ok(Ok(event)) if counts(&event.kind) => {
                    let ours: Vec<PathBuf> = event
                        .paths
                        .into_iter()
                        .filter(|p| self.watched.covers(p))
                        .collect();
                    if !ours.is_empty() {
                        changed.extend(ours);
                        last = Instant::now();
                    }
                }
                Ok(_) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

/// Reading a file is no change, nor is a change of its mode or owner; writing,
/// making, renaming or removing one is. Polling sees a write as a newer write time.
fn counts(kind: &EventKind) -> bool {
    use notify::event::{MetadataKind, ModifyKind};
    match kind {
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(what)) => *what == MetadataKind::WriteTime,
        _ => true,
    }
}

/// Every watched file's folder (not recursively) and every watched folder (with
/// what is under it); a folder that does not exist is left out.
fn watch_all<W: notify::Watcher>(mut inner: W, watched: &Watched) -> notify::Result<W> {
    let parents: BTreeSet<&Path> = watched.files.iter().filter_map(|f| f.parent()).collect();
    for folder in parents {
        if folder.is_dir() {
            inner.watch(folder, RecursiveMode::NonRecursive)?;
        }
    }
    for folder in &watched.folders {
        if folder.is_dir() {
            inner.watch(folder, RecursiveMode::Recursive)?;
        }
    }
    Ok(inner)
}

/// `path` from the root, without `.` steps, as file events name it.
fn absolute(path: &Path) -> PathBuf {
    let full = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    full.canonicalize().unwrap_or(full)
}
