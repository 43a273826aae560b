//! What the prompt library commands show (`prompt add|list|search|show|history|lock|
//! unlock|rm|rate|audit`): each answer as a record, written as JSON or as text.

use serde::Serialize;
use serde_json::{Value as Json, json};

use crate::library::{
    Added, AuditBreak, AuditRecord, AuditVerified, SearchHit, StoredPrompt, VersionInfo,
};

use super::table;

mod stats;

pub(crate) use stats::StatsAnswer;

/// One library command's answer.
#[derive(Debug, Clone)]
pub(crate) enum LibraryAnswer<'a> {
    /// `add`: one prompt answers with itself, several (or a folder) with the list;
    /// each says whether it made a new version.
    Added {
        prompts: &'a [Added],
        one: bool,
    },
    Listed(&'a [StoredPrompt]),
    /// `list --sort rank`: each prompt with its latest version's rank score.
    Ranked(&'a [(StoredPrompt, Option<f64>)]),
    Found {
        query: &'a str,
        hits: &'a [SearchHit],
    },
    Shown(&'a StoredPrompt),
    History(&'a [VersionInfo]),
    Locked {
        id: &'a str,
        locked: bool,
    },
    Removed {
        id: &'a str,
    },
    /// `rate`: the score given, and the version rated with its ratings.
    Rated {
        id: &'a str,
        score: f64,
        prompt: &'a StoredPrompt,
    },
    /// `audit verify`: how many records hold and whether the head is signed, or
    /// where the chain breaks.
    Verified(Result<&'a AuditVerified, &'a AuditBreak>),
    Audit(&'a [AuditRecord]),
}

/// A prompt as `list`, `search`, `show` and `rate` report it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PromptSummary<'a> {
    pub id: &'a str,
    pub version: u64,
    pub latest_version: u64,
    pub title: &'a str,
    pub description: &'a str,
    pub tags: Vec<String>,
    pub owner: &'a str,
    pub locked: bool,
    pub rating: Option<f64>,
    pub ratings: u64,
    pub content_hash: &'a str,
    pub updated_by: &'a str,
    pub updated_at: &'a str,
    /// Only in a search's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<u32>,
    /// Only in `show`'s answer: the template itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<&'a Json>,
    /// Only in `add`'s answer: whether the template was already the latest version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<bool>,
}

impl<'a> PromptSummary<'a> {
    pub(crate) fn of(p: &'a StoredPrompt) -> Self {
        Self {
            id: &p.id,
            version: p.version,
            latest_version: p.latest_version,
            title: p.field("title"),
            description: p.field("description"),
            tags: p.tags(),
            owner: p.field("owner"),
            locked: p.locked,
            rating: p.rating,
            ratings: p.ratings,
            content_hash: &p.content_hash,
            updated_by: &p.author,
            updated_at: &p.created_at,
            relevance: None,
            content: None,
            unchanged: None,
        }
    }
}

/// A command's answer, as JSON or as the text people read.
pub(crate) trait Answer {
    /// Pretty JSON; the shapes are part of the command line contract.
    fn json(&self) -> String;
    /// The text people read.
    fn human(&self) -> String;
}

impl Answer for LibraryAnswer<'_> {
    fn json(&self) -> String {
        let summaries = |prompts: &[StoredPrompt]| -> Json {
            json!(prompts.iter().map(PromptSummary::of).collect::<Vec<_>>())
        };
        let added = |a: &'_ Added| {
            json!(PromptSummary {
                unchanged: Some(!a.changed),
                ..PromptSummary::of(&a.prompt)
            })
        };
        let doc = match self {
            LibraryAnswer::Added {
                prompts: [one],
                one: true,
            } => added(one),
            LibraryAnswer::Added { prompts, .. } => {
                json!(prompts.iter().map(added).collect::<Vec<_>>())
            }
            LibraryAnswer::Listed(prompts) => summaries(prompts),
            LibraryAnswer::Ranked(ranked) => json!(
                ranked
                    .iter()
                    .map(|(p, score)| {
                        let mut summary = json!(PromptSummary::of(p));
                        summary["rank_score"] = json!(score);
                        summary
                    })
                    .collect::<Vec<_>>()
            ),
            LibraryAnswer::Found { hits, .. } => json!(
                hits.iter()
                    .map(|hit| PromptSummary {
                        relevance: Some(hit.relevance),
                        ..PromptSummary::of(&hit.prompt)
                    })
                    .collect::<Vec<_>>()
            ),
            LibraryAnswer::Shown(prompt) => json!(PromptSummary {
                content: Some(&prompt.content),
                ..PromptSummary::of(prompt)
            }),
            LibraryAnswer::History(versions) => json!(versions),
            LibraryAnswer::Locked { id, locked } => json!({"id": id, "locked": locked}),
            LibraryAnswer::Removed { id } => json!({"id": id, "removed": true}),
            LibraryAnswer::Rated { prompt, .. } => json!(PromptSummary::of(prompt)),
            LibraryAnswer::Verified(Ok(held)) => {
                json!({"ok": true, "records": held.records, "head_signed": held.head_signed})
            }
            LibraryAnswer::Verified(Err(broken)) => {
                json!({"ok": false, "seq": broken.seq, "reason": broken.reason})
            }
            LibraryAnswer::Audit(records) => json!(records),
        };
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    }

    fn human(&self) -> String {
        match self {
            LibraryAnswer::Added { prompts, .. } => prompts
                .iter()
                .map(|a| {
                    let p = &a.prompt;
                    if a.changed {
                        format!("added `{}` version {}", p.id, p.version)
                    } else {
                        format!("unchanged `{}` version {}", p.id, p.version)
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
            LibraryAnswer::Listed(prompts) => prompt_table(prompts.iter(), None),
            LibraryAnswer::Ranked(ranked) => {
                let scores: Vec<String> = ranked
                    .iter()
                    .map(|(_, score)| score.map_or_else(|| "-".into(), |s| format!("{s:.3}")))
                    .collect();
                prompt_table(ranked.iter().map(|(p, _)| p), Some(("score", &scores)))
            }
            LibraryAnswer::Found { query, hits: [] } => {
                format!("no prompt matches `{query}`")
            }
            LibraryAnswer::Found { hits, .. } => {
                let scores: Vec<String> =
                    hits.iter().map(|hit| hit.relevance.to_string()).collect();
                prompt_table(
                    hits.iter().map(|hit| &hit.prompt),
                    Some(("relevance", &scores)),
                )
            }
            LibraryAnswer::Shown(prompt) => show_text(prompt),
            LibraryAnswer::History(versions) => history_table(versions),
            LibraryAnswer::Locked { id, locked } => {
                format!("`{id}` is {}", if *locked { "locked" } else { "unlocked" })
            }
            LibraryAnswer::Removed { id } => format!("removed `{id}`"),
            LibraryAnswer::Rated { id, score, prompt } => format!(
                "rated `{id}` version {}: {score}; average {:.2} of {} rating(s)",
                prompt.version,
                prompt.rating.unwrap_or_default(),
                prompt.ratings
            ),
            LibraryAnswer::Verified(Ok(held)) => {
                let mut text = format!(
                    "the audit log holds: {} record(s), none edited or removed",
                    held.records
                );
                if held.records > 0 && !held.head_signed {
                    text.push_str(
                        "\nnote: head not signed (the library's next audit record signs it)",
                    );
                }
                text
            }
            LibraryAnswer::Verified(Err(broken)) => format!(
                "the audit log is broken at record {}: {}",
                broken.seq, broken.reason
            ),
            LibraryAnswer::Audit(records) => audit_table(records),
        }
    }
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

/// The prompts as a table, with one more column (its name and cells) if given.
fn prompt_table<'p>(
    prompts: impl ExactSizeIterator<Item = &'p StoredPrompt>,
    extra: Option<(&str, &[String])>,
) -> String {
    if prompts.len() == 0 {
        return "the library holds no prompt".into();
    }
    let mut header = vec!["id", "version", "title", "tags", "rating", "locked"];
    if let Some((name, _)) = extra {
        header.push(name);
    }
    let mut table = table(&header);
    for (i, p) in prompts.enumerate() {
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
        if let Some(cell) = extra.and_then(|(_, cells)| cells.get(i)) {
            row.push(cell.clone());
        }
        table.add_row(row);
    }
    table.to_string()
}

fn history_table(versions: &[VersionInfo]) -> String {
    let mut table = table(&["version", "hash", "by", "at"]);
    for v in versions {
        table.add_row(vec![
            v.version.to_string(),
            v.content_hash.clone(),
            v.author.clone(),
            v.created_at.clone(),
        ]);
    }
    table.to_string()
}

fn audit_table(records: &[AuditRecord]) -> String {
    let mut table = table(&[
        "#",
        "at",
        "who",
        "prompt",
        "version",
        "content",
        "use",
        "result",
        "variables",
    ]);
    for r in records {
        table.add_row(vec![
            r.seq.to_string(),
            r.at.clone(),
            r.who.clone(),
            r.prompt_id.clone(),
            r.version.to_string(),
            r.content_hash
                .as_deref()
                .map_or_else(|| "-".into(), short_hash),
            r.purpose.clone().unwrap_or_else(|| "-".into()),
            outcome(r),
            r.variables.to_string(),
        ]);
    }
    table.to_string()
}

/// A content hash as a table shows it: its first 12 hex digits.
fn short_hash(hash: &str) -> String {
    let hex = hash.strip_prefix("sha256:").unwrap_or(hash);
    hex.chars().take(12).collect()
}

/// A use's result in a few words: whether it succeeded and how many checks passed.
fn outcome(r: &AuditRecord) -> String {
    let success = r.success.map(|ok| if ok { "ok" } else { "failed" });
    let checks = r.checks.map(|c| format!("{}/{} checks", c.passed, c.total));
    match (success, checks) {
        (Some(s), Some(c)) => format!("{s}, {c}"),
        (Some(s), None) => s.into(),
        (None, Some(c)) => c,
        (None, None) => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(id: &str, version: u64, rating: Option<f64>) -> StoredPrompt {
        StoredPrompt {
            id: id.into(),
            version,
            latest_version: 3,
            content: json!({
                "title": "Order status",
                "description": "Says where an order is",
                "tags": ["orders", "support"],
                "owner": "team:support",
                "template": "Order {{order_id}} is {{status}}.",
            }),
            content_hash: "9f2c".into(),
            locked: version == 3,
            author: "user:ana".into(),
            created_at: "2026-11-28T10:00:00Z".into(),
            rating,
            ratings: u64::from(rating.is_some()) * 2,
        }
    }

    #[test]
    fn a_listing_and_a_search_render_as_tables_and_json() {
        let prompts = [
            prompt("order-status", 3, Some(4.5)),
            prompt("refund", 1, None),
        ];
        let listed = LibraryAnswer::Listed(&prompts);
        insta::assert_snapshot!("library_list_human", listed.human());
        insta::assert_snapshot!("library_list_json", listed.json());
        let hits = [SearchHit {
            prompt: prompts[1].clone(),
            relevance: 100,
        }];
        let found = LibraryAnswer::Found {
            query: "refund",
            hits: &hits,
        };
        insta::assert_snapshot!("library_search_human", found.human());
        let json = found.json();
        assert!(
            json.contains("\"updated_at\": \"2026-11-28T10:00:00Z\",\n    \"relevance\": 100\n"),
            "{json}"
        );
        let none = LibraryAnswer::Found {
            query: "nothing",
            hits: &[],
        };
        assert_eq!(none.human(), "no prompt matches `nothing`");
        assert_eq!(none.json(), "[]");
        assert_eq!(
            LibraryAnswer::Listed(&[]).human(),
            "the library holds no prompt"
        );
    }

    #[test]
    fn show_adds_the_template_and_an_older_version_names_the_latest() {
        let shown = prompt("order-status", 2, None);
        let answer = LibraryAnswer::Shown(&shown);
        insta::assert_snapshot!("library_show_human", answer.human());
        let json = answer.json();
        assert!(
            json.ends_with("\"template\": \"Order {{order_id}} is {{status}}.\"\n  }\n}"),
            "{json}"
        );
    }

    #[test]
    fn small_answers_read_as_one_line() {
        let rated = prompt("order-status", 3, Some(4.0));
        let cases = [
            (
                LibraryAnswer::Locked {
                    id: "a",
                    locked: true,
                },
                "`a` is locked",
                "{\n  \"id\": \"a\",\n  \"locked\": true\n}",
            ),
            (
                LibraryAnswer::Removed { id: "a" },
                "removed `a`",
                "{\n  \"id\": \"a\",\n  \"removed\": true\n}",
            ),
            (
                LibraryAnswer::Verified(Ok(&AuditVerified {
                    records: 7,
                    head_signed: true,
                })),
                "the audit log holds: 7 record(s), none edited or removed",
                "{\n  \"ok\": true,\n  \"records\": 7,\n  \"head_signed\": true\n}",
            ),
            (
                LibraryAnswer::Verified(Ok(&AuditVerified {
                    records: 2,
                    head_signed: false,
                })),
                "the audit log holds: 2 record(s), none edited or removed\nnote: head not signed (the library's next audit record signs it)",
                "{\n  \"ok\": true,\n  \"records\": 2,\n  \"head_signed\": false\n}",
            ),
        ];
        for (answer, human, json) in cases {
            assert_eq!(answer.human(), human);
            assert_eq!(answer.json(), json);
        }
        let broken = AuditBreak {
            seq: 4,
            reason: "its hash does not match".into(),
        };
        assert_eq!(
            LibraryAnswer::Verified(Err(&broken)).human(),
            "the audit log is broken at record 4: its hash does not match"
        );
        let answer = LibraryAnswer::Rated {
            id: "order-status",
            score: 4.0,
            prompt: &rated,
        };
        assert_eq!(
            answer.human(),
            "rated `order-status` version 3: 4; average 4.00 of 2 rating(s)"
        );
        let added = [
            Added {
                prompt: prompt("a", 1, None),
                changed: true,
            },
            Added {
                prompt: prompt("b", 1, None),
                changed: false,
            },
        ];
        let answer = LibraryAnswer::Added {
            prompts: &added,
            one: false,
        };
        assert_eq!(
            answer.human(),
            "added `a` version 1\nunchanged `b` version 1"
        );
        assert!(answer.json().starts_with("[\n  {\n    \"id\": \"a\""));
        assert!(answer.json().contains("\"unchanged\": true"));
        let one = LibraryAnswer::Added {
            prompts: &added[..1],
            one: true,
        };
        assert!(one.json().starts_with("{\n  \"id\": \"a\""));
    }
}
