//! `promptexec ui`: a small web application over the prompt library and saved
//! reports, served on loopback. It is a thin HTTP layer: every answer comes from the
//! library, lint and report code the commands use, most of them as the very JSON the
//! matching command prints (the table is in docs/src/commands/ui.md).
//!
//! - [`access`]: the per-start token, and refusing other origins and hosts.
//! - [`page`]: the one HTML page, its script and style inline.
//! - [`reply`]: answers and failures as HTTP responses.
//! - [`prompts`]: the library: listing, versions, diffs, audit, saving, stats.
//! - [`preview`]: a draft rendered and linted as the user types.
//! - [`reports`]: saved reports: the list, their pages, diffs and histories.

mod access;
mod page;
mod preview;
mod prompts;
mod reply;
mod reports;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};

use crate::library::lint::Config as LintConfig;

use access::Access;
use reply::ApiError;

/// How long the requests under way may take once the server is told to stop.
const GRACE: Duration = Duration::from_secs(3);

/// What the server serves, and where.
#[derive(Debug)]
pub(crate) struct Options {
    /// The address to bind.
    pub listen: SocketAddr,
    /// The address was named with `--listen`: requests may name the host as they
    /// like (the token and origin checks still hold).
    pub any_host: bool,
    pub library: PathBuf,
    /// The folder whose reports the report viewer lists.
    pub reports: Option<PathBuf>,
    /// Who saves, in the library's records.
    pub who: String,
    /// The lint rules the editor's findings follow.
    pub lint: LintConfig,
}

/// Why the server cannot start or stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UiError {
    #[error("cannot listen on {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("the reports folder {} cannot be read", path.display())]
    Reports {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot make the access token")]
    Token(#[source] getrandom::Error),
    #[error("the server failed")]
    Serve(#[source] std::io::Error),
}

/// What every request may use.
#[derive(Debug)]
struct State {
    access: Access,
    library: PathBuf,
    reports: Option<PathBuf>,
    who: String,
    lint: LintConfig,
}

/// A bound server, not yet answering.
pub(crate) struct Server {
    listener: tokio::net::TcpListener,
    state: Arc<State>,
    url: String,
}

impl Server {
    /// Binds the address and makes this start's token. The reports folder must be
    /// a readable directory.
    pub(crate) async fn bind(options: Options) -> Result<Server, UiError> {
        let reports = match options.reports {
            Some(dir) => Some(reports::folder(&dir)?),
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|source| UiError::Bind {
                addr: options.listen,
                source,
            })?;
        let bound = listener.local_addr().map_err(|source| UiError::Bind {
            addr: options.listen,
            source,
        })?;
        let access = Access::new(bound, options.any_host)?;
        let url = format!("http://{}/?token={}", access.authority(), access.token());
        let state = Arc::new(State {
            access,
            library: options.library,
            reports,
            who: options.who,
            lint: options.lint,
        });
        Ok(Server {
            listener,
            state,
            url,
        })
    }

    /// The page's address, token included.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Answers until `stop` completes, then lets the requests under way finish, for
    /// at most [`GRACE`]: a client that never finishes its request cannot hold the
    /// server open.
    pub(crate) async fn run(
        self,
        stop: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), UiError> {
        let app = routes(self.state);
        let stopped = tokio_util::sync::CancellationToken::new();
        let signal = {
            let stopped = stopped.clone();
            async move {
                stop.await;
                stopped.cancel();
            }
        };
        let serving = axum::serve(self.listener, app).with_graceful_shutdown(signal);
        tokio::select! {
            served = serving => served.map_err(UiError::Serve),
            () = async {
                stopped.cancelled().await;
                tokio::time::sleep(GRACE).await;
            } => Ok(()),
        }
    }
}

/// Runs a request's blocking work (the library, report files) off the async
/// threads.
async fn blocking<T, F>(state: &Arc<State>, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&State) -> Result<T, ApiError> + Send + 'static,
{
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || work(&state))
        .await
        .map_err(|err| ApiError::Internal(format!("the request stopped: {err}")))?
}

fn routes(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(page::page))
        .route("/api/prompts", get(prompts::list))
        .route("/api/prompts/{id}", get(prompts::show).post(prompts::save))
        .route("/api/prompts/{id}/file", get(prompts::file))
        .route("/api/prompts/{id}/history", get(prompts::history))
        .route(
            "/api/prompts/{id}/diff",
            get(prompts::versions_diff).post(prompts::draft_diff),
        )
        .route("/api/prompts/{id}/audit", get(prompts::audit))
        .route("/api/stats", get(prompts::stats))
        .route("/api/preview", post(preview::preview))
        .route("/api/reports", get(reports::list))
        .route("/api/reports/diff", get(reports::diff_json))
        .route("/api/reports/history", get(reports::history))
        .route("/reports/view", get(reports::view))
        .route("/reports/diff", get(reports::diff_page))
        .fallback(reply::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            access::guard,
        ))
        .with_state(state)
}
