//! Walking the tree with the data: values go out as text, never read again.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value as Json;

use super::expr::{Expr, Path};
use super::messages::{Part, Rendered, assemble};
use super::parse::{Block, BlockKind, Helper, Node, Partial};
use super::{RenderEnv, RenderError, RenderErrorKind, Template};

/// How deep partials may nest.
const MAX_DEPTH: usize = 64;
/// How large a rendering may grow: partials used many times over can otherwise
/// multiply a small template into gigabytes.
const MAX_BYTES: usize = 64 << 20;

pub(super) fn render(
    template: &Template,
    input: &Json,
    env: &RenderEnv<'_>,
) -> Result<Rendered, RenderError> {
    let mut renderer = Renderer {
        env,
        root: input,
        parts: Vec::new(),
        bytes: 0,
        partials: Vec::new(),
    };
    let scope = Scope::top(input);
    renderer.nodes(template, &template.nodes, &scope)?;
    Ok(assemble(renderer.parts, env.history))
}

/// One context: the value `this` names, and what a loop or block parameters add.
struct Scope<'a> {
    value: &'a Json,
    parent: Option<&'a Scope<'a>>,
    index: Option<(usize, usize)>,
    key: Option<&'a str>,
    locals: Vec<(&'a str, Cow<'a, Json>)>,
}

impl<'a> Scope<'a> {
    fn top(value: &'a Json) -> Self {
        Scope {
            value,
            parent: None,
            index: None,
            key: None,
            locals: Vec::new(),
        }
    }

    fn child(&'a self, value: &'a Json) -> Self {
        Scope {
            value,
            parent: Some(self),
            ..Scope::top(value)
        }
    }
}

struct Renderer<'e, 'a> {
    env: &'e RenderEnv<'e>,
    root: &'a Json,
    parts: Vec<Part>,
    bytes: usize,
    /// The partials being rendered, outermost first.
    partials: Vec<String>,
}

impl<'a> Renderer<'_, 'a> {
    fn error(&self, template: &Template, at: usize, kind: RenderErrorKind) -> RenderError {
        RenderError {
            offset: at,
            pos: template.pos(at),
            partial: self.partials.last().cloned(),
            kind,
        }
    }

    fn text(&mut self, template: &Template, at: usize, text: &str) -> Result<(), RenderError> {
        self.bytes += text.len();
        if self.bytes > MAX_BYTES {
            return Err(self.error(template, at, RenderErrorKind::TooLarge(MAX_BYTES)));
        }
        match self.parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(text),
            _ => self.parts.push(Part::Text(text.to_string())),
        }
        Ok(())
    }

    fn nodes(
        &mut self,
        t: &Template,
        nodes: &[Node],
        scope: &Scope<'_>,
    ) -> Result<(), RenderError> {
        for node in nodes {
            match node {
                Node::Text(text) => self.text(t, 0, text)?,
                Node::Value(expr) => {
                    let value = self.eval(expr, scope);
                    let at = expr_at(expr);
                    self.text(t, at, &display(value.as_deref()))?;
                }
                Node::Helper(helper) => self.helper(t, helper, scope)?,
                Node::Block(block) => self.block(t, block, scope)?,
                Node::Partial(partial) => self.partial(t, partial, scope)?,
            }
        }
        Ok(())
    }

    fn helper(
        &mut self,
        t: &Template,
        helper: &Helper,
        scope: &Scope<'_>,
    ) -> Result<(), RenderError> {
        match helper {
            Helper::Json { value, indent } => {
                let value = self.eval(value, scope);
                let value = value.as_deref().unwrap_or(&Json::Null);
                self.text(t, 0, &json_text(value, *indent))
            }
            Helper::Role(role) => {
                self.parts.push(Part::Role(role.clone()));
                Ok(())
            }
            Helper::History => {
                self.parts.push(Part::History);
                Ok(())
            }
        }
    }

    fn block(&mut self, t: &Template, block: &Block, scope: &Scope<'_>) -> Result<(), RenderError> {
        let value = self.eval(&block.params[0], scope);
        let value = value.as_deref();
        match block.kind {
            BlockKind::If | BlockKind::Unless => {
                let shown = truthy(value) == (block.kind == BlockKind::If);
                let nodes = if shown { &block.body } else { &block.inverse };
                self.nodes(t, nodes, scope)
            }
            BlockKind::IfEquals | BlockKind::UnlessEquals => {
                let other = self.eval(&block.params[1], scope);
                let equal = strictly_equal(value, other.as_deref());
                let shown = equal == (block.kind == BlockKind::IfEquals);
                let nodes = if shown { &block.body } else { &block.inverse };
                self.nodes(t, nodes, scope)
            }
            BlockKind::With => match value {
                Some(v) if truthy(Some(v)) => {
                    let mut inner = scope.child(v);
                    if let Some(name) = block.block_params.first() {
                        inner.locals.push((name, Cow::Borrowed(v)));
                    }
                    self.nodes(t, &block.body, &inner)
                }
                _ => self.nodes(t, &block.inverse, scope),
            },
            BlockKind::Each => self.each(t, block, value, scope),
        }
    }

    fn each(
        &mut self,
        t: &Template,
        block: &Block,
        value: Option<&Json>,
        scope: &Scope<'_>,
    ) -> Result<(), RenderError> {
        let items: Vec<(Option<&str>, &Json)> = match value {
            Some(Json::Array(items)) => items.iter().map(|v| (None, v)).collect(),
            Some(Json::Object(map)) => map.iter().map(|(k, v)| (Some(k.as_str()), v)).collect(),
            _ => Vec::new(),
        };
        if items.is_empty() {
            return self.nodes(t, &block.inverse, scope);
        }
        let count = items.len();
        for (i, (key, item)) in items.into_iter().enumerate() {
            let mut inner = scope.child(item);
            inner.index = Some((i, count));
            inner.key = key;
            if let Some(name) = block.block_params.first() {
                inner.locals.push((name, Cow::Borrowed(item)));
            }
            if let Some(name) = block.block_params.get(1) {
                let position = key.map_or_else(|| Json::from(i), Json::from);
                inner.locals.push((name, Cow::Owned(position)));
            }
            self.nodes(t, &block.body, &inner)?;
        }
        Ok(())
    }

    fn partial(
        &mut self,
        t: &Template,
        partial: &Partial,
        scope: &Scope<'_>,
    ) -> Result<(), RenderError> {
        let name = &partial.name;
        if let Some(first) = self.partials.iter().position(|p| p == name) {
            let mut chain = self.partials[first..].to_vec();
            chain.push(name.clone());
            return Err(self.error(t, partial.at, RenderErrorKind::CircularPartial(chain)));
        }
        if self.partials.len() >= MAX_DEPTH {
            return Err(self.error(t, partial.at, RenderErrorKind::TooDeep(MAX_DEPTH)));
        }
        let Some(inner): Option<Arc<Template>> = self.env.partials.partial(name) else {
            return Err(self.error(t, partial.at, RenderErrorKind::MissingPartial(name.clone())));
        };
        // The context is borrowed unless pairs are laid over it: a partial used in a
        // loop must not copy the whole input each time.
        let context: Cow<'_, Json> = match &partial.context {
            Some(expr) => self.eval(expr, scope).unwrap_or(Cow::Owned(Json::Null)),
            None => Cow::Borrowed(scope.value),
        };
        let context = if partial.hash.is_empty() {
            context
        } else {
            Cow::Owned(with_pairs(context.into_owned(), &partial.hash, |e| {
                self.eval(e, scope)
                    .map(Cow::into_owned)
                    .unwrap_or(Json::Null)
            }))
        };
        let inner_scope = scope.child(&context);
        self.partials.push(name.clone());
        let result = self.nodes(&inner, &inner.nodes, &inner_scope);
        self.partials.pop();
        result
    }

    /// The value `expr` names here, if any.
    fn eval<'s>(&self, expr: &'s Expr, scope: &'s Scope<'s>) -> Option<Cow<'s, Json>>
    where
        'a: 's,
    {
        match expr {
            Expr::Literal(value) => Some(Cow::Borrowed(value)),
            Expr::Path(path) => self.lookup(path, scope),
        }
    }

    fn lookup<'s>(&self, path: &Path, scope: &'s Scope<'s>) -> Option<Cow<'s, Json>>
    where
        'a: 's,
    {
        let mut scope = scope;
        for _ in 0..path.up {
            scope = scope.parent?;
        }
        let (start, rest): (Cow<'s, Json>, &[String]) = if path.data {
            let (first, rest) = path.parts.split_first()?;
            (data_value(first, scope, self.root)?, rest)
        } else if let Some((first, rest)) = path.parts.split_first()
            && let Some(local) = local(scope, first)
        {
            (local, rest)
        } else {
            (Cow::Borrowed(scope.value), path.parts.as_slice())
        };
        rest.iter().try_fold(start, |value, part| match value {
            Cow::Borrowed(v) => member(v, part).map(|m| match m {
                Cow::Borrowed(m) => Cow::Borrowed(m),
                Cow::Owned(m) => Cow::Owned(m),
            }),
            Cow::Owned(v) => member(&v, part).map(|m| Cow::Owned(m.into_owned())),
        })
    }
}

fn expr_at(expr: &Expr) -> usize {
    match expr {
        Expr::Path(p) => p.at,
        Expr::Literal(_) => 0,
    }
}

/// A block parameter visible from `scope` (inner blocks see outer ones).
fn local<'s>(scope: &'s Scope<'s>, name: &str) -> Option<Cow<'s, Json>> {
    let mut at = Some(scope);
    while let Some(s) = at {
        if let Some((_, value)) = s.locals.iter().find(|(n, _)| *n == name) {
            return Some(match value {
                Cow::Borrowed(v) => Cow::Borrowed(*v),
                Cow::Owned(v) => Cow::Owned(v.clone()),
            });
        }
        at = s.parent;
    }
    None
}

/// `@root`, `@index`, `@first`, `@last`, `@key`: from the nearest loop.
fn data_value<'s>(name: &str, scope: &'s Scope<'s>, root: &'s Json) -> Option<Cow<'s, Json>> {
    if name == "root" {
        return Some(Cow::Borrowed(root));
    }
    let mut at = Some(scope);
    while let Some(s) = at {
        if let Some((i, count)) = s.index {
            return match name {
                "index" => Some(Cow::Owned(Json::from(i))),
                "first" => Some(Cow::Owned(Json::Bool(i == 0))),
                "last" => Some(Cow::Owned(Json::Bool(i + 1 == count))),
                "key" => Some(Cow::Owned(s.key.map_or_else(|| Json::from(i), Json::from))),
                _ => None,
            };
        }
        at = s.parent;
    }
    None
}

/// `value.part`: an object's member, an array's item by number, or `length`.
fn member<'v>(value: &'v Json, part: &str) -> Option<Cow<'v, Json>> {
    match value {
        Json::Object(map) => map.get(part).map(Cow::Borrowed),
        Json::Array(items) if part == "length" => Some(Cow::Owned(Json::from(items.len()))),
        Json::Array(items) => part
            .parse::<usize>()
            .ok()
            .and_then(|i| items.get(i))
            .map(Cow::Borrowed),
        Json::String(s) if part == "length" => {
            Some(Cow::Owned(Json::from(s.encode_utf16().count())))
        }
        _ => None,
    }
}

/// A partial's context with its `key=value` pairs laid over it.
fn with_pairs(
    context: Json,
    pairs: &[(String, Expr)],
    mut eval: impl FnMut(&Expr) -> Json,
) -> Json {
    let mut map = match context {
        Json::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    for (key, expr) in pairs {
        map.insert(key.clone(), eval(expr));
    }
    Json::Object(map)
}

/// Handlebars' truth: missing, null, false, 0, "" and [] are false.
fn truthy(value: Option<&Json>) -> bool {
    match value {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(Json::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Array(items)) => !items.is_empty(),
        Some(Json::Object(_)) => true,
    }
}

/// `===`: same type and value; numbers by value (5 equals 5.0).
fn strictly_equal(a: Option<&Json>, b: Option<&Json>) -> bool {
    match (a, b) {
        (Some(Json::Number(x)), Some(Json::Number(y))) => x.as_f64() == y.as_f64(),
        (Some(x), Some(y)) => x == y,
        (None, None) => true,
        _ => false,
    }
}

/// A value as text: strings as they are, numbers as JavaScript writes them, arrays
/// as their items joined by commas, objects as JSON, null and missing as nothing.
fn display(value: Option<&Json>) -> Cow<'_, str> {
    match value {
        None | Some(Json::Null) => Cow::Borrowed(""),
        Some(Json::String(s)) => Cow::Borrowed(s),
        Some(Json::Bool(b)) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Some(Json::Number(n)) => Cow::Owned(number_text(n)),
        Some(Json::Array(items)) => Cow::Owned(
            items
                .iter()
                .map(|i| display(Some(i)).into_owned())
                .collect::<Vec<_>>()
                .join(","),
        ),
        Some(object) => Cow::Owned(object.to_string()),
    }
}

fn number_text(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        _ => n.to_string(),
    }
}

fn json_text(value: &Json, indent: Option<usize>) -> String {
    match indent {
        None | Some(0) => value.to_string(),
        Some(n) => {
            let spaces = vec![b' '; n];
            let formatter = serde_json::ser::PrettyFormatter::with_indent(&spaces);
            let mut out = Vec::new();
            let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
            match serde::Serialize::serialize(value, &mut serializer) {
                Ok(()) => String::from_utf8_lossy(&out).into_owned(),
                Err(_) => value.to_string(),
            }
        }
    }
}
