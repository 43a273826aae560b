//! `ui`: where the web page is served, and what it opens.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub(crate) struct UiArgs {
    /// The library database [default: the per-user data directory]
    #[arg(long, value_name = "PATH", env = "PROMPTEXEC_LIBRARY")]
    pub library: Option<PathBuf>,

    /// Who saves, for the library's records [default: the user]
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,

    /// The folder whose JSON reports the report viewer lists (at any depth)
    #[arg(long, value_name = "DIR")]
    pub reports: Option<PathBuf>,

    /// The port on 127.0.0.1 [default: a free one]
    #[arg(long, value_name = "N", conflicts_with = "listen")]
    pub port: Option<u16>,

    /// Bind this address (HOST:PORT) instead of 127.0.0.1; warns when it is not a
    /// loopback address
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,

    /// Open the page in the default browser
    #[arg(long)]
    pub open: bool,
}
