//! A subset of Go's `text/template`, as PromptKit renders `mock_template`s and the
//! URL and header templates of live HTTP tools against a call's JSON arguments.
//!
//! Parsed once (errors carry the template's own `line:col`), then rendered in one
//! pass over the tree, reading the arguments in place (nothing is copied but what
//! is printed); inserted values are written as they are, never parsed again.
//!
//! What is played: text and actions, `{{-` / `-}}` trimming, comments, `.`,
//! `.a.b`, `$`, variables (`$x := …`, `$x = …`, `range $i, $e := …`), pipelines
//! (`a | b`), parentheses, string / raw string / number / `true` / `false` / `nil`
//! literals, `if` / `else if` / `else with` / `else` / `end`, `with`, `range` over
//! lists, maps (keys in order) and integers, `break`, `continue`, and the functions
//! `and or not len index printf print println eq ne lt le gt ge` (PromptKit adds
//! none of its own). `define`, `template` and `block` are refused when parsed.
//!
//! Values follow Go's rules for data decoded from JSON: every JSON number is a
//! float64 (so `{{ .n }}` of 1234567 prints `1.234567e+06`, and `eq .n 3` compares a
//! float with an int and fails as in Go), a missing key prints `<no value>`.

mod exec;
mod funcs;
mod lex;
mod parse;
mod value;

#[cfg(test)]
mod tests;

use serde_json::Value as Json;

/// A float64 as Go's `fmt` prints it with `%v` or `%g`.
pub use value::go_float;

/// What a missing map key gives (Go's `missingkey` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// `missingkey=default`: no value, and fields of it are no value too.
    #[default]
    NoValue,
    /// `missingkey=zero` (mock templates): the map's zero value, a nil interface,
    /// whose fields cannot be read.
    Zero,
}

/// A parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    source: String,
    nodes: Vec<parse::Node>,
}

/// A problem at a place in the template's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct TemplateError {
    /// 1-based, in the template's own text.
    pub line: u32,
    /// 1-based, in characters.
    pub col: u32,
    /// Byte offset in the template's text.
    pub offset: usize,
    pub message: String,
}

impl Template {
    pub fn parse(source: &str) -> Result<Template, TemplateError> {
        let nodes =
            parse::parse(source).map_err(|(offset, message)| error_at(source, offset, message))?;
        Ok(Template {
            source: source.to_string(),
            nodes,
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the text holds any action at all (a plain URL does not).
    pub fn has_actions(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| !matches!(n, parse::Node::Text(_)))
    }

    /// Renders against `data` (the call's arguments).
    pub fn render(&self, data: &Json, missing: Missing) -> Result<String, TemplateError> {
        exec::render(&self.nodes, data, missing)
            .map_err(|(offset, message)| error_at(&self.source, offset, message))
    }
}

fn error_at(source: &str, offset: usize, message: String) -> TemplateError {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() as u32 + 1;
    TemplateError {
        line,
        col,
        offset,
        message,
    }
}
