//! The template's text split into text and actions, then read into a tree.

use super::lex::{self, LexError, Tok, Token};

#[derive(Debug, Clone)]
pub(super) enum Node {
    Text(String),
    /// `{{ pipeline }}`: prints its value, unless it declares or assigns variables.
    Print(Pipe),
    If(Branch),
    With(Branch),
    Range(Branch),
    Break,
    Continue,
}

/// A control structure: its pipeline, its body, and its `else` part.
#[derive(Debug, Clone)]
pub(super) struct Branch {
    pub pipe: Pipe,
    pub then: Vec<Node>,
    pub otherwise: Vec<Node>,
}

#[derive(Debug, Clone)]
pub(super) struct Pipe {
    /// Variables declared (`:=`) or assigned (`=`), without their `$`.
    pub vars: Vec<String>,
    pub assign: bool,
    pub cmds: Vec<Cmd>,
    pub at: usize,
}

#[derive(Debug, Clone)]
pub(super) struct Cmd {
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone)]
pub(super) struct Arg {
    pub kind: ArgKind,
    pub at: usize,
}

#[derive(Debug, Clone)]
pub(super) enum ArgKind {
    Dot,
    Field(Vec<String>),
    /// A variable (`$` is the name ``) and the fields read from it.
    Var(String, Vec<String>),
    Func(String),
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Nil,
    /// `( pipeline )` and the fields read from its value.
    Sub(Box<Pipe>, Vec<String>),
}

/// The functions Go's `text/template` defines that are played here.
pub(super) const FUNCS: &[&str] = &[
    "and", "or", "not", "len", "index", "printf", "print", "println", "eq", "ne", "lt", "le", "gt",
    "ge",
];

/// Go functions that exist but are not played.
const UNPLAYED: &[&str] = &["html", "js", "urlquery", "slice", "call"];

enum Item {
    Text(String),
    Action(Vec<Token>, usize),
}

pub(super) fn parse(src: &str) -> Result<Vec<Node>, LexError> {
    let items = split(src)?;
    let mut p = Parser {
        items,
        next: 0,
        vars: vec![String::new()],
        range_depth: 0,
        end: src.len(),
        pending: Vec::new(),
    };
    let (nodes, stop) = p.list()?;
    match stop {
        None => Ok(nodes),
        Some((word, at)) => Err((at, format!("unexpected {{{{{word}}}}}"))),
    }
}

/// The text and actions in order, trim markers applied and comments dropped.
fn split(src: &str) -> Result<Vec<Item>, LexError> {
    let mut items = Vec::new();
    let mut text_start = 0;
    let mut trim_next = false;
    let push_text = |items: &mut Vec<Item>, text: &str, trim_left: bool, trim_right: bool| {
        let mut t = text;
        if trim_left {
            t = t.trim_start_matches([' ', '\t', '\r', '\n']);
        }
        if trim_right {
            t = t.trim_end_matches([' ', '\t', '\r', '\n']);
        }
        if !t.is_empty() {
            items.push(Item::Text(t.to_string()));
        }
    };
    while let Some(found) = src[text_start..].find("{{") {
        let open = text_start + found;
        let after = &src[open + 2..];
        let trim_before = after.starts_with("- ")
            || after.starts_with("-\t")
            || after.starts_with("-\n")
            || after.starts_with("-\r");
        push_text(&mut items, &src[text_start..open], trim_next, trim_before);
        let mut inner = open + 2 + if trim_before { 2 } else { 0 };
        while src[inner..].starts_with([' ', '\t', '\r', '\n']) {
            inner += 1;
        }
        let (close, resume) = if src[inner..].starts_with("/*") {
            let Some(end) = src[inner + 2..].find("*/") else {
                return Err((open, "unclosed comment".into()));
            };
            let after_comment = inner + 2 + end + 2;
            let rest = &src[after_comment..];
            if rest.starts_with("}}") {
                (after_comment, after_comment + 2)
            } else if rest.starts_with(" -}}") {
                (after_comment, after_comment + 4)
            } else {
                return Err((open, "comment ends before closing delimiter".into()));
            }
        } else {
            let (tokens, close, resume) = lex::action(src, inner).map_err(|(at, message)| {
                if message == "unclosed action" {
                    (open, message)
                } else {
                    (at, message)
                }
            })?;
            items.push(Item::Action(tokens, open));
            (close, resume)
        };
        trim_next = resume - close == 4;
        text_start = resume;
    }
    push_text(&mut items, &src[text_start..], trim_next, false);
    Ok(items)
}

/// Nodes, and the keyword that ended them with its place (`None` at the end).
type Listed = (Vec<Node>, Option<(String, usize)>);

struct Parser {
    items: Vec<Item>,
    next: usize,
    /// Variables in scope, without their `$`; `` is the root.
    vars: Vec<String>,
    range_depth: usize,
    end: usize,
    /// The words after an `else` keyword, for the structure it belongs to.
    pending: Vec<Token>,
}

impl Parser {
    /// Nodes up to a keyword that ends a list (`else`, `end`), returned with its
    /// place (the words after it are left in `pending`); `None` at the end of the
    /// text.
    fn list(&mut self) -> Result<Listed, LexError> {
        let mut nodes = Vec::new();
        while self.next < self.items.len() {
            let item = std::mem::replace(&mut self.items[self.next], Item::Text(String::new()));
            self.next += 1;
            let (tokens, at) = match item {
                Item::Text(text) => {
                    nodes.push(Node::Text(text));
                    continue;
                }
                Item::Action(tokens, at) => (tokens, at),
            };
            let keyword = match tokens.first().map(|t| &t.tok) {
                Some(Tok::Ident(word)) => word.as_str(),
                None => return Err((at, "missing value for command".into())),
                _ => "",
            };
            match keyword {
                "end" | "else" => {
                    self.pending = tokens[1..].to_vec();
                    if keyword == "end" && !self.pending.is_empty() {
                        return Err((tokens[1].at, "unexpected words after end".into()));
                    }
                    return Ok((nodes, Some((keyword.to_string(), at))));
                }
                "if" | "with" | "range" => nodes.push(self.control(keyword, &tokens[1..], at)?),
                "break" | "continue" => {
                    if self.range_depth == 0 {
                        return Err((at, format!("{{{{{keyword}}}}} outside {{{{range}}}}")));
                    }
                    nodes.push(if keyword == "break" {
                        Node::Break
                    } else {
                        Node::Continue
                    });
                }
                "define" | "template" | "block" => {
                    return Err((
                        at,
                        format!("`{keyword}` is not supported in these templates"),
                    ));
                }
                _ => {
                    let pipe = self.pipe(&tokens, at, false)?;
                    nodes.push(Node::Print(pipe));
                }
            }
        }
        Ok((nodes, None))
    }

    fn control(&mut self, keyword: &str, tokens: &[Token], at: usize) -> Result<Node, LexError> {
        let scope = self.vars.len();
        let pipe = self.pipe(tokens, at, keyword == "range")?;
        if keyword == "range" {
            self.range_depth += 1;
        }
        let (then, stop) = self.list()?;
        if keyword == "range" {
            self.range_depth -= 1;
        }
        let otherwise = match stop {
            None => {
                return Err((
                    self.end,
                    format!("unexpected EOF: {{{{{keyword}}}}} has no {{{{end}}}}"),
                ));
            }
            Some((word, _)) if word == "end" => Vec::new(),
            Some((_, else_at)) => {
                let rest = std::mem::take(&mut self.pending);
                match rest.first().map(|t| &t.tok) {
                    None => {
                        let (otherwise, stop) = self.list()?;
                        match stop {
                            Some((word, _)) if word == "end" => otherwise,
                            Some((_, at)) => {
                                return Err((at, "expected end; found {{else}}".into()));
                            }
                            None => {
                                return Err((
                                    self.end,
                                    format!("unexpected EOF: {{{{{keyword}}}}} has no {{{{end}}}}"),
                                ));
                            }
                        }
                    }
                    Some(Tok::Ident(word))
                        if (word == "if" || word == "with") && keyword != "range" =>
                    {
                        let word = word.clone();
                        vec![self.control(&word, &rest[1..], else_at)?]
                    }
                    Some(_) => return Err((rest[0].at, "unexpected words after else".into())),
                }
            }
        };
        self.vars.truncate(scope);
        let branch = Branch {
            pipe,
            then,
            otherwise,
        };
        Ok(match keyword {
            "if" => Node::If(branch),
            "with" => Node::With(branch),
            _ => Node::Range(branch),
        })
    }

    /// A whole pipeline, with its variable declaration.
    fn pipe(&mut self, tokens: &[Token], at: usize, range: bool) -> Result<Pipe, LexError> {
        let mut vars = Vec::new();
        let mut assign = false;
        let mut rest = tokens;
        let declared = |t: &[Token], n: usize| match (
            t.get(n).map(|t| &t.tok),
            t.get(n + 1).map(|t| &t.tok),
        ) {
            (Some(Tok::Var(name, f)), Some(Tok::Declare | Tok::Assign)) if f.is_empty() => {
                Some(name.clone())
            }
            _ => None,
        };
        if let Some(name) = declared(rest, 0) {
            assign = rest[1].tok == Tok::Assign;
            vars.push(name);
            rest = &rest[2..];
        } else if range
            && let (Some(Tok::Var(a, fa)), Some(Tok::Comma)) =
                (rest.first().map(|t| &t.tok), rest.get(1).map(|t| &t.tok))
            && fa.is_empty()
            && let Some(b) = declared(rest, 2)
        {
            assign = rest[3].tok == Tok::Assign;
            vars.push(a.clone());
            vars.push(b);
            rest = &rest[4..];
        }
        let mut cursor = 0;
        let pipe = self.commands(rest, &mut cursor, at, vars, assign)?;
        if let Some(extra) = rest.get(cursor) {
            return Err((extra.at, "unexpected \")\" in operand".into()));
        }
        Ok(pipe)
    }

    /// Commands separated by `|`, up to a `)` or the end of the words.
    fn commands(
        &mut self,
        tokens: &[Token],
        cursor: &mut usize,
        at: usize,
        vars: Vec<String>,
        assign: bool,
    ) -> Result<Pipe, LexError> {
        let mut cmds = Vec::new();
        loop {
            let cmd_at = tokens.get(*cursor).map_or(at, |t| t.at);
            let mut args = Vec::new();
            while let Some(token) = tokens.get(*cursor) {
                if matches!(token.tok, Tok::Pipe | Tok::RParen) {
                    break;
                }
                args.push(self.operand(tokens, cursor)?);
            }
            if args.is_empty() {
                return Err((cmd_at, "missing value for command".into()));
            }
            cmds.push(Cmd { args });
            match tokens.get(*cursor).map(|t| &t.tok) {
                Some(Tok::Pipe) => *cursor += 1,
                _ => break,
            }
        }
        for name in &vars {
            if assign {
                if !self.vars.contains(name) {
                    return Err((at, format!("undefined variable \"${name}\"")));
                }
            } else {
                self.vars.push(name.clone());
            }
        }
        Ok(Pipe {
            vars,
            assign,
            cmds,
            at,
        })
    }

    fn operand(&mut self, tokens: &[Token], cursor: &mut usize) -> Result<Arg, LexError> {
        let token = &tokens[*cursor];
        *cursor += 1;
        let at = token.at;
        let kind = match &token.tok {
            Tok::Dot => ArgKind::Dot,
            Tok::Field(f) => ArgKind::Field(f.clone()),
            Tok::Var(name, f) => {
                if !self.vars.contains(name) {
                    return Err((at, format!("undefined variable \"${name}\"")));
                }
                ArgKind::Var(name.clone(), f.clone())
            }
            Tok::Str(s) => ArgKind::Str(s.clone()),
            Tok::Int(n) => ArgKind::Int(*n),
            Tok::Float(f) => ArgKind::Float(*f),
            Tok::Ident(word) => match word.as_str() {
                "true" => ArgKind::Bool(true),
                "false" => ArgKind::Bool(false),
                "nil" => ArgKind::Nil,
                w if FUNCS.contains(&w) => ArgKind::Func(word.clone()),
                w if UNPLAYED.contains(&w) => {
                    return Err((
                        at,
                        format!("function {w:?} is not supported in these templates"),
                    ));
                }
                w => return Err((at, format!("function {w:?} not defined"))),
            },
            Tok::LParen => {
                let inner = self.commands(tokens, cursor, at, Vec::new(), false)?;
                match tokens.get(*cursor) {
                    Some(t) if t.tok == Tok::RParen => *cursor += 1,
                    _ => return Err((at, "unclosed left paren".into())),
                }
                let fields = match tokens.get(*cursor) {
                    Some(Token {
                        tok: Tok::Field(f),
                        spaced: false,
                        ..
                    }) => {
                        *cursor += 1;
                        f.clone()
                    }
                    _ => Vec::new(),
                };
                ArgKind::Sub(Box::new(inner), fields)
            }
            Tok::RParen => return Err((at, "unexpected \")\"".into())),
            Tok::Pipe => return Err((at, "unexpected \"|\"".into())),
            Tok::Declare | Tok::Assign => return Err((at, "unexpected assignment".into())),
            Tok::Comma => return Err((at, "unexpected \",\"".into())),
        };
        Ok(Arg { kind, at })
    }
}
