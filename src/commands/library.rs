//! `prompt add|list|search|show|history|lock|unlock|rm|rate|audit`: the prompt library
//! from the shell.

use serde_json::{Value as Json, json};

use std::path::PathBuf;

use crate::cli::args::{AuditCommand, LibraryArgs, LibraryCommand};
use crate::cli::{CliError, Console, Exit};
use crate::library::{StoredPrompt, load_template_set};
use crate::report::table;

use super::store::{open, refused, say, who};

/// Runs one library command.
pub(super) fn run(command: &LibraryCommand, console: &mut Console) -> Result<Exit, CliError> {
    match command {
        LibraryCommand::Add { files, library } => add(files, library, console),
        LibraryCommand::List { tags, library } => {
            let prompts = open(library)?.list(tags).map_err(refused)?;
            let rows: Vec<Json> = prompts.iter().map(summary).collect();
            say(console, library.format, &Json::Array(rows), || {
                prompt_table(&prompts, None)
            })
        }
        LibraryCommand::Search {
            query,
            tags,
            library,
        } => {
            let hits = open(library)?.search(query, tags).map_err(refused)?;
            let rows: Vec<Json> = hits
                .iter()
                .map(|hit| {
                    let mut row = summary(&hit.prompt);
                    row["relevance"] = json!(hit.relevance);
                    row
                })
                .collect();
            let found: Vec<StoredPrompt> = hits.iter().map(|hit| hit.prompt.clone()).collect();
            let scores: Vec<u32> = hits.iter().map(|hit| hit.relevance).collect();
            say(console, library.format, &Json::Array(rows), || {
                if found.is_empty() {
                    format!("no prompt matches `{query}`")
                } else {
                    prompt_table(&found, Some(&scores))
                }
            })
        }
        LibraryCommand::Show {
            id,
            version,
            library,
        } => {
            let prompt = open(library)?.get(id, *version).map_err(refused)?;
            let mut doc = summary(&prompt);
            doc["content"] = prompt.content.clone();
            say(console, library.format, &doc, || show_text(&prompt))
        }
        LibraryCommand::History { id, library } => {
            let versions = open(library)?.history(id).map_err(refused)?;
            say(console, library.format, &json!(versions), || {
                let mut table = table(&["version", "hash", "by", "at"]);
                for v in &versions {
                    table.add_row(vec![
                        v.version.to_string(),
                        v.content_hash.clone(),
                        v.author.clone(),
                        v.created_at.clone(),
                    ]);
                }
                table.to_string()
            })
        }
        LibraryCommand::Lock { id, library } | LibraryCommand::Unlock { id, library } => {
            let lock = matches!(command, LibraryCommand::Lock { .. });
            open(library)?.set_locked(id, lock).map_err(refused)?;
            say(
                console,
                library.format,
                &json!({"id": id, "locked": lock}),
                || format!("`{id}` is {}", if lock { "locked" } else { "unlocked" }),
            )
        }
        LibraryCommand::Rm { id, library } => {
            open(library)?.remove(id).map_err(refused)?;
            say(
                console,
                library.format,
                &json!({"id": id, "removed": true}),
                || format!("removed `{id}`"),
            )
        }
        LibraryCommand::Rate {
            id,
            score,
            comment,
            library,
        } => {
            let mut lib = open(library)?;
            lib.rate(id, *score, comment.as_deref(), &who(library))
                .map_err(refused)?;
            let prompt = lib.get(id, None).map_err(refused)?;
            say(console, library.format, &summary(&prompt), || {
                format!(
                    "rated `{id}` {score}; average {:.2} of {} rating(s)",
                    prompt.rating.unwrap_or_default(),
                    prompt.ratings
                )
            })
        }
        LibraryCommand::Audit {
            verify: Some(AuditCommand::Verify { library }),
            ..
        } => {
            let checked = open(library)?.verify_audit().map_err(refused)?;
            match checked {
                Ok(count) => say(
                    console,
                    library.format,
                    &json!({"ok": true, "records": count}),
                    || format!("the audit log holds: {count} record(s), none edited or removed"),
                ),
                Err(broken) => {
                    let doc = json!({"ok": false, "seq": broken.seq, "reason": broken.reason});
                    say(console, library.format, &doc, || {
                        format!(
                            "the audit log is broken at record {}: {}",
                            broken.seq, broken.reason
                        )
                    })?;
                    Ok(Exit::No)
                }
            }
        }
        LibraryCommand::Audit {
            verify: None,
            id,
            since,
            library,
        } => {
            let since = since
                .as_deref()
                .map(|text| {
                    humantime::parse_rfc3339_weak(text).map_err(|e| {
                        CliError::Usage(format!("--since `{text}` is not an RFC 3339 time: {e}"))
                    })
                })
                .transpose()?;
            let records = open(library)?
                .audit(id.as_deref(), since)
                .map_err(refused)?;
            say(console, library.format, &json!(records), || {
                let mut table = table(&["#", "at", "who", "prompt", "version", "variables"]);
                for r in &records {
                    table.add_row(vec![
                        r.seq.to_string(),
                        r.at.clone(),
                        r.who.clone(),
                        r.prompt_id.clone(),
                        r.version.to_string(),
                        r.variables.to_string(),
                    ]);
                }
                table.to_string()
            })
        }
    }
}

/// `prompt add`: one file answers with its prompt, as it always has; several files or
/// a directory with the list of them, in the order added.
fn add(files: &[PathBuf], library: &LibraryArgs, console: &mut Console) -> Result<Exit, CliError> {
    let set = load_template_set(files)?;
    console.diagnostics(&set.warnings);
    let stored = open(library)?
        .add_many(&set.templates, &who(library))
        .map_err(refused)?;
    let added = |p: &StoredPrompt| format!("added `{}` version {}", p.id, p.version);
    match stored.as_slice() {
        [one] if files.len() == 1 && !files[0].is_dir() => {
            say(console, library.format, &summary(one), || added(one))
        }
        many => {
            let rows: Vec<Json> = many.iter().map(summary).collect();
            say(console, library.format, &Json::Array(rows), || {
                many.iter().map(added).collect::<Vec<_>>().join("\n")
            })
        }
    }
}

fn summary(p: &StoredPrompt) -> Json {
    json!({
        "id": p.id,
        "version": p.version,
        "latest_version": p.latest_version,
        "title": p.field("title"),
        "description": p.field("description"),
        "tags": p.tags(),
        "owner": p.field("owner"),
        "locked": p.locked,
        "rating": p.rating,
        "ratings": p.ratings,
        "content_hash": p.content_hash,
        "updated_by": p.author,
        "updated_at": p.created_at,
    })
}

fn show_text(p: &StoredPrompt) -> String {
    let rating = p.rating.map_or_else(
        || "not rated".to_string(),
        |r| format!("{r:.2} of 5 ({} rating(s))", p.ratings),
    );
    format!(
        "{id} v{version}{of}{locked}\ntitle:       {title}\ndescription: {description}\ntags:        {tags}\nowner:       {owner}\nrating:      {rating}\nhash:        {hash}\n\n{template}",
        id = p.id,
        version = p.version,
        of = if p.version == p.latest_version {
            String::new()
        } else {
            format!(" (latest is v{})", p.latest_version)
        },
        locked = if p.locked { " [locked]" } else { "" },
        title = p.field("title"),
        description = p.field("description"),
        tags = p.tags().join(", "),
        owner = p.field("owner"),
        hash = p.content_hash,
        template = p.field("template"),
    )
}

fn prompt_table(prompts: &[StoredPrompt], relevance: Option<&[u32]>) -> String {
    if prompts.is_empty() {
        return "the library holds no prompt".into();
    }
    let mut header = vec!["id", "version", "title", "tags", "rating", "locked"];
    if relevance.is_some() {
        header.push("relevance");
    }
    let mut table = table(&header);
    for (i, p) in prompts.iter().enumerate() {
        let mut row = vec![
            p.id.clone(),
            p.version.to_string(),
            p.field("title").to_string(),
            p.tags().join(", "),
            p.rating
                .map_or_else(|| "-".into(), |r| format!("{r:.2} ({})", p.ratings)),
            if p.locked {
                "yes".into()
            } else {
                String::new()
            },
        ];
        if let Some(scores) = relevance {
            row.push(scores[i].to_string());
        }
        table.add_row(row);
    }
    table.to_string()
}
