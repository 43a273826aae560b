//! `promptexec ui`'s library endpoints answer with the very JSON of the command each
//! stands for, on the same library: the page and scripts see what the command line
//! prints, because both come from one implementation.

use serde_json::Value as Json;

use crate::ui_server::{UiServer, example_library};
use crate::util::promptexec;

/// `promptexec ARGS --library LIBRARY --format json`, read as JSON.
fn command_json(library: &str, args: &[&str]) -> Json {
    promptexec()
        .args(args)
        .args(["--library", library, "--format", "json"])
        .run()
        .expect_code(0)
        .json()
}

#[test]
fn each_library_endpoint_answers_what_its_command_prints() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    // Evidence for the rank, the stats and the audit log (of an auditable prompt,
    // whose sensitive value is stored redacted).
    let audited = dir.path().join("audited.prompt");
    std::fs::write(
        &audited,
        "---\nname: audited\npromptkind.auditable: true\npromptkind.slots:\n  - name: who\n    \
         sensitive: true\n---\nHello {{who}}.\n",
    )
    .expect("write the prompt");
    let audited = audited.to_str().expect("utf-8");
    for args in [
        vec!["prompt", "add", audited],
        vec!["prompt", "rate", "tech-reply", "4"],
        vec!["prompt", "render", "audited", "--var", "who=Dana"],
    ] {
        promptexec()
            .args(&args)
            .args(["--library", &library])
            .run()
            .expect_code(0);
    }
    let server = UiServer::start(&["--library", &library]);
    let pairs: [(&str, &[&str]); 11] = [
        ("/api/prompts", &["prompt", "list"]),
        (
            "/api/prompts?sort=rank",
            &["prompt", "list", "--sort", "rank"],
        ),
        (
            "/api/prompts?sort=recent",
            &["prompt", "list", "--sort", "recent"],
        ),
        (
            "/api/prompts?tag=support&tag=billing",
            &["prompt", "list", "--tag", "support", "--tag", "billing"],
        ),
        ("/api/prompts?q=ticket", &["prompt", "search", "ticket"]),
        (
            "/api/prompts/billing-reply",
            &["prompt", "show", "billing-reply"],
        ),
        (
            "/api/prompts/billing-reply?version=1",
            &["prompt", "show", "billing-reply", "--version", "1"],
        ),
        (
            "/api/prompts/billing-reply/history",
            &["prompt", "history", "billing-reply"],
        ),
        (
            "/api/prompts/audited/audit",
            &["prompt", "audit", "audited"],
        ),
        ("/api/stats", &["prompt", "stats"]),
        (
            "/api/stats?id=tech-reply",
            &["prompt", "stats", "tech-reply"],
        ),
    ];
    for (path, args) in pairs {
        let reply = server.get(path);
        assert_eq!(reply.status, 200, "{path}: {reply:?}");
        assert_eq!(
            reply.json(),
            command_json(&library, args),
            "{path} ~ {args:?}"
        );
    }
    let ranked = server.get("/api/prompts?sort=rank").json();
    assert_eq!(
        ranked[0]["id"], "tech-reply",
        "the rated prompt leads: {ranked}"
    );
    let audit = server.get("/api/prompts/audited/audit").json();
    assert_eq!(audit[0]["variables"]["who"], "[redacted]", "{audit}");
    assert_eq!(
        audit.as_array().map(Vec::len),
        Some(1),
        "the render: {audit}"
    );

    let bad_sort = server.get("/api/prompts?sort=size");
    assert_eq!(bad_sort.status, 400);
    assert!(
        bad_sort.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("no sort `size`: rank, recent or id")),
        "{bad_sort:?}"
    );
    for unknown in [
        "/api/prompts/nope/audit",
        "/api/prompts/nope/history",
        "/api/prompts/nope/file",
    ] {
        let reply = server.get(unknown);
        assert_eq!(reply.status, 404, "{unknown}: {reply:?}");
        assert!(
            reply.json()["error"]
                .as_str()
                .is_some_and(|e| e.contains("`nope`"))
        );
    }
    let no_version = server.get("/api/prompts/billing-reply?version=9");
    assert_eq!(no_version.status, 404);
    assert!(
        no_version.body.contains("has no version 9"),
        "{no_version:?}"
    );
}
