//! dotprompt's template language: the Handlebars subset that `.prompt` files use,
//! rendered into chat messages.
//!
//! Our own small parser and renderer rather than the `handlebars` crate: a value must
//! never be read as template syntax, and dotprompt's `{{role}}` and `{{history}}`
//! work in the crate (as in dotprompt itself) by writing marker text into the output
//! and splitting on it afterwards, which a value holding that marker could forge.
//! Here the renderer emits roles and history as parts of their own, so a value is
//! only ever text. Owning the tree also gives every node its byte offset for
//! positioned errors and for lint, and keeps parsing and rendering linear.
//!
//! Supported: `{{path}}` (`a.b`, `this`, `../x`, `@index`, `@first`, `@last`,
//! `@key`, `@root.x`, `[odd key]`), `{{{path}}}` and `{{&path}}` (the same: nothing is
//! HTML-escaped), comments, `~` whitespace control and Handlebars' standalone-line
//! rule, `\{{` for a literal `{{`, the blocks `#if`, `#unless`, `#each` (arrays and
//! objects, `as |item index|`), `#with`, `#ifEquals`, `#unlessEquals` with `{{else}}`
//! and `{{else if …}}`, inverse sections `{{^x}}`, and the helpers `{{json x
//! indent=N}}`, `{{role "system"}}`, `{{history}}` and partials `{{> name [context]
//! [key=value…]}}`. A missing value renders as nothing, as in dotprompt; declaring
//! which variables a template may use is the caller's check, through [`Template::variables`].

mod expr;
mod inspect;
mod lex;
mod messages;
mod parse;
mod render;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use crate::doc::Pos;

pub use expr::{Expr, Path};
pub use inspect::{Condition, PartialRef, VarRef};
pub use messages::{Message, Rendered};
pub use parse::BlockKind;
use parse::Node;

/// A parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    nodes: Vec<Node>,
    lines: Lines,
}

/// What a render may draw on besides its input.
pub struct RenderEnv<'a> {
    pub partials: &'a dyn Partials,
    /// The conversation so far, for `{{history}}`.
    pub history: &'a [Message],
}

/// Where partials come from.
pub trait Partials {
    /// The partial named `name`, parsed; `None` when there is none.
    fn partial(&self, name: &str) -> Option<Arc<Template>>;
}

/// No partials at all.
pub struct NoPartials;

impl Partials for NoPartials {
    fn partial(&self, _name: &str) -> Option<Arc<Template>> {
        None
    }
}

impl Template {
    /// Parses `text`, reporting every problem found.
    pub fn parse(text: &str) -> Result<Template, Vec<SyntaxError>> {
        let lines = Lines::new(text);
        let placed = |mut errors: Vec<SyntaxError>| {
            for e in &mut errors {
                e.pos = lines.pos(e.offset);
            }
            errors
        };
        let tokens = lex::tokens(text).map_err(|e| placed(vec![e]))?;
        let nodes = parse::parse_tokens(tokens).map_err(placed)?;
        Ok(Template { nodes, lines })
    }

    /// The line and column of byte `offset` of the template's text.
    pub fn pos(&self, offset: usize) -> Pos {
        self.lines.pos(offset)
    }

    /// Renders the template with `input` as its data.
    pub fn render(
        &self,
        input: &serde_json::Value,
        env: &RenderEnv<'_>,
    ) -> Result<Rendered, RenderError> {
        render::render(self, input, env)
    }
}

/// The start of every line, to place offsets without counting from the start.
#[derive(Debug, Clone)]
struct Lines {
    text: Arc<str>,
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines {
            text: Arc::from(text),
            starts,
        }
    }

    fn pos(&self, offset: usize) -> Pos {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        Pos {
            line: line as u32,
            col: col as u32 + 1,
        }
    }
}

/// A template that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub pos: Pos,
    pub kind: SyntaxErrorKind,
}

impl SyntaxError {
    fn new(offset: usize, kind: SyntaxErrorKind) -> Self {
        SyntaxError {
            offset,
            pos: Pos::START,
            kind,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    Unclosed,
    TripleUnclosed,
    Empty,
    Subexpression,
    BadPath(String),
    Expected {
        expected: String,
        found: String,
    },
    UnknownBlock(String),
    UnknownHelper(String),
    Arity {
        helper: String,
        wanted: usize,
        found: usize,
    },
    RoleName,
    Unsupported(String),
    ElseOutside,
    SecondElse,
    CloseWithoutOpen(String),
    Mismatched {
        closing: String,
        open: String,
        open_at: usize,
    },
    NeverClosed(String),
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SyntaxErrorKind as K;
        match &self.kind {
            K::Unclosed => f.write_str(
                "unclosed tag: `{{` has no matching `}}` (write `\\{{` for a literal `{{`)",
            ),
            K::TripleUnclosed => f.write_str("`{{{` is closed by `}}` instead of `}}}`"),
            K::Empty => f.write_str("empty tag `{{}}`"),
            K::Subexpression => f.write_str("subexpressions `( … )` are not supported"),
            K::BadPath(word) => write!(f, "`{word}` is not a name, path or value"),
            K::Expected { expected, found } if found.is_empty() => {
                write!(f, "expected {expected} before `}}}}`")
            }
            K::Expected { expected, found } => write!(f, "expected {expected}, found `{found}`"),
            K::UnknownBlock(name) => write!(
                f,
                "unknown block helper `{name}` (known: if, unless, each, with, ifEquals, unlessEquals)"
            ),
            K::UnknownHelper(name) => write!(
                f,
                "unknown helper `{name}` (known: json, role, history; a variable takes no arguments)"
            ),
            K::Arity {
                helper,
                wanted,
                found,
            } => write!(
                f,
                "`{helper}` takes {wanted} argument{}, found {found}",
                if *wanted == 1 { "" } else { "s" }
            ),
            K::RoleName => {
                f.write_str("`role` takes one quoted role name, e.g. {{role \"system\"}}")
            }
            K::Unsupported(what) => write!(f, "{what} is not supported"),
            K::ElseOutside => f.write_str("`{{else}}` outside any block"),
            K::SecondElse => f.write_str("a second `{{else}}` in one block"),
            K::CloseWithoutOpen(name) => write!(f, "`{{{{/{name}}}}}` closes no open block"),
            K::Mismatched { closing, open, .. } => write!(
                f,
                "`{{{{/{closing}}}}}` does not close the open `{{{{#{open}}}}}` block"
            ),
            K::NeverClosed(name) => write!(
                f,
                "`{{{{#{name}}}}}` is never closed (add `{{{{/{name}}}}}`)"
            ),
        }
    }
}

/// A render that could not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    pub offset: usize,
    pub pos: Pos,
    /// The partial whose text `offset` is in; `None`: the template rendered.
    pub partial: Option<String>,
    pub kind: RenderErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderErrorKind {
    MissingPartial(String),
    CircularPartial(Vec<String>),
    TooDeep(usize),
    TooLarge(usize),
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            RenderErrorKind::MissingPartial(name) => write!(f, "no partial `{name}`"),
            RenderErrorKind::CircularPartial(chain) => {
                write!(f, "circular partials: {}", chain.join(" → "))
            }
            RenderErrorKind::TooDeep(depth) => {
                write!(f, "partials nested more than {depth} deep")
            }
            RenderErrorKind::TooLarge(limit) => {
                write!(f, "the rendering grew past {} MiB", limit >> 20)
            }
        }
    }
}

impl std::error::Error for RenderError {}
impl std::error::Error for SyntaxError {}
