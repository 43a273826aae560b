//! Tokens into the tree of a template: text, values, helpers, blocks and partials,
//! every block closed by its own name.

use serde_json::Value as Json;

use super::expr::{Call, Expr, read_call, read_partial};
use super::lex::{Tag, TagKind, Token};
use super::{SyntaxError, SyntaxErrorKind};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Text(String),
    /// `{{path}}` or `{{"literal"}}`.
    Value(Expr),
    /// `{{json x}}`, `{{role "system"}}`, `{{history}}`.
    Helper(Helper),
    Block(Block),
    Partial(Partial),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Helper {
    Json { value: Expr, indent: Option<usize> },
    Role(String),
    History,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    If,
    Unless,
    Each,
    With,
    IfEquals,
    UnlessEquals,
}

impl BlockKind {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "if" => BlockKind::If,
            "unless" => BlockKind::Unless,
            "each" => BlockKind::Each,
            "with" => BlockKind::With,
            "ifEquals" => BlockKind::IfEquals,
            "unlessEquals" => BlockKind::UnlessEquals,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            BlockKind::If => "if",
            BlockKind::Unless => "unless",
            BlockKind::Each => "each",
            BlockKind::With => "with",
            BlockKind::IfEquals => "ifEquals",
            BlockKind::UnlessEquals => "unlessEquals",
        }
    }

    fn arity(self) -> usize {
        match self {
            BlockKind::IfEquals | BlockKind::UnlessEquals => 2,
            _ => 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Block {
    pub kind: BlockKind,
    pub params: Vec<Expr>,
    pub block_params: Vec<String>,
    pub body: Vec<Node>,
    /// The `{{else}}` part (an `{{else if}}` is a block of its own in here).
    pub inverse: Vec<Node>,
    pub at: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Partial {
    pub name: String,
    pub context: Option<Expr>,
    pub hash: Vec<(String, Expr)>,
    pub at: usize,
}

/// A block being read: its chain of `if … else if …` heads and the final `else`.
struct Open {
    /// The name its `{{/name}}` must repeat.
    name: String,
    at: usize,
    chain: Vec<Block>,
    otherwise: Option<Vec<Node>>,
}

impl Open {
    fn nodes(&mut self) -> &mut Vec<Node> {
        match &mut self.otherwise {
            Some(nodes) => nodes,
            None => match self.chain.last_mut() {
                Some(block) => &mut block.body,
                None => unreachable!("an open block has its head"),
            },
        }
    }

    /// The whole chain, each `else if` the `else` of the one before.
    fn close(self) -> Block {
        let mut inverse = self.otherwise.unwrap_or_default();
        let mut chain = self.chain;
        while let Some(mut block) = chain.pop() {
            block.inverse = inverse;
            if chain.is_empty() {
                return block;
            }
            inverse = vec![Node::Block(block)];
        }
        unreachable!("an open block has its head")
    }
}

/// Builds the tree; every problem found is reported, not only the first.
pub(super) fn parse_tokens(tokens: Vec<Token>) -> Result<Vec<Node>, Vec<SyntaxError>> {
    let mut root: Vec<Node> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut errors = Vec::new();
    for token in tokens {
        let node = match token {
            Token::Text(text) => Some(Node::Text(text)),
            Token::Tag(tag) => match tag_node(tag, &mut open) {
                Ok(node) => node,
                Err(e) => {
                    errors.push(e);
                    None
                }
            },
        };
        if let Some(node) = node {
            match open.last_mut() {
                Some(block) => block.nodes().push(node),
                None => root.push(node),
            }
        }
    }
    for block in open.into_iter().rev() {
        errors.push(SyntaxError::new(
            block.at,
            SyntaxErrorKind::NeverClosed(block.name),
        ));
    }
    if errors.is_empty() {
        Ok(root)
    } else {
        errors.sort_by_key(|e| e.offset);
        Err(errors)
    }
}

/// The node a tag makes, if any: opening and `else` tags change `open` instead, and
/// a closing tag turns the innermost open block into its node.
fn tag_node(tag: Tag, open: &mut Vec<Open>) -> Result<Option<Node>, SyntaxError> {
    match tag.kind {
        TagKind::Comment => Ok(None),
        TagKind::Value => value_node(&tag).map(Some),
        TagKind::Partial => partial_node(&tag).map(Some),
        TagKind::Open | TagKind::OpenInverse => {
            let word = tag.inner.split_whitespace().next().unwrap_or_default();
            let (block, refused) = match block_head(&tag) {
                Ok(block) => (block, None),
                // Still opened, so that its closing tag is not reported as well.
                Err(e) => (stand_in(&tag), Some(e)),
            };
            // `{{^x}}…{{/x}}` (block_head made it an `unless`) closes by its word.
            let name = match tag.kind {
                TagKind::OpenInverse => word.to_string(),
                _ if refused.is_some() => word.to_string(),
                _ => block.kind.name().to_string(),
            };
            open.push(Open {
                name,
                at: tag.at,
                chain: vec![block],
                otherwise: None,
            });
            refused.map_or(Ok(None), Err)
        }
        TagKind::Else => {
            let Some(current) = open.last_mut() else {
                return Err(SyntaxError::new(tag.at, SyntaxErrorKind::ElseOutside));
            };
            if current.otherwise.is_some() {
                return Err(SyntaxError::new(tag.at, SyntaxErrorKind::SecondElse));
            }
            if tag.inner.is_empty() {
                current.otherwise = Some(Vec::new());
            } else {
                current.chain.push(block_head(&tag)?);
            }
            Ok(None)
        }
        TagKind::Close => {
            let name = tag.inner.trim();
            let Some(current) = open.pop() else {
                return Err(SyntaxError::new(
                    tag.at,
                    SyntaxErrorKind::CloseWithoutOpen(name.to_string()),
                ));
            };
            if current.name != name {
                let error = SyntaxErrorKind::Mismatched {
                    closing: name.to_string(),
                    open: current.name.clone(),
                    open_at: current.at,
                };
                open.push(current);
                return Err(SyntaxError::new(tag.at, error));
            }
            Ok(Some(Node::Block(current.close())))
        }
    }
}

/// The block a refused opening tag stands for until its close.
fn stand_in(tag: &Tag) -> Block {
    Block {
        kind: BlockKind::If,
        params: vec![Expr::Literal(Json::Null)],
        block_params: Vec::new(),
        body: Vec::new(),
        inverse: Vec::new(),
        at: tag.at,
    }
}

fn block_head(tag: &Tag) -> Result<Block, SyntaxError> {
    let call = read_call(&tag.inner, tag.inner_at)?;
    let (kind, params) = match (&call.head, tag.kind) {
        // `{{^items}}`: the path is the condition.
        (Expr::Path(_), TagKind::OpenInverse) if call.params.is_empty() => {
            (BlockKind::Unless, vec![call.head.clone()])
        }
        (Expr::Path(p), _) if p.up == 0 && !p.data && p.parts.len() == 1 => {
            let name = &p.parts[0];
            let kind = BlockKind::named(name).ok_or_else(|| {
                SyntaxError::new(tag.inner_at, SyntaxErrorKind::UnknownBlock(name.clone()))
            })?;
            (kind, call.params.clone())
        }
        _ => {
            return Err(SyntaxError::new(
                tag.inner_at,
                SyntaxErrorKind::UnknownBlock(tag.inner.clone()),
            ));
        }
    };
    if params.len() != kind.arity() {
        return Err(SyntaxError::new(
            tag.inner_at,
            SyntaxErrorKind::Arity {
                helper: kind.name().into(),
                wanted: kind.arity(),
                found: params.len(),
            },
        ));
    }
    if !call.block_params.is_empty() && !matches!(kind, BlockKind::Each | BlockKind::With) {
        return Err(SyntaxError::new(
            tag.inner_at,
            SyntaxErrorKind::Unsupported(format!("block parameters on `{}`", kind.name())),
        ));
    }
    Ok(Block {
        kind,
        params,
        block_params: call.block_params,
        body: Vec::new(),
        inverse: Vec::new(),
        at: tag.at,
    })
}

fn value_node(tag: &Tag) -> Result<Node, SyntaxError> {
    let Call {
        head, params, hash, ..
    } = read_call(&tag.inner, tag.inner_at)?;
    let helper_name = match &head {
        Expr::Path(p) if p.up == 0 && !p.data && p.parts.len() == 1 => Some(p.parts[0].as_str()),
        _ => None,
    };
    let wrong = |wanted: usize| {
        SyntaxError::new(
            tag.inner_at,
            SyntaxErrorKind::Arity {
                helper: helper_name.unwrap_or_default().to_string(),
                wanted,
                found: params.len(),
            },
        )
    };
    let helper = match helper_name {
        Some("json") => {
            let [value] = params.as_slice() else {
                return Err(wrong(1));
            };
            let indent = match hash.iter().find(|(k, _)| k == "indent") {
                None => None,
                Some((_, Expr::Literal(Json::Number(n))))
                    if n.as_u64().is_some_and(|n| n <= 16) =>
                {
                    n.as_u64().map(|n| n as usize)
                }
                Some(_) => {
                    return Err(SyntaxError::new(
                        tag.inner_at,
                        SyntaxErrorKind::Unsupported("an `indent` other than 0 to 16".into()),
                    ));
                }
            };
            Helper::Json {
                value: value.clone(),
                indent,
            }
        }
        Some("role") => match params.as_slice() {
            [Expr::Literal(Json::String(role))] if !role.trim().is_empty() => {
                Helper::Role(role.clone())
            }
            _ => return Err(SyntaxError::new(tag.inner_at, SyntaxErrorKind::RoleName)),
        },
        Some("history") if params.is_empty() => Helper::History,
        Some("history") => return Err(wrong(0)),
        Some(name) if !params.is_empty() || !hash.is_empty() => {
            return Err(SyntaxError::new(
                tag.inner_at,
                SyntaxErrorKind::UnknownHelper(name.to_string()),
            ));
        }
        _ if !params.is_empty() || !hash.is_empty() => {
            return Err(SyntaxError::new(
                tag.inner_at,
                SyntaxErrorKind::UnknownHelper(tag.inner.clone()),
            ));
        }
        _ => return Ok(Node::Value(head)),
    };
    Ok(Node::Helper(helper))
}

fn partial_node(tag: &Tag) -> Result<Node, SyntaxError> {
    let (name, call) = read_partial(&tag.inner, tag.inner_at)?;
    if call.params.len() > 1 {
        return Err(SyntaxError::new(
            tag.inner_at,
            SyntaxErrorKind::Arity {
                helper: format!("> {name}"),
                wanted: 1,
                found: call.params.len(),
            },
        ));
    }
    Ok(Node::Partial(Partial {
        name,
        context: call.params.into_iter().next(),
        hash: call.hash,
        at: tag.at,
    }))
}
