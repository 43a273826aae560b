//! `ui`: the library's browser and editor, its stats and saved reports, served as a
//! web page until a signal stops the server (then exit 0). Exit 2 when it cannot
//! start: the address is taken, the library or the reports folder cannot be read.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use crate::cli::args::UiArgs;
use crate::cli::{CliError, Console, Exit};
use crate::library::Library;
use crate::ui::{Options, Server};

use super::common::library::{acting, lint_rules, refused};
use super::common::runtime::{interrupted, with_runtime};

/// How long the browser opener may take to hand the address on.
const OPENER_DEADLINE: Duration = Duration::from_secs(10);

pub(super) fn run(args: &UiArgs, console: &mut Console) -> Result<Exit, CliError> {
    let listen = args
        .listen
        .unwrap_or_else(|| SocketAddr::from((Ipv4Addr::LOCALHOST, args.port.unwrap_or(0))));
    if !listen.ip().is_loopback() {
        console.error(&format!(
            "warning: listening on {listen}, not a loopback address: anyone who can reach it \
             and holds the address printed below can read and change the library"
        ));
    }
    let library = args.library.clone().unwrap_or_else(Library::default_path);
    // A library that cannot be opened stops the start, not the first request.
    Library::open(&library).map_err(refused)?;
    let options = Options {
        listen,
        any_host: args.listen.is_some(),
        library,
        reports: args.reports.clone(),
        who: acting(args.agent.as_deref()),
        lint: lint_rules(None, console)?,
    };
    with_runtime(|| async {
        // Installed before the address is printed: a signal sent once it is seen
        // stops the server.
        let stop = interrupted();
        let server = Server::bind(options).await?;
        let url = server.url().to_string();
        console.out(&format!("{url}\n"))?;
        console.note("serving the page at that address; Ctrl-C stops");
        // The page is served while the browser is being opened.
        let opening = async {
            if args.open {
                open_browser(&url, console).await;
            }
        };
        let (served, ()) = tokio::join!(server.run(stop), opening);
        served?;
        Ok(Exit::Success)
    })
}

/// Hands the address to `$BROWSER`, else the system's opener, in a process group of
/// its own with a deadline. A failure is a warning: the address is printed anyway.
async fn open_browser(url: &str, console: &mut Console) {
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let program = opener.unwrap_or_else(|| {
        if cfg!(target_os = "macos") {
            "open"
        } else {
            "xdg-open"
        }
        .to_string()
    });
    let mut command = tokio::process::Command::new(&program);
    command
        .arg(url)
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let outcome = match command.spawn() {
        Ok(mut child) => match tokio::time::timeout(OPENER_DEADLINE, child.wait()).await {
            Ok(Ok(status)) if status.success() => return,
            Ok(Ok(status)) => format!("it exited with {status}"),
            Ok(Err(err)) => err.to_string(),
            Err(_) => format!("it did not finish within {}s", OPENER_DEADLINE.as_secs()),
        },
        Err(err) => err.to_string(),
    };
    console.error(&format!(
        "warning: cannot open a browser with `{program}`: {outcome}"
    ));
}
