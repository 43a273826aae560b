//! The one set of snapshot filters every snapshot of the suite goes through.

use super::repo_root;

/// The one set of snapshot filters: what varies between runs (the checkout's path,
/// temporary folders, times, durations, pids, keys, table padding) becomes a
/// placeholder. The specific filters come first, so `(12 ms)` reads `([ms])`.
fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(true);
    let root = regex::escape(&repo_root().display().to_string());
    let filters = [
        (root.as_str(), "[repo]"),
        (r"/tmp/\.tmp\w+", "[tmp]"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "[time]"),
        (r#""duration_ms": ?\d+"#, r#""duration_ms": [ms]"#),
        (
            r"&quot;duration_ms&quot;: \d+",
            "&quot;duration_ms&quot;: [ms]",
        ),
        (r#""pid": ?\d+"#, r#""pid": [pid]"#),
        (r#""server_pid": ?\d+"#, r#""server_pid": [pid]"#),
        (r#"time="[\d.]+""#, r#"time="[s]""#),
        (r"\(\d+ ms\)", "([ms])"),
        (r"after \d+ ms", "after [ms]"),
        (r"\b\d+(\.\d+)? ?(ms|s|µs)\b", "[duration]"),
        (r"did:key:z\w+", "[did]"),
        // Column widths follow the values: keep cells, drop padding and rule length.
        (r" +([│┆])", " $1"),
        ("─{2,}([┬┴┼┐┘┤])", "─$1"),
        ("═{2,}([╪╡])", "═$1"),
    ];
    for (pattern, replacement) in filters {
        settings.add_filter(pattern, replacement);
    }
    settings
}

/// Runs `check`, an `insta` assertion, with [`snapshot_settings`] in force:
/// `filtered(|| insta::assert_snapshot!(out.stderr, @"…"))`.
pub fn filtered<R>(check: impl FnOnce() -> R) -> R {
    snapshot_settings().bind(check)
}
