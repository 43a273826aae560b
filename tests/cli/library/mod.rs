//! `promptexec prompt …`: the prompt library on SQLite, its audit log, and signed
//! sharing — run the way a user runs them, each test against its own library.

mod add_many;
mod audit;
mod concurrency;
mod inject;
mod prompt_files;
mod rank;
mod share;
mod store;
mod sync;
mod templates;

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::util::{Invocation, Outcome, promptexec};

/// A fresh library in its own temporary directory (which also holds keys and bundles).
struct Lib {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Lib {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("library.db");
        Self { dir, path }
    }

    fn path(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temp path")
    }

    /// A path inside the library's temporary directory.
    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// `promptexec ARGS --library PATH` in the fixtures directory, not started yet.
    fn command(&self, args: &[&str]) -> Invocation {
        promptexec().args(args).args(["--library", self.path()])
    }

    /// Runs `promptexec ARGS --library PATH` in the fixtures directory.
    #[track_caller]
    fn run(&self, args: &[&str]) -> Outcome {
        self.command(args).run()
    }

    /// Like [`Lib::run`], and it must succeed.
    #[track_caller]
    fn ok(&self, args: &[&str]) -> Outcome {
        let out = self.run(args);
        assert_eq!(out.code, 0, "{args:?} failed:\n{}", out.stderr);
        out
    }

    /// The `--format json` document of a command that must succeed.
    #[track_caller]
    fn json(&self, args: &[&str]) -> Json {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let out = self.ok(&all);
        serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}):\n{}", out.stdout))
    }

    #[track_caller]
    fn add(&self, fixture: &str, agent: &str) -> Outcome {
        self.ok(&["prompt", "add", &library_fixture(fixture), "--agent", agent])
    }

    /// The ids `prompt list` shows, in order.
    #[track_caller]
    fn listed(&self, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["prompt", "list"];
        args.extend(extra);
        ids(&self.json(&args))
    }
}

/// A template fixture, relative to the fixtures directory the commands run in.
fn library_fixture(name: &str) -> String {
    format!("library/{name}")
}

fn ids(rows: &Json) -> Vec<String> {
    rows.as_array()
        .expect("a JSON array")
        .iter()
        .map(|row| row["id"].as_str().expect("an id").to_string())
        .collect()
}

/// The cells of a printed table: its header and its data rows. Only the lines that
/// hold cells count, so the table's rules and frame may change without breaking a
/// test; the layout itself is pinned by the snapshots in `snapshots_human`.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    #[track_caller]
    fn parse(text: &str) -> Self {
        let mut lines = text.lines().filter_map(cells);
        let header = lines
            .next()
            .unwrap_or_else(|| panic!("no table in:\n{text}"));
        Self {
            header,
            rows: lines.collect(),
        }
    }

    /// The row whose first cell is `first`.
    #[track_caller]
    fn row(&self, first: &str) -> &[String] {
        self.rows
            .iter()
            .find(|row| row[0] == first)
            .unwrap_or_else(|| panic!("no row `{first}` in {:?}", self.rows))
    }

    /// The first cell of every row, in order.
    fn firsts(&self) -> Vec<String> {
        self.rows.iter().map(|row| row[0].clone()).collect()
    }
}

/// The cells of one printed line, if it holds cells (a rule or frame holds none).
fn cells(line: &str) -> Option<Vec<String>> {
    let inner = line.trim().trim_matches('│');
    let cells: Vec<String> = inner
        .split(['│', '┆'])
        .map(|cell| cell.trim().to_string())
        .collect();
    (cells.len() > 1).then_some(cells)
}

/// Writes a key pair with `prompt keygen` and returns its did:key.
#[track_caller]
fn keygen(out: &str) -> String {
    let made = promptexec().args(["prompt", "keygen", "--out", out]).run();
    made.expect_code(0);
    made.stdout.trim().to_string()
}

fn greeting_vars(name: &str) -> Vec<String> {
    vec![
        "--var".into(),
        format!("name={name}"),
        "--var".into(),
        "tone=formal".into(),
        "--var".into(),
        "account=ACC-123".into(),
    ]
}
