//! What `prompt export-dir|import-dir|status` show.

use serde_json::json;

use crate::library::{FolderState, FolderStatus};

use super::library::Answer;

/// One folder command's answer.
pub(crate) enum FolderAnswer<'a> {
    /// `export-dir`: the files written and those already up to date.
    Exported {
        written: &'a [String],
        unchanged: usize,
    },
    /// `import-dir`: each prompt's state before, and the versions written (`check`:
    /// nothing written).
    Imported {
        statuses: &'a [FolderStatus],
        check: bool,
    },
    /// `status`.
    Status(&'a [FolderStatus]),
}

impl Answer for FolderAnswer<'_> {
    fn json(&self) -> String {
        let doc = match self {
            FolderAnswer::Exported { written, unchanged } => {
                json!({"written": written, "unchanged": unchanged})
            }
            FolderAnswer::Imported { statuses, check } => json!({
                "check": check,
                "prompts": statuses.iter().filter(|s| s.state != FolderState::Deleted).collect::<Vec<_>>(),
            }),
            FolderAnswer::Status(statuses) => json!({ "prompts": statuses }),
        };
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    }

    fn human(&self) -> String {
        match self {
            FolderAnswer::Exported { written, unchanged } => {
                let mut out: Vec<String> = written.iter().map(|f| format!("wrote {f}")).collect();
                out.push(format!("{} written, {unchanged} unchanged", written.len()));
                out.join("\n")
            }
            FolderAnswer::Imported { statuses, check } => imported(statuses, *check),
            FolderAnswer::Status(statuses) => status(statuses),
        }
    }
}

fn imported(statuses: &[FolderStatus], check: bool) -> String {
    let would = if check { "would be " } else { "" };
    let mut out = Vec::new();
    for s in statuses {
        let line = match (s.state, s.version) {
            (FolderState::New, _) => format!("{would}added    {} (version 1)", s.id),
            (FolderState::Modified, Some(v)) => {
                format!("{would}changed  {} (version {v} -> {})", s.id, v + 1)
            }
            _ => continue,
        };
        out.push(line);
    }
    let unchanged = count(statuses, FolderState::Unchanged);
    let changes = out.len();
    out.push(match (changes, check) {
        (0, _) => format!("nothing to import; {unchanged} unchanged"),
        (n, true) => format!("{n} would change, {unchanged} unchanged"),
        (n, false) => format!("{n} imported, {unchanged} unchanged"),
    });
    out.join("\n")
}

fn status(statuses: &[FolderStatus]) -> String {
    let mut out = Vec::new();
    for s in statuses {
        let file = s.file.as_ref().map(|f| f.display().to_string());
        let line = match (s.state, file, s.version) {
            (FolderState::New, Some(f), _) => format!("new:       {f} ({})", s.id),
            (FolderState::Modified, Some(f), Some(v)) => {
                format!("modified:  {f} ({}, library version {v})", s.id)
            }
            (FolderState::Deleted, _, Some(v)) => {
                format!("deleted:   {} (library version {v}, no file)", s.id)
            }
            _ => continue,
        };
        out.push(line);
    }
    let unchanged = count(statuses, FolderState::Unchanged);
    if out.is_empty() {
        out.push(format!(
            "the folder and the library agree ({unchanged} prompts)"
        ));
    } else {
        out.push(format!("{unchanged} unchanged"));
    }
    out.join("\n")
}

fn count(statuses: &[FolderStatus], state: FolderState) -> usize {
    statuses.iter().filter(|s| s.state == state).count()
}
