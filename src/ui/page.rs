//! The one page of the web application: its style and script inline, allowed by
//! their hashes, and nothing else. The page talks only to this server (`connect-src
//! 'self'`) and shows reports in frames from it.

use std::sync::OnceLock;

use axum::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

use crate::report::hash_source;

const CSS: &str = include_str!("web/ui.css");

/// The page's script, in the order its parts are joined (each uses what earlier parts
/// define).
const SCRIPT_PARTS: &[&str] = &[
    include_str!("web/core.js"),
    include_str!("web/library.js"),
    include_str!("web/editor.js"),
    include_str!("web/stats.js"),
    include_str!("web/reports.js"),
];

struct Page {
    html: String,
    policy: String,
}

/// The page, made once.
fn built() -> &'static Page {
    static PAGE: OnceLock<Page> = OnceLock::new();
    PAGE.get_or_init(|| {
        let script = SCRIPT_PARTS.concat();
        let policy = format!(
            "default-src 'none'; script-src '{}'; style-src '{}'; connect-src 'self'; \
             frame-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'",
            hash_source(&script),
            hash_source(CSS)
        );
        let html = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"color-scheme\" content=\"light dark\">\n\
             <title>promptexec ui</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
             <noscript>This page needs JavaScript.</noscript>\n<main id=\"app\"></main>\n\
             <script>{script}</script>\n</body>\n</html>\n"
        );
        Page { html, policy }
    })
}

pub(super) async fn page() -> Response {
    let page = built();
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CONTENT_SECURITY_POLICY, page.policy.as_str()),
        ],
        page.html.as_str(),
    )
        .into_response()
}
