//! `--watch`: the command run, then run again whenever a file it reads changes (the
//! config, the pack, scenario, mock and case files, and the files its extensions
//! run), until Ctrl-C. A run that fails, even on a broken file, is reported and
//! waited past; only an interrupt ends the watch (exit 130). A suite whose changes
//! are all scenario files plays just those scenarios again; any other change plays
//! the whole command again.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::cli::args::{CheckArgs, RunArgs, TestArgs};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::config::RuntimeConfig;
use crate::watch::{Watched, Watcher};

use super::load::{config_path, current_dir};
use super::runtime::InterruptWatch;

/// A command that `--watch` runs again.
pub(in crate::commands) enum Watchable {
    Run(Box<RunArgs>),
    Test(TestArgs),
    Check(CheckArgs),
}

/// Runs the command with `once` whenever what it reads changes.
pub(in crate::commands) fn watch(
    settings: &Settings,
    command: Watchable,
    console: &mut Console,
    once: impl Fn(&Settings, Watchable, &mut Console) -> Result<Exit, CliError>,
) -> Result<Exit, CliError> {
    if let Watchable::Run(args) = &command {
        refuse_live(settings, args)?;
    }
    let interrupt = InterruptWatch::start()?;
    let stop = interrupt.token();
    let clear = std::io::stderr().is_terminal();
    let mut changed: Vec<PathBuf> = Vec::new();
    let mut watched = Watched::default();
    loop {
        match once(settings, narrowed(&command, &changed), console) {
            Err(CliError::Interrupted) => return Err(CliError::Interrupted),
            Err(err) => err.report(console),
            Ok(_) => {}
        }
        if stop.is_cancelled() {
            return Err(CliError::Interrupted);
        }
        // While the config cannot be read, what it named before stays watched.
        let (fresh, complete) = watched_by(settings, &command);
        if complete {
            watched = fresh;
        } else {
            watched.files.extend(fresh.files);
            watched.folders.extend(fresh.folders);
        }
        // Started after the run: what the run itself wrote is no change.
        let watcher =
            Watcher::start(&watched).map_err(|err| UsageError::Unusable(err.to_string()))?;
        let how = if watcher.polling { " (polling)" } else { "" };
        console.note(&format!(
            "watching {} files and folders{how}; Ctrl-C to stop",
            watched.len()
        ));
        changed = watcher.next_change(&stop).ok_or(CliError::Interrupted)?;
        if clear {
            // Clear the screen and go home, as `clear` does.
            eprint!("\x1b[2J\x1b[H");
        }
    }
}

/// The command to run after `changed`: a suite whose changes are all scenario files
/// that still exist plays those alone; anything else, the whole command.
fn narrowed(command: &Watchable, changed: &[PathBuf]) -> Watchable {
    match command {
        Watchable::Run(args) => {
            let mut args = args.clone();
            if !changed.is_empty()
                && !crate::arena::is_arena(&args.pack)
                && changed.iter().all(|p| is_scenario_file(p) && p.is_file())
            {
                args.scenarios = changed.to_vec();
            }
            Watchable::Run(args)
        }
        Watchable::Test(args) => Watchable::Test(args.clone()),
        Watchable::Check(args) => Watchable::Check(args.clone()),
    }
}

fn is_scenario_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    [".scenario.yaml", ".scenario.yml", ".scenario.json"]
        .iter()
        .any(|end| name.ends_with(end))
}

/// What the command reads, as far as can be told without running it, and whether
/// that is all of it (false when the config cannot be read now: the files it names
/// are not known).
fn watched_by(settings: &Settings, command: &Watchable) -> (Watched, bool) {
    let mut watched = Watched::default();
    let config_file = config_path(settings);
    let config = config_file
        .as_deref()
        .map(|path| crate::config::load(path, false).map(|loaded| loaded.value));
    let complete = !matches!(config, Some(Err(_)));
    watched.files.extend(config_file);
    if let Some(Ok(config)) = &config {
        watched.files.extend(crate::lock::extension_files(config));
        watched.files.extend(mock_files(config));
    }
    match command {
        Watchable::Run(args) => {
            if crate::arena::is_arena(&args.pack) {
                // A project names its files from its folder: all of it is read.
                let folder = args.pack.parent().unwrap_or(Path::new("."));
                watched.folders.insert(folder.to_path_buf());
            } else {
                watched.files.insert(args.pack.clone());
                let scenarios = match args.scenarios.is_empty() {
                    true => vec![crate::suite::default_folder(&args.pack)],
                    false => args.scenarios.clone(),
                };
                sort_paths(&mut watched, scenarios);
            }
            watched.files.extend(args.mock.clone());
        }
        Watchable::Test(args) => {
            let cases = match args.paths.is_empty() {
                true => vec![current_dir()],
                false => args.paths.clone(),
            };
            sort_paths(&mut watched, cases);
        }
        Watchable::Check(args) => watched.files.extend(args.pack.clone()),
    }
    (watched, complete)
}

/// Files go with files, folders with folders.
fn sort_paths(watched: &mut Watched, paths: Vec<PathBuf>) {
    for path in paths {
        if path.is_dir() {
            watched.folders.insert(path);
        } else {
            watched.files.insert(path);
        }
    }
}

/// The mock providers' scripts.
fn mock_files(config: &RuntimeConfig) -> Vec<PathBuf> {
    config
        .providers
        .iter()
        .filter_map(|p| p.mock_config.clone())
        .collect()
}

/// A suite that would call a live model is not played again on every save unless
/// `--watch-live` says so: each run costs money.
fn refuse_live(settings: &Settings, args: &RunArgs) -> Result<(), CliError> {
    if args.watch.watch_live || args.replay_dir.is_some() || args.mock_provider {
        return Ok(());
    }
    let Some(path) = config_path(settings) else {
        return Ok(());
    };
    let Ok(loaded) = crate::config::load(&path, false) else {
        // The run says what is wrong with it.
        return Ok(());
    };
    let providers = &loaded.value.providers;
    let named = |p: &&crate::config::Provider| {
        args.provider
            .as_deref()
            .is_some_and(|wanted| p.id.as_deref() == Some(wanted) || p.kind == wanted)
    };
    let chosen = match &args.provider {
        Some(_) => providers.iter().find(named),
        // Without --provider a suite plays on the mock provider when there is one.
        None => match providers.iter().find(|p| p.kind == "mock") {
            Some(_) => None,
            None => providers.first(),
        },
    };
    match chosen {
        Some(live) if live.kind != "mock" => Err(UsageError::not_here(
            "--watch",
            format!(
                "would play the suite again on every change against the live provider `{}` ({}); add --watch-live to pay for that, or --replay-dir DIR",
                live.id.as_deref().unwrap_or(&live.kind),
                live.kind
            ),
        )
        .into()),
        _ => Ok(()),
    }
}
