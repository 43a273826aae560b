//! Renders a parsed template in one pass over its tree.

use serde_json::Value as Json;

use super::Missing;
use super::funcs;
use super::parse::{Arg, ArgKind, Branch, Cmd, Node, Pipe};
use super::value::V;

type ExecError = (usize, String);

enum Flow {
    Normal,
    Break,
    Continue,
}

struct State<'a> {
    out: String,
    /// Variables in scope, innermost last; the first is `$`.
    vars: Vec<(String, V<'a>)>,
    zero: bool,
}

pub(super) fn render(nodes: &[Node], data: &Json, missing: Missing) -> Result<String, ExecError> {
    let root = V::from_json(data);
    let mut state = State {
        out: String::new(),
        vars: vec![(String::new(), root.clone())],
        zero: missing == Missing::Zero,
    };
    state.walk(nodes, &root)?;
    Ok(state.out)
}

impl<'a> State<'a> {
    fn walk(&mut self, nodes: &[Node], dot: &V<'a>) -> Result<Flow, ExecError> {
        for node in nodes {
            let flow = match node {
                Node::Text(text) => {
                    self.out.push_str(text);
                    Flow::Normal
                }
                Node::Print(pipe) => {
                    let value = self.pipe(pipe, dot, true)?;
                    if pipe.vars.is_empty() {
                        self.out.push_str(&value.printed());
                    }
                    Flow::Normal
                }
                Node::If(branch) => self.branch(branch, dot, false)?,
                Node::With(branch) => self.branch(branch, dot, true)?,
                Node::Range(branch) => self.range(branch, dot)?,
                Node::Break => Flow::Break,
                Node::Continue => Flow::Continue,
            };
            if !matches!(flow, Flow::Normal) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    fn branch(&mut self, branch: &Branch, dot: &V<'a>, with: bool) -> Result<Flow, ExecError> {
        let scope = self.vars.len();
        let value = self.pipe(&branch.pipe, dot, true)?;
        let flow = if value.truth() {
            let inner = if with { value } else { dot.clone() };
            self.walk(&branch.then, &inner)?
        } else {
            self.walk(&branch.otherwise, dot)?
        };
        self.vars.truncate(scope);
        Ok(flow)
    }

    fn range(&mut self, branch: &Branch, dot: &V<'a>) -> Result<Flow, ExecError> {
        let scope = self.vars.len();
        let value = self.pipe(&branch.pipe, dot, false)?;
        let items = funcs::range_items(&value).map_err(|e| (branch.pipe.at, e.to_string()))?;
        if items.is_empty() {
            let flow = self.walk(&branch.otherwise, dot)?;
            self.vars.truncate(scope);
            return Ok(flow);
        }
        for (key, element) in items {
            self.vars.truncate(scope);
            match branch.pipe.vars.as_slice() {
                [one] => self.set(one, element.clone(), branch.pipe.assign),
                [k, e] => {
                    self.set(k, key, branch.pipe.assign);
                    self.set(e, element.clone(), branch.pipe.assign);
                }
                _ => {}
            }
            if let Flow::Break = self.walk(&branch.then, &element)? {
                break;
            }
        }
        self.vars.truncate(scope);
        Ok(Flow::Normal)
    }

    fn set(&mut self, name: &str, value: V<'a>, assign: bool) {
        if assign && let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
            return;
        }
        self.vars.push((name.to_string(), value));
    }

    /// A pipeline's value; its variables are set when `bind` (a range sets its own).
    fn pipe(&mut self, pipe: &Pipe, dot: &V<'a>, bind: bool) -> Result<V<'a>, ExecError> {
        let mut value = None;
        for cmd in &pipe.cmds {
            value = Some(self.cmd(cmd, dot, value)?);
        }
        let value = value.unwrap_or(V::NoValue);
        if bind {
            for name in &pipe.vars {
                self.set(name, value.clone(), pipe.assign);
            }
        }
        Ok(value)
    }

    fn cmd(&mut self, cmd: &Cmd, dot: &V<'a>, last: Option<V<'a>>) -> Result<V<'a>, ExecError> {
        let first = &cmd.args[0];
        if let ArgKind::Func(name) = &first.kind {
            return self.call(name, &cmd.args[1..], dot, last, first.at);
        }
        if cmd.args.len() > 1 || last.is_some() {
            return Err((first.at, "can't give argument to non-function".into()));
        }
        self.arg(first, dot)
    }

    fn call(
        &mut self,
        name: &str,
        args: &[Arg],
        dot: &V<'a>,
        last: Option<V<'a>>,
        at: usize,
    ) -> Result<V<'a>, ExecError> {
        if name == "and" || name == "or" {
            if args.is_empty() && last.is_none() {
                return Err((
                    at,
                    format!("wrong number of args for {name}: want at least 1 got 0"),
                ));
            }
            let mut value = V::NoValue;
            for arg in args {
                value = self.arg(arg, dot)?;
                if value.truth() != (name == "and") {
                    return Ok(value);
                }
            }
            return Ok(last.unwrap_or(value));
        }
        let mut values = Vec::with_capacity(args.len() + 1);
        for arg in args {
            values.push(self.arg(arg, dot)?);
        }
        values.extend(last);
        funcs::call(name, values).map_err(|e| (at, format!("error calling {name}: {e}")))
    }

    fn arg(&mut self, arg: &Arg, dot: &V<'a>) -> Result<V<'a>, ExecError> {
        let (base, fields) = match &arg.kind {
            ArgKind::Dot => return Ok(dot.clone()),
            ArgKind::Field(fields) => (dot.clone(), fields),
            ArgKind::Var(name, fields) => {
                let found = self.vars.iter().rev().find(|(n, _)| n == name);
                (found.map_or(V::NoValue, |(_, v)| v.clone()), fields)
            }
            ArgKind::Func(name) => return self.call(name, &[], dot, None, arg.at),
            ArgKind::Str(s) => return Ok(V::Str(s.clone().into())),
            ArgKind::Int(n) => return Ok(V::Int(*n)),
            ArgKind::Float(f) => return Ok(V::Float(*f)),
            ArgKind::Bool(b) => return Ok(V::Bool(*b)),
            ArgKind::Nil => return Ok(V::Nil),
            ArgKind::Sub(pipe, fields) => (self.pipe(pipe, dot, true)?, fields),
        };
        fields.iter().try_fold(base, |v, name| {
            funcs::field(&v, name, self.zero).map_err(|e| (arg.at, e.to_string()))
        })
    }
}
