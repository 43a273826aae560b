//! The self-contained HTML report: one page that holds a report's JSON document once and
//! renders it in the browser. The page makes no network request: its Content-Security-Policy
//! allows nothing but its own inline style and script, named by their SHA-256 hashes, and
//! images from `data:` URLs. Every text taken from the data is inserted as text, never as
//! markup.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// Which report a page shows: each has its own view of its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HtmlKind {
    Suite,
    Conversation,
    Test,
    Check,
    Diff,
}

impl HtmlKind {
    fn name(self) -> &'static str {
        match self {
            HtmlKind::Suite => "suite",
            HtmlKind::Conversation => "conversation",
            HtmlKind::Test => "test",
            HtmlKind::Check => "check",
            HtmlKind::Diff => "diff",
        }
    }
}

const CSS: &str = include_str!("report.css");

/// The page's script, in the order its parts are joined (each defines what later parts use).
const SCRIPT_PARTS: &[&str] = &[
    include_str!("core.js"),
    include_str!("timeline.js"),
    include_str!("suite.js"),
    include_str!("records.js"),
];

/// The whole page for one JSON document: `json` is the exact text `--format json`
/// prints for the report (for [`HtmlKind::Diff`], the `diff --format json` document).
pub(crate) fn html_page(kind: HtmlKind, json: &str) -> String {
    let script = SCRIPT_PARTS.concat();
    let data = embed_json(json);
    let mut page = String::with_capacity(data.len() + script.len() + CSS.len() + 1024);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    page.push_str(&policy(&script, CSS));
    page.push_str(
        "\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    );
    page.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    page.push_str("<title>promptexec report</title>\n<style>");
    page.push_str(CSS);
    page.push_str("</style>\n</head>\n<body data-kind=\"");
    page.push_str(kind.name());
    page.push_str("\">\n<noscript>This report needs JavaScript to show its data.</noscript>\n");
    page.push_str("<main id=\"app\"></main>\n");
    page.push_str("<script type=\"application/json\" id=\"report-data\">");
    page.push_str(&data);
    page.push_str("</script>\n<script>");
    page.push_str(&script);
    page.push_str("</script>\n</body>\n</html>\n");
    page
}

/// The Content-Security-Policy: no source at all by default, so no fetch, image, font,
/// frame or form can reach the network; the inline style and script are allowed by hash.
fn policy(script: &str, css: &str) -> String {
    format!(
        "default-src 'none'; script-src '{}'; style-src '{}'; img-src data:; \
         base-uri 'none'; form-action 'none'",
        hash_source(script),
        hash_source(css)
    )
}

/// A CSP hash source (`sha256-…`) for an inline element's exact text.
pub(crate) fn hash_source(text: &str) -> String {
    format!(
        "sha256-{}",
        STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// The JSON text made compact and safe inside a `<script>` element: the whitespace
/// between tokens is dropped (a large report's page is half the size, and the browser
/// reads it twice as fast), and `<`, which may only occur inside JSON strings, is
/// written `\u003c`, which means the same there: nothing in the data can close the
/// element or open a comment.
fn embed_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            match c {
                '<' => out.push_str("\\u003c"),
                _ => out.push(c),
            }
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\n' | '\r' | '\t') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
