//! The words of a tag: a helper or path, its arguments, `key=value` pairs and
//! `as |a b|` block parameters.

use serde_json::Value as Json;

use super::{SyntaxError, SyntaxErrorKind};

/// A value a tag names: a path into the data, or a literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Path(Path),
    Literal(Json),
}

/// `name.x`, `this`, `../up`, `@index`, `@root.name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// How many `../` lead it.
    pub up: usize,
    /// `@name`: loop data (`@index`, `@key`, …) or `@root`.
    pub data: bool,
    /// The segments after `this`, `../` and `@`.
    pub parts: Vec<String>,
    /// Byte offset in the template.
    pub at: usize,
}

impl Path {
    /// `this` (or `.`): the current value itself.
    pub fn is_this(&self) -> bool {
        !self.data && self.parts.is_empty()
    }
}

/// A tag's words, read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Call {
    pub head: Expr,
    pub params: Vec<Expr>,
    pub hash: Vec<(String, Expr)>,
    pub block_params: Vec<String>,
}

/// Reads the words of a tag that start at byte `at` of the template.
pub(super) fn read_call(words: &str, at: usize) -> Result<Call, SyntaxError> {
    let mut reader = Reader {
        text: words,
        pos: 0,
        base: at,
    };
    let head = reader
        .next_expr()?
        .ok_or_else(|| SyntaxError::new(at, SyntaxErrorKind::Empty))?;
    let mut call = Call {
        head,
        params: Vec::new(),
        hash: Vec::new(),
        block_params: Vec::new(),
    };
    reader.arguments(&mut call)?;
    Ok(call)
}

/// Reads a partial's words: its name (any word, or a quoted string) and arguments.
pub(super) fn read_partial(words: &str, at: usize) -> Result<(String, Call), SyntaxError> {
    let mut reader = Reader {
        text: words,
        pos: 0,
        base: at,
    };
    let name = match reader.next_expr() {
        Ok(Some(Expr::Literal(Json::String(name)))) => name,
        _ => {
            let len = words.find(char::is_whitespace).unwrap_or(words.len());
            reader.pos = len;
            words[..len].to_string()
        }
    };
    if name.is_empty() {
        return Err(SyntaxError::new(at, SyntaxErrorKind::Empty));
    }
    let mut call = Call {
        head: Expr::Literal(Json::String(name.clone())),
        params: Vec::new(),
        hash: Vec::new(),
        block_params: Vec::new(),
    };
    reader.arguments(&mut call)?;
    Ok((name, call))
}

struct Reader<'t> {
    text: &'t str,
    pos: usize,
    base: usize,
}

impl<'t> Reader<'t> {
    /// Arguments, then `key=value` pairs and `as |…|` block parameters, to the end.
    fn arguments(&mut self, call: &mut Call) -> Result<(), SyntaxError> {
        loop {
            self.skip_space();
            if self.rest().is_empty() {
                return Ok(());
            }
            if self.rest().starts_with("as |") {
                self.pos += 4;
                call.block_params = self.block_params()?;
                continue;
            }
            if let Some(key) = self.hash_key() {
                let value = self.next_expr()?.ok_or_else(|| self.error("a value"))?;
                call.hash.push((key, value));
                continue;
            }
            match self.next_expr()? {
                Some(expr) if call.hash.is_empty() => call.params.push(expr),
                Some(_) => return Err(self.error("`key=value` (arguments come before pairs)")),
                None => return Err(self.error("an argument")),
            }
        }
    }

    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn at(&self) -> usize {
        self.base + self.pos
    }

    fn error(&self, expected: &str) -> SyntaxError {
        let found: String = self.rest().chars().take(20).collect();
        SyntaxError::new(
            self.at(),
            SyntaxErrorKind::Expected {
                expected: expected.to_string(),
                found,
            },
        )
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// `key=` ahead: consumes it and returns the key.
    fn hash_key(&mut self) -> Option<String> {
        let rest = self.rest();
        let len = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        if len > 0 && rest[len..].starts_with('=') {
            let key = rest[..len].to_string();
            self.pos += len + 1;
            return Some(key);
        }
        None
    }

    fn block_params(&mut self) -> Result<Vec<String>, SyntaxError> {
        let rest = self.rest();
        let end = rest
            .find('|')
            .ok_or_else(|| self.error("`|` closing the block parameters"))?;
        let names: Vec<String> = rest[..end].split_whitespace().map(str::to_string).collect();
        if names.is_empty() || !names.iter().all(|n| n.chars().all(is_name_char)) {
            return Err(self.error("block parameter names"));
        }
        self.pos += end + 1;
        Ok(names)
    }

    fn next_expr(&mut self) -> Result<Option<Expr>, SyntaxError> {
        self.skip_space();
        let at = self.at();
        let rest = self.rest();
        let Some(first) = rest.chars().next() else {
            return Ok(None);
        };
        if first == '"' || first == '\'' {
            let close = rest[1..]
                .find(first)
                .ok_or_else(|| self.error("a closing quote"))?;
            let text = rest[1..=close].to_string();
            self.pos += close + 2;
            return Ok(Some(Expr::Literal(Json::String(text))));
        }
        if first == '(' {
            return Err(SyntaxError::new(at, SyntaxErrorKind::Subexpression));
        }
        let len = word_len(rest);
        if len == 0 {
            return Err(self.error("a name or a value"));
        }
        let word = &rest[..len];
        self.pos += len;
        Ok(Some(word_expr(word, at)?))
    }
}

/// The length of the word at the start of `s`: up to whitespace, or a `[…]` segment.
fn word_len(s: &str) -> usize {
    let mut in_brackets = false;
    for (i, c) in s.char_indices() {
        match c {
            '[' => in_brackets = true,
            ']' => in_brackets = false,
            c if !in_brackets && (c.is_whitespace() || c == '(' || c == ')' || c == '=') => {
                return i;
            }
            _ => {}
        }
    }
    s.len()
}

fn word_expr(word: &str, at: usize) -> Result<Expr, SyntaxError> {
    let literal = match word {
        "true" => Some(Json::Bool(true)),
        "false" => Some(Json::Bool(false)),
        "null" | "undefined" => Some(Json::Null),
        _ if word.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
            let number: Json = serde_json::from_str(word)
                .map_err(|_| SyntaxError::new(at, SyntaxErrorKind::BadPath(word.to_string())))?;
            Some(number)
        }
        _ => None,
    };
    if let Some(value) = literal {
        return Ok(Expr::Literal(value));
    }
    read_path(word, at).map(Expr::Path)
}

fn read_path(word: &str, at: usize) -> Result<Path, SyntaxError> {
    let bad = || SyntaxError::new(at, SyntaxErrorKind::BadPath(word.to_string()));
    let mut rest = word;
    let mut up = 0;
    while let Some(r) = rest.strip_prefix("../") {
        up += 1;
        rest = r;
    }
    let data = rest.starts_with('@');
    if data {
        rest = &rest[1..];
    }
    let mut parts = Vec::new();
    for (i, segment) in split_segments(rest).into_iter().enumerate() {
        let segment = segment.ok_or_else(bad)?;
        let is_this = segment == "this" || segment == ".";
        if i == 0 && is_this && !data {
            continue;
        }
        if segment.is_empty() || is_this || segment == ".." {
            return Err(bad());
        }
        parts.push(segment);
    }
    if data && parts.is_empty() {
        return Err(bad());
    }
    Ok(Path {
        up,
        data,
        parts,
        at,
    })
}

/// `a.b.[c d]` → `a`, `b`, `c d` (None for a malformed segment); `.` alone is `this`.
fn split_segments(path: &str) -> Vec<Option<String>> {
    if path == "." || path == "this" {
        return vec![Some("this".into())];
    }
    let mut out = Vec::new();
    let mut rest = path;
    loop {
        if let Some(inner) = rest.strip_prefix('[') {
            let Some(close) = inner.find(']') else {
                return vec![None];
            };
            out.push(Some(inner[..close].to_string()));
            rest = &inner[close + 1..];
        } else {
            let end = rest.find(['.', '/']).unwrap_or(rest.len());
            let segment = &rest[..end];
            let valid = segment.chars().all(is_name_char);
            out.push(valid.then(|| segment.to_string()));
            rest = &rest[end..];
        }
        match rest.chars().next() {
            None => return out,
            Some('.' | '/') => rest = &rest[1..],
            Some(_) => return vec![None],
        }
    }
}

fn is_name_char(c: char) -> bool {
    !c.is_whitespace() && !"=~}{()[]|\"'.!/#^>&@`,;<".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(word: &str) -> Path {
        match read_call(word, 0).expect("reads").head {
            Expr::Path(p) => p,
            other => panic!("not a path: {other:?}"),
        }
    }

    #[test]
    fn paths_read_up_data_and_segments() {
        let p = path("../../a.b.[c d]");
        assert_eq!(
            (p.up, p.data, p.parts),
            (2, false, vec!["a".into(), "b".into(), "c d".into()])
        );
        assert!(path("this").is_this());
        assert_eq!(path("this.name").parts, ["name"]);
        assert_eq!(path("@index").parts, ["index"]);
        assert!(path("@root.x").data);
    }

    #[test]
    fn arguments_literals_pairs_and_block_parameters() {
        let call = read_call(r#"json items indent=2"#, 0).expect("reads");
        assert_eq!(call.params.len(), 1);
        assert_eq!(call.hash[0].0, "indent");
        assert_eq!(call.hash[0].1, Expr::Literal(Json::from(2)));
        let call = read_call("ifEquals a 'x' ", 0).expect("reads");
        assert_eq!(call.params[1], Expr::Literal(Json::from("x")));
        let call = read_call("each items as |item i|", 0).expect("reads");
        assert_eq!(call.block_params, ["item", "i"]);
        let call = read_call("f -1.5 null true", 0).expect("reads");
        assert_eq!(call.params[0], Expr::Literal(Json::from(-1.5)));
    }

    #[test]
    fn subexpressions_and_bad_words_are_refused_at_their_place() {
        assert_eq!(read_call("x (y)", 10).expect_err("sub").offset, 12);
        assert!(read_call("a..b", 0).is_err());
        assert!(read_call("x y=", 0).is_err());
    }
}
