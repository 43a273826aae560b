//! `promptexec ui` over HTTP: who may drive it (the token, the origin, the host),
//! where it listens, how it stops, and what its endpoints answer: the same as the
//! commands they stand for, read back through the command line.

use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::Signal;
use serde_json::{Value as Json, json};

use crate::ui_server::{UiServer, example_library};
use crate::util::{promptexec, repo_root, wait_for};

fn start_on(library: &str, extra: &[&str]) -> UiServer {
    let mut args = vec!["--library", library, "--agent", "tester"];
    args.extend_from_slice(extra);
    UiServer::start(&args)
}

#[test]
fn requests_without_the_token_or_from_another_origin_or_host_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    let server = start_on(&library, &[]);
    let own_origin = format!("http://{}", server.authority);

    let bare = server.send("GET", "/api/prompts", &[], None, false);
    assert_eq!(bare.status, 401, "{bare:?}");
    assert!(
        bare.json()["error"]
            .as_str()
            .expect("error")
            .contains("token")
    );
    let page = server.send("GET", "/", &[], None, false);
    assert_eq!(page.status, 401, "the page itself needs the token");
    let wrong = server.send("GET", "/api/prompts?token=0123abcd", &[], None, false);
    assert_eq!(wrong.status, 401);

    let by_query = format!("/api/prompts?token={}", server.token);
    assert_eq!(server.send("GET", &by_query, &[], None, false).status, 200);
    let listed = server.get("/api/prompts");
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json().as_array().expect("a list").len(), 4);

    let refused = [
        vec![("Origin", "http://evil.example")],
        vec![("Origin", "http://127.0.0.1:1")],
        vec![("Host", "evil.example")],
        vec![("Sec-Fetch-Site", "cross-site")],
        vec![("Sec-Fetch-Site", "same-site")],
    ];
    for headers in &refused {
        let reply = server.send("GET", "/api/prompts", headers, None, true);
        assert_eq!(reply.status, 403, "{headers:?}: {reply:?}");
        assert!(reply.json()["error"].is_string());
        let save = server.send(
            "POST",
            "/api/prompts/signature",
            headers,
            Some(&json!({"text": "---\nname: signature\n---\nhi"})),
            true,
        );
        assert_eq!(save.status, 403, "a write from {headers:?} is refused");
    }
    let same_origin = [
        ("Origin", own_origin.as_str()),
        ("Sec-Fetch-Site", "same-origin"),
    ];
    assert_eq!(
        server
            .send("GET", "/api/prompts", &same_origin, None, true)
            .status,
        200
    );

    let page = server.get("/");
    assert_eq!(page.status, 200);
    let policy = page.header("content-security-policy").expect("a policy");
    assert!(policy.starts_with("default-src 'none';"), "{policy}");
    assert!(policy.contains("connect-src 'self'"), "{policy}");
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(page.body.contains("<main id=\"app\">"));
    assert!(
        !page.body.contains("src=\"http") && !page.body.contains("href=\"http"),
        "the page loads nothing from elsewhere"
    );
}

/// The local address of the listening TCP socket on `port`, from /proc/net/tcp
/// (hex, as the kernel writes it: `0100007F` is 127.0.0.1).
fn listening_address(port: u16) -> Option<String> {
    let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (address, hex_port) = fields.get(1)?.split_once(':')?;
        let listening = fields.get(3) == Some(&"0A");
        (listening && u16::from_str_radix(hex_port, 16).ok() == Some(port))
            .then(|| address.to_string())
    })
}

fn port_of(server: &UiServer) -> u16 {
    let (_, port) = server.authority.rsplit_once(':').expect("HOST:PORT");
    port.parse().expect("a port")
}

#[test]
fn it_listens_on_loopback_only_and_exits_0_on_sigterm_and_sigint() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let mut server = start_on(&library, &[]);
        assert!(
            server.url.starts_with("http://127.0.0.1:"),
            "{}",
            server.url
        );
        assert_eq!(
            listening_address(port_of(&server)).as_deref(),
            Some("0100007F"),
            "bound to 127.0.0.1 and nothing else"
        );
        assert_eq!(server.get("/api/stats").status, 200);
        // A client that never finishes its request does not hold the server open.
        let mut stalled = TcpStream::connect(&server.authority).expect("connect");
        stalled
            .write_all(b"GET /api/stats HTTP/1.1\r\nHost: ")
            .expect("half a request");
        let asked = Instant::now();
        let status = server.stop(signal);
        assert!(
            asked.elapsed() < Duration::from_secs(10),
            "{:?}",
            asked.elapsed()
        );
        assert_eq!(status.code(), Some(0), "{signal}: {status}");
        assert!(
            listening_address(port_of(&server)).is_none(),
            "the port is free again"
        );
    }
}

#[test]
fn another_address_is_bound_only_when_named_and_then_with_a_warning() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    let mut server = start_on(&library, &["--listen", "0.0.0.0:0"]);
    assert_eq!(
        listening_address(port_of(&server)).as_deref(),
        Some("00000000")
    );
    // Named with --listen, the server answers under any host name, still with the token.
    let renamed = [("Host", "build-box:1234")];
    assert_eq!(
        server
            .send("GET", "/api/prompts", &renamed, None, true)
            .status,
        200
    );
    assert_eq!(
        server
            .send("GET", "/api/prompts", &renamed, None, false)
            .status,
        401
    );
    assert_eq!(server.stop(Signal::SIGTERM).code(), Some(0));
    let stderr = server.stderr_text();
    assert!(
        stderr.contains("warning: listening on 0.0.0.0:"),
        "{stderr}"
    );

    promptexec()
        .args([
            "ui",
            "--library",
            &library,
            "--port",
            "1",
            "--listen",
            "127.0.0.1:0",
        ])
        .run()
        .expect_code(2)
        .stderr_has("cannot be used with");
    let taken = start_on(&library, &[]);
    promptexec()
        .args(["ui", "--library", &library, "--listen", &taken.authority])
        .run()
        .expect_code(2)
        .stderr_has(&format!("cannot listen on {}", taken.authority));
    promptexec()
        .args([
            "ui",
            "--library",
            &library,
            "--reports",
            "/nonexistent/reports",
        ])
        .run()
        .expect_code(2)
        .stderr_has("the reports folder /nonexistent/reports cannot be read");
}

/// The `.prompt` text of prompt `id`, as the editor loads it.
fn file_text(server: &UiServer, id: &str) -> String {
    let reply = server.get(&format!("/api/prompts/{id}/file"));
    assert_eq!(reply.status, 200, "{reply:?}");
    reply.json()["text"].as_str().expect("text").to_owned()
}

fn history(library: &str, id: &str) -> Json {
    promptexec()
        .args([
            "prompt",
            "history",
            id,
            "--library",
            library,
            "--format",
            "json",
        ])
        .run()
        .expect_code(0)
        .json()
}

#[test]
fn saving_makes_the_next_version_the_command_line_sees_and_a_locked_prompt_refuses() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    let server = start_on(&library, &[]);

    let text = file_text(&server, "tech-reply");
    let edited = text.replace("Suggest the first", "Suggest the safest first");
    assert_ne!(edited, text, "the edit changes the text");
    let saved = server.post("/api/prompts/tech-reply", &json!({"text": edited}));
    assert_eq!(saved.status, 200, "{saved:?}");
    assert_eq!(saved.json()["version"], 2);
    assert_eq!(saved.json()["unchanged"], false);
    let versions = history(&library, "tech-reply");
    assert_eq!(versions.as_array().expect("versions").len(), 2);
    assert_eq!(versions[1]["version"], 2);
    assert_eq!(versions[1]["author"], "tester");
    assert_eq!(
        file_text(&server, "tech-reply"),
        edited,
        "the saved text reads back"
    );

    let again = server.post("/api/prompts/tech-reply", &json!({"text": edited}));
    assert_eq!(again.json()["unchanged"], true);
    assert_eq!(
        history(&library, "tech-reply").as_array().map(Vec::len),
        Some(2)
    );

    let diff = server
        .get("/api/prompts/tech-reply/diff?from=1&to=2")
        .json();
    let changed: Vec<&str> = diff["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .filter(|l| l["op"] != "same")
        .map(|l| l["op"].as_str().expect("op"))
        .collect();
    assert_eq!(changed, ["removed", "added"], "{diff}");

    promptexec()
        .args(["prompt", "lock", "billing-reply", "--library", &library])
        .run()
        .expect_code(0);
    let locked_text = file_text(&server, "billing-reply").replace("friendly", "formal");
    let refused = server.post("/api/prompts/billing-reply", &json!({"text": locked_text}));
    assert_eq!(refused.status, 409, "{refused:?}");
    assert!(
        refused.json()["error"]
            .as_str()
            .expect("error")
            .contains("`billing-reply` is locked"),
        "{}",
        refused.body
    );
    assert_eq!(
        history(&library, "billing-reply").as_array().map(Vec::len),
        Some(1)
    );

    let renamed = server.post(
        "/api/prompts/signature",
        &json!({"text": "---\nname: other\n---\nhi"}),
    );
    assert_eq!(renamed.status, 400, "{renamed:?}");
    let broken = server.post(
        "/api/prompts/signature",
        &json!({"text": "---\nname: signature\n---\n{{#if x}}open"}),
    );
    assert_eq!(broken.status, 422, "{broken:?}");
    let error = &broken.json()["errors"][0];
    assert_eq!(
        (error["line"].as_u64(), error["col"].as_u64()),
        (Some(4), Some(1))
    );
    let missing = server.get("/api/prompts/nope");
    assert_eq!(missing.status, 404);
    assert!(
        missing.json()["error"]
            .as_str()
            .expect("error")
            .contains("nope")
    );
    let audit = server.get("/api/prompts/signature/audit");
    assert_eq!(audit.status, 200);
}

#[test]
fn the_preview_renders_with_library_partials_and_places_errors_as_prompt_render_does() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    let server = start_on(&library, &[]);
    let text = file_text(&server, "billing-reply");

    let preview = server
        .post(
            "/api/preview",
            &json!({"id": "billing-reply", "text": text, "inputs": {"ticket": "charged twice"}}),
        )
        .json();
    assert_eq!(preview["ok"], true, "{preview}");
    let messages = preview["messages"].as_array().expect("messages");
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["text"]
            .as_str()
            .expect("text")
            .contains("Answer in a friendly tone"),
        "the default applies: {preview}"
    );
    assert_eq!(messages[1]["role"], "user");
    assert!(
        messages[1]["text"]
            .as_str()
            .expect("text")
            .contains("charged twice")
    );

    // A misspelt variable: placed where `prompt render --file` places it.
    let misspelt = text.replace("{{ticket}}", "{{tickt}}");
    let preview = server
        .post(
            "/api/preview",
            &json!({"id": "billing-reply", "text": misspelt, "inputs": {}}),
        )
        .json();
    assert_eq!(preview["ok"], false);
    let problems = preview["errors"].as_array().expect("errors");
    assert_eq!(
        problems[0]["severity"], "warning",
        "in the command line's order: {preview}"
    );
    let error = problems
        .iter()
        .find(|p| p["severity"] == "error")
        .expect("an error");
    let file = dir.path().join("billing-reply.prompt");
    std::fs::write(&file, &misspelt).expect("write the draft");
    let rendered = promptexec()
        .in_dir(dir.path())
        .args(["prompt", "render", "--file", "billing-reply.prompt"])
        .run();
    rendered.expect_code(2);
    let placed = format!(
        "billing-reply.prompt:{}:{}: {}",
        error["line"],
        error["col"],
        error["message"].as_str().expect("message")
    );
    assert!(
        rendered.stderr.contains(&placed),
        "{placed}\n{}",
        rendered.stderr
    );
    let rules: Vec<&str> = preview["lint"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule"))
        .collect();
    assert!(
        rules.contains(&"PL006"),
        "lint names the undeclared variable: {rules:?}"
    );

    let draft = server
        .post(
            "/api/prompts/billing-reply/diff",
            &json!({"text": misspelt}),
        )
        .json();
    assert_eq!(draft["to"], Json::Null);
    assert!(
        draft["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .any(|l| l["op"] == "added" && l["text"].as_str().is_some_and(|t| t.contains("tickt")))
    );
    let bad_body = server.send("POST", "/api/preview", &[], Some(&json!({"txt": 1})), true);
    assert_eq!(bad_body.status, 400, "{bad_body:?}");
}

/// Sets a file's modification time `age` before now.
fn age(path: &Path, age: Duration) {
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open");
    file.set_modified(SystemTime::now() - age)
        .expect("set the time");
}

#[test]
fn reports_are_listed_shown_compared_and_traced_and_nothing_outside_the_folder_is_served() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    let reports = dir.path().join("reports");
    std::fs::create_dir_all(reports.join("nightly")).expect("mkdir");
    let fixtures = repo_root().join("tests/fixtures/diff/reports");
    std::fs::copy(fixtures.join("base.json"), reports.join("base.json")).expect("copy");
    std::fs::copy(
        fixtures.join("head.json"),
        reports.join("nightly/head.json"),
    )
    .expect("copy");
    std::fs::write(reports.join("notes.json"), "{\"not\": \"a report\"}").expect("write");
    age(&reports.join("base.json"), Duration::from_secs(7200));
    age(&reports.join("notes.json"), Duration::from_secs(3600));
    std::os::unix::fs::symlink(dir.path().join("lib.db"), reports.join("escape.json"))
        .expect("symlink");
    let reports_arg = reports.to_str().expect("utf-8");
    let server = start_on(&library, &["--reports", reports_arg]);

    let listed = server.get("/api/reports").json();
    let paths: Vec<&str> = listed["reports"]
        .as_array()
        .expect("reports")
        .iter()
        .map(|r| r["path"].as_str().expect("path"))
        .collect();
    assert_eq!(
        paths[..3],
        ["nightly/head.json", "notes.json", "base.json"],
        "{listed}"
    );
    assert_eq!(listed["reports"][0]["kind"], "suite");
    assert_eq!(listed["reports"][1]["error"], "not a promptexec report");

    let page = server.get("/reports/view?path=base.json");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<body data-kind=\"suite\">"));
    assert_eq!(page.header("x-frame-options"), Some("SAMEORIGIN"));

    let diff = server.get("/api/reports/diff?base=base.json&head=nightly/head.json");
    assert_eq!(diff.status, 200, "{diff:?}");
    let by_command = promptexec()
        .in_dir(&reports)
        .args(["diff", "base.json", "nightly/head.json", "--format", "json"])
        .run()
        .expect_code(0)
        .json();
    assert_eq!(
        diff.json(),
        by_command,
        "the endpoint answers what `diff` prints"
    );
    let diff_page = server.get("/reports/diff?base=base.json&head=nightly/head.json");
    assert!(diff_page.body.contains("<body data-kind=\"diff\">"));

    let changed = by_command["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["status"] == "regressed" || i["status"] == "fixed")
        .expect("an item changed between the reports");
    let id = changed["id"].as_str().expect("id");
    let history = server.get(&format!("/api/reports/history?id={id}")).json();
    let reports_seen: Vec<&str> = history["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|p| p["report"].as_str().expect("report"))
        .collect();
    assert_eq!(
        reports_seen,
        ["base.json", "nightly/head.json"],
        "oldest first"
    );
    assert_eq!(
        history["flaky"], true,
        "it passed once and failed once: {history}"
    );
    let all = server.get("/api/reports/history").json();
    assert!(all["items"].as_array().expect("items").len() >= 4);

    for outside in [
        "../lib.db",
        "escape.json",
        "/etc/passwd",
        "nightly/../../lib.db",
    ] {
        let reply = server.get(&format!("/reports/view?path={outside}"));
        assert_eq!(reply.status, 404, "{outside}: {reply:?}");
    }
    let none = start_on(&library, &[]);
    assert_eq!(none.get("/api/reports").json()["dir"], Json::Null);
    assert_eq!(none.get("/reports/view?path=base.json").status, 404);
}

#[test]
fn open_hands_the_address_to_the_browser_and_a_failing_one_is_a_warning() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = example_library(dir.path());
    let opened = dir.path().join("opened");
    let browser = dir.path().join("browser.sh");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > {}\n", opened.display()),
    )
    .expect("write the browser");
    std::fs::set_permissions(
        &browser,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let browser_arg = browser.to_str().expect("utf-8");
    let mut server = UiServer::start_with_env(
        &["--library", &library, "--open"],
        &[("BROWSER", browser_arg)],
    );
    wait_for("the browser to be given the address", || opened.exists());
    assert_eq!(std::fs::read_to_string(&opened).expect("read"), server.url);
    assert_eq!(server.stop(Signal::SIGTERM).code(), Some(0));

    let mut server = UiServer::start_with_env(
        &["--library", &library, "--open"],
        &[("BROWSER", "/nonexistent/browser")],
    );
    assert_eq!(server.get("/api/prompts").status, 200, "it serves anyway");
    assert_eq!(server.stop(Signal::SIGTERM).code(), Some(0));
    let stderr = server.stderr_text();
    assert!(
        stderr.contains("warning: cannot open a browser with `/nonexistent/browser`"),
        "{stderr}"
    );
}
