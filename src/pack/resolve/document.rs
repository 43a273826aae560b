//! Walks a parsed PromptPack document into [`Pack`]. A key PromptKit defines but
//! promptexec does not apply is a warning; a key nobody defines is an error, since a
//! typo must not silently change what runs. This file has the pack's top level and
//! what every subject shares; `prompts`, `tools` and `evals` add their own methods.

use std::path::Path;

use indexmap::IndexMap;

use crate::doc::{Checker, Fields, JsonStringCursor, Node, UnknownKeys, Value};
use crate::template::Template;

use crate::pack::model::*;

/// Keys that only describe the pack; nothing would act on them.
const TOP_KEYS_DESCRIPTIVE: &[&str] = &["$schema", "metadata", "compilation"];

/// Keys PromptKit defines and promptexec does not apply: each is a warning.
const TOP_KEYS_UNUSED: &[&str] = &["agents", "skills", "compositions", "requires"];

pub(super) use crate::doc::pointer as ptr;

pub(crate) fn resolve(root: &Node, path: &Path, cx: &mut Checker) -> Option<Pack> {
    let mut r = Resolver { cx };
    let mut top = r.cx.map(root, "the pack")?;
    let id = r.required_string(&mut top, root, "", "id");
    let name = r.required_string(&mut top, root, "", "name");
    let version = r.required_string(&mut top, root, "", "version");
    let description = r.optional_string(&mut top, "", "description");
    let fragments = match top.get("fragments") {
        Some(node) => r.fragments(node),
        None => IndexMap::new(),
    };
    let tools = match top.get("tools") {
        Some(node) => r.tools(node),
        None => IndexMap::new(),
    };
    let evals = match top.get("evals") {
        Some(node) => r.evals(node, "/evals"),
        None => Vec::new(),
    };
    let prompts = match top.get("prompts") {
        Some(node) => r.prompts(node),
        None => {
            r.cx.error(
                root.pos,
                "missing key `prompts`: a pack needs at least one prompt",
            );
            IndexMap::new()
        }
    };
    if let Some(node) = top.get("template_engine") {
        r.template_engine(node);
    }
    let workflow = top.get("workflow").and_then(|node| {
        let names: Vec<&str> = prompts.keys().map(String::as_str).collect();
        crate::pack::workflow::parse(node, "/workflow", Some(&names), r.cx)
    });
    top.allow(TOP_KEYS_DESCRIPTIVE);
    r.cx.ignored_keys(&mut top, TOP_KEYS_UNUSED, "the pack");
    r.cx.unknown_keys(&top, "the pack", UnknownKeys::Error);
    Some(Pack {
        path: path.to_path_buf(),
        text: r.cx.text.clone(),
        id: id?,
        name: name?,
        version: version?,
        description,
        prompts,
        tools,
        evals,
        fragments,
        workflow,
    })
}

/// What every step of the walk needs: the checker that collects diagnostics (and
/// holds the pack's text, for template positions).
pub(super) struct Resolver<'c> {
    pub cx: &'c mut Checker,
}

impl Resolver<'_> {
    /// The engine promptexec has is `{{variable}}` with fragments; a pack asking for
    /// another syntax or for more features is told they are not applied.
    pub(super) fn template_engine(&mut self, node: &Node) {
        let at = "/template_engine";
        let Some(mut f) = self.cx.map(node, at) else {
            return;
        };
        if let Some(n) = f.get("syntax")
            && let Some(syntax) = self.cx.string(n, &ptr(at, "syntax"))
            && syntax != "{{variable}}"
        {
            self.cx.warning(
                n.pos,
                format!("{at}/syntax: `{syntax}` is not applied; promptexec renders `{{{{variable}}}}` placeholders only"),
            );
        }
        if let Some(features) = f
            .get("features")
            .and_then(|n| self.cx.string_list(n, &ptr(at, "features")))
        {
            for (feature, pos) in features {
                if !matches!(feature.as_str(), "basic_substitution" | "fragments") {
                    self.cx.warning(
                        pos,
                        format!("{at}/features: `{feature}` is not applied; promptexec supports `basic_substitution` and `fragments`"),
                    );
                }
            }
        }
        f.allow(&["version"]);
        self.cx.unknown_keys(&f, at, UnknownKeys::Error);
    }

    pub(super) fn required_string(
        &mut self,
        f: &mut Fields<'_>,
        parent: &Node,
        at: &str,
        key: &'static str,
    ) -> Option<String> {
        match f.get(key) {
            Some(node) => self.cx.nonempty_string(node, &ptr(at, key)),
            None => {
                let place = if at.is_empty() { "the pack" } else { at };
                self.cx
                    .error(parent.pos, format!("{place}: missing key `{key}`"));
                None
            }
        }
    }

    pub(super) fn optional_string(
        &mut self,
        f: &mut Fields<'_>,
        at: &str,
        key: &'static str,
    ) -> Option<String> {
        f.get(key)
            .and_then(|node| self.cx.string(node, &ptr(at, key)))
    }

    pub(super) fn template_text(
        &mut self,
        node: &Node,
        at: &str,
        text: String,
    ) -> Option<TemplateText> {
        let template = match Template::parse(&text) {
            Ok(t) => t,
            Err(errors) => {
                let mut file = JsonStringCursor::new(&self.cx.text, node.offset, node.pos);
                let placed: Vec<_> = errors.iter().map(|e| file.locate(e.offset)).collect();
                for (e, pos) in errors.iter().zip(placed) {
                    self.cx.error(pos, format!("{at}: {e}"));
                }
                return None;
            }
        };
        Some(TemplateText {
            template,
            offset: node.offset,
            pos: node.pos,
        })
    }

    pub(super) fn fragments(&mut self, node: &Node) -> IndexMap<String, TemplateText> {
        let mut out = IndexMap::new();
        if self.cx.map(node, "/fragments").is_none() {
            return out;
        }
        for (key, value) in entries(node) {
            let at = ptr("/fragments", &key.name);
            if let Some(text) = self.cx.string(value, &at)
                && let Some(t) = self.template_text(value, &at, text)
            {
                out.insert(key.name.clone(), t);
            }
        }
        out
    }
}

pub(super) fn entries(node: &Node) -> &[(crate::doc::Key, Node)] {
    match &node.value {
        Value::Map(entries) => entries,
        _ => &[],
    }
}
