//! What a template refers to, for checks and lint: the input's variables it reads,
//! the partials it includes and the conditions it tests.

use super::expr::{Expr, Path};
use super::parse::{BlockKind, Helper, Node};
use super::{Pos, Template};

/// A variable of the input, read by the template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarRef {
    /// The input's top-level name.
    pub name: String,
    pub offset: usize,
    pub pos: Pos,
}

/// A `{{> name}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialRef {
    pub name: String,
    pub offset: usize,
    pub pos: Pos,
}

/// An `#if`, `#unless`, `#ifEquals` or `#unlessEquals` (or an `else if`).
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub kind: BlockKind,
    pub args: Vec<Expr>,
    pub offset: usize,
    pub pos: Pos,
}

impl Template {
    /// Every read of the input's top-level variables, in template order. Reads of a
    /// loop's item, of block parameters and of loop data are not the input's.
    pub fn variables(&self) -> Vec<VarRef> {
        let mut out = Vec::new();
        self.walk(&mut |node, depth, locals| {
            let mut note = |expr: &Expr| {
                if let Expr::Path(path) = expr
                    && let Some(name) = root_name(path, depth, locals)
                {
                    out.push(VarRef {
                        name,
                        offset: path.at,
                        pos: self.pos(path.at),
                    });
                }
            };
            match node {
                Node::Value(expr) => note(expr),
                Node::Helper(Helper::Json { value, .. }) => note(value),
                Node::Block(block) => block.params.iter().for_each(&mut note),
                Node::Partial(partial) => {
                    partial.context.iter().for_each(&mut note);
                    partial.hash.iter().for_each(|(_, e)| note(e));
                }
                Node::Text(_) | Node::Helper(_) => {}
            }
        });
        out
    }

    /// Every partial included, in template order.
    pub fn partials(&self) -> Vec<PartialRef> {
        let mut out = Vec::new();
        self.walk(&mut |node, _, _| {
            if let Node::Partial(p) = node {
                out.push(PartialRef {
                    name: p.name.clone(),
                    offset: p.at,
                    pos: self.pos(p.at),
                });
            }
        });
        out
    }

    /// Every condition tested, in template order.
    pub fn conditions(&self) -> Vec<Condition> {
        let mut out = Vec::new();
        self.walk(&mut |node, _, _| {
            if let Node::Block(block) = node
                && !matches!(block.kind, BlockKind::Each | BlockKind::With)
            {
                out.push(Condition {
                    kind: block.kind,
                    args: block.params.clone(),
                    offset: block.at,
                    pos: self.pos(block.at),
                });
            }
        });
        out
    }

    /// Whether the template names roles or places the history.
    pub fn uses_roles(&self) -> bool {
        let mut found = false;
        self.walk(&mut |node, _, _| {
            found |= matches!(node, Node::Helper(Helper::Role(_) | Helper::History));
        });
        found
    }

    /// Visits every node with its context depth (how many `#each`/`#with` bodies it
    /// is in) and the block parameters in scope.
    fn walk(&self, visit: &mut dyn FnMut(&Node, usize, &[String])) {
        walk_nodes(&self.nodes, 0, &mut Vec::new(), visit);
    }
}

fn walk_nodes(
    nodes: &[Node],
    depth: usize,
    locals: &mut Vec<String>,
    visit: &mut dyn FnMut(&Node, usize, &[String]),
) {
    for node in nodes {
        visit(node, depth, locals);
        if let Node::Block(block) = node {
            let changes_context = matches!(block.kind, BlockKind::Each | BlockKind::With);
            let before = locals.len();
            locals.extend(block.block_params.iter().cloned());
            walk_nodes(
                &block.body,
                depth + usize::from(changes_context),
                locals,
                visit,
            );
            locals.truncate(before);
            walk_nodes(&block.inverse, depth, locals, visit);
        }
    }
}

/// The input variable `path` reads, if it reads one.
fn root_name(path: &Path, depth: usize, locals: &[String]) -> Option<String> {
    if path.data {
        return match path.parts.as_slice() {
            [root, name, ..] if root == "root" => Some(name.clone()),
            _ => None,
        };
    }
    let first = path.parts.first()?;
    if path.up == 0 && locals.contains(first) {
        return None;
    }
    (path.up >= depth).then(|| first.clone())
}
