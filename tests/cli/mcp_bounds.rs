//! MCP listings within their limits, end to end through the binary: a server that pages
//! its tools (tests/fixtures/mcp_bounds/paged_server.py) and never stops, or hands out
//! the same cursor again, makes `tools` and `run` end with an error naming the server
//! and the limit, long before the deadline and in bounded memory; a server that lists
//! exactly the limits is listed whole; a tool with an empty name is never offered.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::util::{Outcome, finish, fixtures, gone, mock_config_head, promptexec};

/// The deadline of every request to the server: far above what any listing here takes,
/// so the limits, not the deadline, end the endless ones.
const DEADLINE_MS: u64 = 60_000;
/// The limits promptexec documents.
const MAX_PAGES: usize = 1_000;
const MAX_ITEMS: usize = 100_000;

/// A folder with a config binding the paged server as `t` (run with `flags`), a pack
/// whose prompt offers every tool of it, and a mock script that calls nothing.
struct Paged {
    dir: tempfile::TempDir,
}

impl Paged {
    fn new(flags: &[&str]) -> Paged {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut args = vec![
            fixtures()
                .join("mcp_bounds/paged_server.py")
                .display()
                .to_string(),
            "--log".to_string(),
            dir.path().join("server.log").display().to_string(),
        ];
        args.extend(flags.iter().map(|f| f.to_string()));
        let config = format!(
            "{}  mcp_servers:\n    - name: t\n      command: python3\n      args: {}\n      timeout_ms: {DEADLINE_MS}\n",
            mock_config_head("mock.yaml"),
            json!(args),
        );
        let pack = json!({
            "id": "bounds", "name": "Bounds", "version": "1.0.0",
            "prompts": {"desk": {
                "id": "desk", "name": "Desk", "version": "1.0.0",
                "system_template": "You help at the desk.",
                "tools": ["mcp__t__*"]
            }}
        });
        let files = [
            ("runtimeconfig.yaml", config),
            ("pack.json", pack.to_string()),
            ("mock.yaml", "defaultResponse: Done.\n".to_string()),
        ];
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("fixture file");
        }
        Paged { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// promptexec with this folder's config and `args`, run to its end.
    #[track_caller]
    fn promptexec(&self, args: &[&str]) -> Outcome {
        promptexec()
            .in_dir(self.path())
            .args(["-c", "runtimeconfig.yaml"])
            .args(args)
            .run()
    }

    /// The same, with promptexec's peak resident memory in KiB, sampled from
    /// /proc while it runs.
    #[track_caller]
    fn promptexec_with_peak(&self, args: &[&str]) -> (Outcome, u64) {
        let child = promptexec()
            .in_dir(self.path())
            .args(["-c", "runtimeconfig.yaml"])
            .args(args)
            .spawn();
        let status = format!("/proc/{}/status", child.id());
        // The high-water mark only grows; it is gone once the process has exited.
        let sampler = std::thread::spawn(move || {
            let mut peak = 0;
            while let Some(kib) = high_water_mark(&status) {
                peak = peak.max(kib);
                std::thread::sleep(Duration::from_millis(2));
            }
            peak
        });
        let out = finish(child);
        (out, sampler.join().expect("sampler"))
    }

    /// The pages the server was asked for, as `WHAT NUMBER`.
    fn pages(&self) -> Vec<String> {
        self.log()
            .iter()
            .filter_map(|l| l.strip_prefix("page ").map(str::to_string))
            .collect()
    }

    fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.path().join("server.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Every server process started is gone.
    #[track_caller]
    fn nothing_left(&self) {
        let pids: Vec<i32> = self
            .log()
            .iter()
            .filter_map(|l| l.strip_prefix("started "))
            .map(|pid| pid.parse().expect("a pid"))
            .collect();
        assert!(!pids.is_empty(), "the server logged no start");
        for pid in pids {
            assert!(gone(pid), "server {pid} outlived promptexec");
        }
    }
}

/// `VmHWM` of /proc/PID/status, in KiB, while the process runs.
fn high_water_mark(status: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The page-limit error for `what`.
fn past_the_pages(what: &str) -> String {
    format!(
        "MCP server `t` could not list its {what}: it kept handing out a next page past {MAX_PAGES} pages, the most promptexec reads"
    )
}

#[test]
fn an_endless_next_cursor_ends_tools_at_the_page_limit_quickly_and_in_bounded_memory() {
    // 50 new tools on every page, and always another page.
    let paged = Paged::new(&["--pages", "0", "--per-page", "50"]);
    let (out, peak_kib) = paged.promptexec_with_peak(&["tools", "--format", "json"]);
    out.expect_code(3);
    out.stderr_has(&past_the_pages("tools"));
    assert!(
        out.elapsed < Duration::from_secs(20),
        "took {:?}, the deadline is {DEADLINE_MS} ms",
        out.elapsed
    );
    // Not one page past the limit was asked for.
    assert_eq!(paged.pages().len(), MAX_PAGES);
    // 50,000 small tools held before the limit ends it; without limits the memory
    // grew by the second until the deadline.
    assert!(peak_kib > 0, "no memory sample was taken");
    assert!(peak_kib < 256 * 1024, "peak resident memory {peak_kib} KiB");
    paged.nothing_left();
}

#[test]
fn an_endless_next_cursor_fails_the_run_as_the_servers_failure() {
    let paged = Paged::new(&["--pages", "0", "--per-page", "10"]);
    let out = paged.promptexec(&["run", "pack.json", "--message", "Go", "--format", "json"]);
    out.expect_code(3);
    out.stderr_has(&past_the_pages("tools"));
    assert!(
        out.elapsed < Duration::from_secs(20),
        "took {:?}",
        out.elapsed
    );
    let failure = &out.json_report()["extension_failures"][0];
    assert_eq!(failure["kind"], "mcp_server", "{failure:#}");
    assert_eq!(failure["name"], "t", "{failure:#}");
    assert_eq!(
        failure["reason"],
        format!(
            "could not list its tools: it kept handing out a next page past {MAX_PAGES} pages, the most promptexec reads"
        )
    );
    paged.nothing_left();
}

#[test]
fn a_cursor_handed_out_again_ends_the_listing_at_once() {
    let paged = Paged::new(&["--pages", "0", "--repeat-cursor"]);
    let out = paged.promptexec(&["tools"]);
    out.expect_code(3);
    out.stderr_has(
        "MCP server `t` could not list its tools: page 2 handed out the same next-page cursor as page 1, so the listing would never end",
    );
    assert_eq!(paged.pages(), ["tools 1", "tools 2"]);
    paged.nothing_left();
}

#[test]
fn a_server_listing_exactly_the_limits_is_listed_whole() {
    // 1,000 pages of 100 tools: both limits, reached and not passed.
    let per_page = (MAX_ITEMS / MAX_PAGES).to_string();
    let paged = Paged::new(&["--pages", "1000", "--per-page", &per_page]);
    let out = paged.promptexec(&["tools", "--format", "json"]);
    out.expect_code(0);
    let listing = out.json();
    let tools = listing["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), MAX_ITEMS);
    assert_eq!(tools[0]["name"], "mcp__t__p1_0");
    assert_eq!(tools[MAX_ITEMS - 1]["name"], "mcp__t__p1000_99");
    assert_eq!(
        paged
            .pages()
            .iter()
            .filter(|p| p.starts_with("tools"))
            .count(),
        MAX_PAGES
    );
    paged.nothing_left();
}

#[test]
fn one_page_or_one_tool_past_the_limits_is_an_error_naming_the_limit() {
    let pages = Paged::new(&["--pages", "1001", "--per-page", "0"]);
    let out = pages.promptexec(&["tools"]);
    out.expect_code(3);
    out.stderr_has(&past_the_pages("tools"));

    let over = (MAX_ITEMS + 1).to_string();
    let items = Paged::new(&["--pages", "1", "--per-page", &over]);
    let out = items.promptexec(&["tools"]);
    out.expect_code(3);
    out.stderr_has(&format!(
        "MCP server `t` could not list its tools: it listed more than {MAX_ITEMS} tools, the most promptexec takes"
    ));
    items.nothing_left();
}

/// A server paging `what` without end: the listing stops at the limit, saying so.
fn listed_within_the_limit(what: &str) {
    let paged = Paged::new(&["--paged", what, "--pages", "0"]);
    let out = paged.promptexec(&["tools"]);
    out.expect_code(3);
    out.stderr_has(&past_the_pages(what));
    let asked = paged.pages();
    let of_what = asked.iter().filter(|p| p.starts_with(what)).count();
    assert_eq!(of_what, MAX_PAGES, "{what}");
    paged.nothing_left();
}

/// One test each, and one that within the limits every page is listed.
mod prompts_and_resources_are_listed_within_the_same_limits {
    #[test]
    fn prompts() {
        super::listed_within_the_limit("prompts");
    }

    #[test]
    fn resources() {
        super::listed_within_the_limit("resources");
    }
}

#[test]
fn within_the_limits_every_page_of_resources_is_listed() {
    let paged = Paged::new(&["--paged", "resources", "--pages", "3", "--per-page", "2"]);
    let out = paged.promptexec(&["tools", "--format", "json"]);
    out.expect_code(0);
    let listing = out.json();
    let uris: Vec<&Json> = listing["mcp_servers"][0]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| &r["uri"])
        .collect();
    assert_eq!(uris.len(), 6, "{listing:#}");
    assert_eq!(uris[5], "file:///p3_1");
}

#[test]
fn a_tool_with_an_empty_name_is_never_offered_to_the_model() {
    let paged = Paged::new(&["--extra-tool", ""]);
    let listed = paged.promptexec(&["tools", "--format", "json"]);
    listed.expect_code(3);
    let listing = listed.json();
    let names: Vec<&Json> = listing["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(names, [&json!("mcp__t__p1_0")]);
    assert_eq!(
        listing["mcp_servers"][0]["rejected"][0]["reason"],
        "its name is empty; model APIs need at least one character"
    );

    let out = paged.promptexec(&[
        "run",
        "pack.json",
        "--message",
        "Go",
        "--format",
        "json",
        "--record",
        "session.json",
    ]);
    out.expect_code(3);
    let failure = &out.json_report()["extension_failures"][0];
    assert_eq!(
        failure["reason"],
        "lists tool ``, which cannot be offered: its name is empty; model APIs need at least one character"
    );
    let recording: Json = serde_json::from_str(
        &std::fs::read_to_string(paged.path().join("session.json")).expect("recording"),
    )
    .expect("JSON");
    assert_eq!(
        recording["sessions"][0]["exchanges"][0]["match"]["tools"],
        json!(["mcp__t__p1_0"]),
        "{recording:#}"
    );
    paged.nothing_left();
}
