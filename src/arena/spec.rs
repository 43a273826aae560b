//! The settings of an Arena's `spec` that are data rather than files: defaults and
//! their output, judges, self-play, globals.

use std::path::Path;

use crate::doc::{Checker, Node, Pos, UnknownKeys};

use super::model::*;

/// `defaults`.
pub(super) fn defaults(cx: &mut Checker, node: &Node, dir: &Path) -> Defaults {
    let mut out = Defaults::default();
    let Some(mut f) = cx.map(node, "spec.defaults") else {
        return out;
    };
    out.temperature = f
        .get("temperature")
        .and_then(|n| cx.number(n, "spec.defaults.temperature"));
    out.max_tokens = f
        .get("max_tokens")
        .and_then(|n| cx.non_negative_integer(n, "spec.defaults.max_tokens"))
        .filter(|n| *n > 0);
    if let Some((key, n)) = f.entry("seed") {
        cx.integer(n, "spec.defaults.seed");
        not_applied(cx, key.pos, "seed");
    }
    out.concurrency = f
        .get("concurrency")
        .and_then(|n| cx.non_negative_integer(n, "spec.defaults.concurrency"))
        .filter(|n| *n > 0);
    if let Some((key, n)) = f.entry("run_timeout")
        && n.as_str().is_none_or(|s| !s.trim().is_empty())
    {
        cx.positive_duration(n, "spec.defaults.run_timeout");
        not_applied(cx, key.pos, "run_timeout");
    }
    if let Some(n) = f.get("output") {
        out.output = output(cx, n, dir);
    }
    // The older spellings of the output settings.
    if let Some(n) = f.get("out_dir")
        && let Some(d) = cx.string(n, "spec.defaults.out_dir")
        && out.output.dir.is_none()
    {
        out.output.dir = Some(dir.join(d));
    }
    if let Some(n) = f.get("output_formats")
        && let Some(list) = cx.string_list(n, "spec.defaults.output_formats")
        && out.output.formats.is_empty()
    {
        out.output.formats = list;
    }
    if let Some(n) = f.get("html_report")
        && let Some(file) = cx.string(n, "spec.defaults.html_report")
    {
        out.output.files.entry("html".into()).or_insert(file);
    }
    if let Some((key, n)) = f.entry("fail_on") {
        cx.string_list(n, "spec.defaults.fail_on");
        not_applied(cx, key.pos, "fail_on");
    }
    if let Some(n) = f.get("verbose") {
        cx.boolean(n, "spec.defaults.verbose");
    }
    f.allow(&["markdown_config"]);
    if let Some((key, _)) = f.entry("config_dir") {
        cx.warning(
            key.pos,
            "spec.defaults.config_dir: not applied; the files an Arena names are found from its own folder",
        );
    }
    for key in ["monitor", "inference"] {
        unplayed(cx, &mut f, key, "spec.defaults");
    }
    cx.unknown_keys(&f, "spec.defaults", UnknownKeys::Error);
    out
}

fn not_applied(cx: &mut Checker, pos: crate::doc::Pos, key: &str) {
    cx.warning(
        pos,
        format!("spec.defaults.{key}: not applied by promptexec"),
    );
}

/// A key read but not played: a warning naming it.
pub(super) fn unplayed(
    cx: &mut Checker,
    f: &mut crate::doc::Fields<'_>,
    key: &'static str,
    at: &str,
) {
    if let Some((k, _)) = f.entry(key) {
        cx.warning(
            k.pos,
            format!("{at}.{key}: a PromptArena key promptexec does not play; it is ignored"),
        );
    }
}

fn output(cx: &mut Checker, node: &Node, dir: &Path) -> Output {
    let at = "spec.defaults.output";
    let mut out = Output::default();
    let Some(mut f) = cx.map(node, at) else {
        return out;
    };
    out.dir = f
        .get("dir")
        .and_then(|n| cx.string(n, &format!("{at}.dir")))
        .filter(|d| !d.is_empty())
        .map(|d| dir.join(d));
    out.formats = f
        .get("formats")
        .and_then(|n| cx.string_list(n, &format!("{at}.formats")))
        .unwrap_or_default();
    for format in ["json", "junit", "html", "markdown"] {
        let Some(n) = f.get(format) else { continue };
        let what = format!("{at}.{format}");
        let Some(mut g) = cx.map(n, &what) else {
            continue;
        };
        if let Some(file) = g
            .get("file")
            .and_then(|n| cx.string(n, &format!("{what}.file")))
        {
            out.files.insert(format.to_string(), file);
        }
        g.allow(&[
            "include_details",
            "show_overview",
            "show_results_matrix",
            "show_failed_tests",
            "show_cost_summary",
        ]);
        cx.unknown_keys(&g, &what, UnknownKeys::Error);
    }
    if let Some(n) = f.get("recording")
        && let Some(mut g) = cx.map(n, &format!("{at}.recording"))
    {
        let enabled = g
            .get("enabled")
            .and_then(|n| cx.boolean(n, &format!("{at}.recording.enabled")))
            .unwrap_or(false);
        let sub = g
            .get("dir")
            .and_then(|n| cx.string(n, &format!("{at}.recording.dir")))
            .unwrap_or_else(|| "recordings".into());
        cx.unknown_keys(&g, &format!("{at}.recording"), UnknownKeys::Error);
        if enabled {
            let base = out.dir.clone().unwrap_or_else(|| dir.join("out"));
            out.recording = Some(base.join(sub));
        }
    }
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    out
}

/// `judges[]`.
pub(super) fn judges(cx: &mut Checker, node: &Node) -> Vec<JudgeRef> {
    let Some(items) = cx.list(node, "spec.judges") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("spec.judges[{i}]");
        let Some(mut f) = cx.map(item, &at) else {
            continue;
        };
        let name = need_string(cx, &mut f, item, "name", &at);
        let provider = need_string(cx, &mut f, item, "provider", &at);
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
        if let (Some(name), Some(provider)) = (name, provider) {
            out.push(JudgeRef {
                name,
                provider,
                pos: item.pos,
            });
        }
    }
    out
}

/// `judge_defaults`.
pub(super) fn judge_defaults(cx: &mut Checker, node: &Node) -> JudgeDefaults {
    let at = "spec.judge_defaults";
    let Some(mut f) = cx.map(node, at) else {
        return JudgeDefaults::default();
    };
    let prompt = f
        .get("prompt")
        .and_then(|n| cx.string(n, &format!("{at}.prompt")));
    let prompt_registry = f
        .get("prompt_registry")
        .and_then(|n| cx.string(n, &format!("{at}.prompt_registry")));
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    JudgeDefaults {
        prompt,
        prompt_registry,
    }
}

/// `self_play`.
pub(super) fn self_play(cx: &mut Checker, node: &Node, dir: &Path) -> Option<SelfPlay> {
    let at = "spec.self_play";
    let mut f = cx.map(node, at)?;
    let enabled = f
        .get("enabled")
        .and_then(|n| cx.boolean(n, &format!("{at}.enabled")))
        .unwrap_or(true);
    let personas = f
        .get("personas")
        .map(|n| file_refs(cx, n, &format!("{at}.personas"), dir))
        .unwrap_or_default();
    let mut roles = Vec::new();
    if let Some(items) = f
        .get("roles")
        .and_then(|n| cx.list(n, &format!("{at}.roles")))
    {
        for (i, item) in items.iter().enumerate() {
            let what = format!("{at}.roles[{i}]");
            let Some(mut g) = cx.map(item, &what) else {
                continue;
            };
            let id = need_string(cx, &mut g, item, "id", &what);
            let provider = need_string(cx, &mut g, item, "provider", &what);
            cx.unknown_keys(&g, &what, UnknownKeys::Error);
            if let (Some(id), Some(provider)) = (id, provider) {
                roles.push(SelfPlayRole {
                    id,
                    provider,
                    pos: item.pos,
                });
            }
        }
    }
    unplayed(cx, &mut f, "persona_specs", at);
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    Some(SelfPlay {
        enabled,
        personas,
        roles,
    })
}

/// A list of `{file: PATH}` entries, each resolved against `dir`.
pub(super) fn file_refs(
    cx: &mut Checker,
    node: &Node,
    at: &str,
    dir: &Path,
) -> Vec<(std::path::PathBuf, Pos)> {
    let Some(items) = cx.list(node, at) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let what = format!("{at}[{i}]");
        let Some(mut f) = cx.map(item, &what) else {
            continue;
        };
        let file = f.get("file");
        let path = match file {
            Some(n) => cx.nonempty_string(n, &format!("{what}.file")),
            None => {
                cx.error(item.pos, format!("{what}: missing key `file`"));
                None
            }
        };
        f.allow(&["group"]);
        cx.unknown_keys(&f, &what, UnknownKeys::Error);
        if let (Some(path), Some(n)) = (path, file) {
            out.push((dir.join(path), n.pos));
        }
    }
    out
}

/// `globals`: its conversation assertions.
pub(super) fn globals(cx: &mut Checker, node: &Node) -> Vec<RawAssertion> {
    let at = "spec.globals";
    let Some(mut f) = cx.map(node, at) else {
        return Vec::new();
    };
    let list = f.get("conversation_assertions");
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    match list {
        Some(node) => assertions(cx, node, &format!("{at}.conversation_assertions")),
        None => Vec::new(),
    }
}

/// A list of assertions (`type`, `params`, `message`, `when`, `pass_threshold`), as
/// the globals and Eval files write them.
pub(super) fn assertions(cx: &mut Checker, node: &Node, what: &str) -> Vec<RawAssertion> {
    let Some(items) = cx.list(node, what) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{what}[{i}]");
        let Some(mut g) = cx.map(item, &at) else {
            continue;
        };
        let kind = need_string(cx, &mut g, item, "type", &at);
        let params = g.get("params").map_or(serde_json::json!({}), Node::to_json);
        let message = g
            .get("message")
            .and_then(|n| cx.string(n, &format!("{at}.message")));
        let when = g.get("when").cloned();
        let pass_threshold = g
            .get("pass_threshold")
            .and_then(|n| cx.number(n, &format!("{at}.pass_threshold")));
        cx.unknown_keys(&g, &at, UnknownKeys::Error);
        if let Some(kind) = kind {
            out.push(RawAssertion {
                kind,
                params,
                message,
                when,
                pass_threshold,
                pos: item.pos,
            });
        }
    }
    out
}

fn need_string(
    cx: &mut Checker,
    f: &mut crate::doc::Fields<'_>,
    parent: &Node,
    key: &'static str,
    at: &str,
) -> Option<String> {
    match f.get(key) {
        Some(n) => cx.nonempty_string(n, &format!("{at}.{key}")),
        None => {
            cx.error(parent.pos, format!("{at}: missing key `{key}`"));
            None
        }
    }
}
