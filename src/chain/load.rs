//! A chain file read and checked, each problem at its `FILE:LINE:COL`.

use std::collections::HashMap;
use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{
    Checker, Diagnostic, Loaded, Node, Pos, Rejected, UnknownKeys, Value, finish,
    parse_by_extension, suggest,
};

use super::refs::{Bound, Ref, parse_text};
use super::{Binding, Branch, Chain, DEFAULT_MAX_STEPS, Next, PromptRef, Step, Target};
use super::{graph, when};

/// Where a step goes, as written: step names not yet looked up.
enum RawNext {
    Following,
    Goto(String, Pos),
    Branches(Vec<(Option<when::When>, String, Pos)>),
}

/// Reads and checks the chain file at `path`.
pub(crate) fn load_chain(path: &Path) -> Result<Loaded<Chain>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let root = parse_by_extension(path, &text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    match read(&mut cx, &root, path) {
        Some(chain) => {
            check_graph(&mut cx, &chain);
            finish(chain, cx.diagnostics)
        }
        None => Err(Rejected(cx.diagnostics)),
    }
}

fn read(cx: &mut Checker, root: &Node, path: &Path) -> Option<Chain> {
    let mut f = cx.map(root, "the chain")?;
    let name = match f.get("chain") {
        Some(n) => cx.nonempty_string(n, "chain"),
        None => {
            cx.error(root.pos, "missing key `chain` (the chain's name)");
            None
        }
    };
    let max_steps = f.get("max_steps").map_or(Some(DEFAULT_MAX_STEPS), |n| {
        cx.positive_integer(n, "max_steps")
    });
    let inputs = f
        .get("inputs")
        .map_or_else(IndexMap::new, |n| inputs(cx, n));
    let raw = match f.get("steps") {
        Some(n) => steps(cx, n),
        None => {
            cx.error(root.pos, "missing key `steps`");
            Vec::new()
        }
    };
    f.allow(&["description"]);
    cx.unknown_keys(&f, "the chain", UnknownKeys::Error);
    let ids: Vec<String> = raw.iter().map(|(s, _)| s.id.clone()).collect();
    let resolve = |cx: &mut Checker, name: &str, pos: Pos, what: &str| -> Target {
        if name == "end" {
            return Target::End;
        }
        if let Some(i) = ids.iter().position(|id| id == name) {
            return Target::Step(i);
        }
        let hint = suggest(name, ids.iter().map(String::as_str).chain(["end"]));
        cx.error(
            pos,
            format!(
                "{what}: no step is called `{name}`{hint} (a `goto` names a step's `id`, or `end`)"
            ),
        );
        Target::End
    };
    let mut steps = Vec::new();
    for (i, (mut step, next)) in raw.into_iter().enumerate() {
        step.next = match next {
            RawNext::Following => Next::Following,
            RawNext::Goto(name, pos) => {
                Next::Goto(resolve(cx, &name, pos, &format!("steps[{i}].next")), pos)
            }
            RawNext::Branches(branches) => Next::Branches(
                branches
                    .into_iter()
                    .enumerate()
                    .map(|(b, (when, goto, pos))| Branch {
                        when,
                        goto: resolve(cx, &goto, pos, &format!("steps[{i}].next[{b}].goto")),
                        pos,
                    })
                    .collect(),
            ),
        };
        steps.push(step);
    }
    Some(Chain {
        path: path.to_path_buf(),
        name: name?,
        max_steps: max_steps?,
        inputs,
        steps,
    })
}

fn inputs(cx: &mut Checker, node: &Node) -> IndexMap<String, Option<Json>> {
    let mut found = IndexMap::new();
    if cx.map(node, "inputs").is_none() {
        return found;
    }
    if let Value::Map(entries) = &node.value {
        for (key, value) in entries {
            let default = match value.value {
                Value::Null => None,
                _ => Some(value.to_json()),
            };
            found.insert(key.name.clone(), default);
        }
    }
    found
}

fn steps(cx: &mut Checker, node: &Node) -> Vec<(Step, RawNext)> {
    let Some(items) = cx.list(node, "steps") else {
        return Vec::new();
    };
    if items.is_empty() {
        cx.error(node.pos, "steps: a chain has at least one step");
    }
    let mut seen: HashMap<String, Pos> = HashMap::new();
    let mut found = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let what = format!("steps[{i}]");
        let Some(step) = step(cx, item, &what) else {
            continue;
        };
        if step.0.id == "end" {
            cx.error(
                step.0.pos,
                format!("{what}.id: `end` names the end of the chain; call the step otherwise"),
            );
        } else if let Some(first) = seen.get(&step.0.id) {
            cx.error(
                step.0.pos,
                format!(
                    "{what}.id: step `{}` is already defined at line {}",
                    step.0.id, first.line
                ),
            );
        } else {
            seen.insert(step.0.id.clone(), step.0.pos);
        }
        found.push(step);
    }
    found
}

fn step(cx: &mut Checker, node: &Node, what: &str) -> Option<(Step, RawNext)> {
    let mut f = cx.map(node, what)?;
    let required =
        |f: &mut crate::doc::Fields<'_>, cx: &mut Checker, key: &'static str| match f.get(key) {
            Some(n) => cx
                .nonempty_string(n, &format!("{what}.{key}"))
                .map(|s| (s, n.pos)),
            None => {
                cx.error(node.pos, format!("{what}: missing key `{key}`"));
                None
            }
        };
    let id = required(&mut f, cx, "id");
    let prompt =
        required(&mut f, cx, "prompt").and_then(|(text, pos)| prompt_ref(cx, &text, pos, what));
    let with = f
        .get("with")
        .map_or_else(Vec::new, |n| bindings(cx, n, what));
    let next = f
        .get("next")
        .map_or(Some(RawNext::Following), |n| next(cx, n, what));
    f.allow(&["description"]);
    cx.unknown_keys(&f, what, UnknownKeys::Error);
    // With its id, a step is kept even when other parts are wrong (they are
    // reported, and the chain refused), so that the `goto`s naming it still check.
    let (id, pos) = id?;
    let prompt = prompt.unwrap_or(PromptRef {
        id: String::new(),
        version: None,
        pos,
    });
    Some((
        Step {
            id,
            pos,
            prompt,
            with,
            next: Next::Following,
        },
        next.unwrap_or(RawNext::Following),
    ))
}

/// `ID` or `ID@VERSION` (`@v3` reads as `@3`).
fn prompt_ref(cx: &mut Checker, text: &str, pos: Pos, what: &str) -> Option<PromptRef> {
    let Some((id, version)) = text.rsplit_once('@') else {
        return Some(PromptRef {
            id: text.to_string(),
            version: None,
            pos,
        });
    };
    let digits = version.strip_prefix('v').unwrap_or(version);
    match digits.parse::<u64>() {
        Ok(v) if v > 0 && !id.is_empty() => Some(PromptRef {
            id: id.to_string(),
            version: Some(v),
            pos,
        }),
        _ => {
            cx.error(
                pos,
                format!(
                    "{what}.prompt: `{text}` is not ID or ID@VERSION (a version is a number from 1)"
                ),
            );
            None
        }
    }
}

fn bindings(cx: &mut Checker, node: &Node, what: &str) -> Vec<Binding> {
    let mut found = Vec::new();
    if cx.map(node, &format!("{what}.with")).is_none() {
        return found;
    }
    let Value::Map(entries) = &node.value else {
        return found;
    };
    for (key, value) in entries {
        let bound = match &value.value {
            Value::Str(text) => match parse_text(text) {
                Ok(pieces) => Bound::Text(pieces),
                Err(err) => {
                    cx.error(value.pos, format!("{what}.with.{}: {err}", key.name));
                    continue;
                }
            },
            _ => Bound::Literal(value.to_json()),
        };
        found.push(Binding {
            slot: key.name.clone(),
            pos: key.pos,
            value: bound,
            value_pos: value.pos,
        });
    }
    found
}

fn next(cx: &mut Checker, node: &Node, what: &str) -> Option<RawNext> {
    if let Value::Str(name) = &node.value {
        return Some(RawNext::Goto(name.clone(), node.pos));
    }
    let Value::Seq(items) = &node.value else {
        cx.error(
            node.pos,
            format!(
                "{what}.next: expected a step id, `end` or a list of branches, found {}",
                node.kind()
            ),
        );
        return None;
    };
    let mut branches = Vec::new();
    let mut ok = true;
    for (b, item) in items.iter().enumerate() {
        let at = format!("{what}.next[{b}]");
        let Some(mut f) = cx.map(item, &at) else {
            ok = false;
            continue;
        };
        let condition = f
            .get("when")
            .map(|n| when::read(cx, n, &format!("{at}.when")));
        let goto = match f.get("goto") {
            Some(n) => cx
                .nonempty_string(n, &format!("{at}.goto"))
                .map(|s| (s, n.pos)),
            None => {
                cx.error(item.pos, format!("{at}: missing key `goto`"));
                None
            }
        };
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
        // A branch whose condition is wrong is kept, so its `goto` is checked too; the
        // chain is refused for the condition.
        match goto {
            Some((goto, pos)) => branches.push((condition.flatten(), goto, pos)),
            None => ok = false,
        }
    }
    if items.is_empty() {
        cx.error(node.pos, format!("{what}.next: an empty list of branches"));
        ok = false;
    }
    ok.then_some(RawNext::Branches(branches))
}

/// The checks on the whole: no cycle, every step reached, every reference answered.
fn check_graph(cx: &mut Checker, chain: &Chain) {
    let cycles = graph::cycles(chain);
    for cycle in &cycles {
        cx.error(
            cycle.pos,
            format!(
                "the steps make a cycle: {} (a chain's steps run at most once each)",
                cycle.steps.join(" -> ")
            ),
        );
    }
    if !cycles.is_empty() {
        return;
    }
    let before = graph::always_before(chain);
    let errors_so_far = cx.diagnostics.has_errors();
    for (i, step) in chain.steps.iter().enumerate() {
        if before[i].is_none() && !errors_so_far {
            cx.warning(
                step.pos,
                format!("step `{}` is never reached: no `goto` leads to it", step.id),
            );
        }
        for binding in &step.with {
            for r in binding.value.refs() {
                check_ref(cx, chain, i, before[i].as_deref(), binding, r);
            }
        }
    }
}

fn check_ref(
    cx: &mut Checker,
    chain: &Chain,
    at: usize,
    before: Option<&[bool]>,
    binding: &Binding,
    r: &Ref,
) {
    let step = &chain.steps[at];
    let what = format!("step `{}`, slot `{}`", step.id, binding.slot);
    match r {
        Ref::Input(name) => {
            if !chain.inputs.contains_key(name) {
                let hint = suggest(name, chain.inputs.keys().map(String::as_str));
                cx.error(
                    binding.value_pos,
                    format!("{what}: {r}: the chain has no input `{name}`{hint} (declare it under `inputs`)"),
                );
            }
        }
        Ref::Output { step: from, .. } => {
            let found = chain.steps.iter().position(|s| &s.id == from);
            match found {
                None => {
                    let hint = suggest(from, chain.steps.iter().map(|s| s.id.as_str()));
                    cx.error(
                        binding.value_pos,
                        format!("{what}: {r}: no step is called `{from}`{hint}"),
                    );
                }
                Some(j) if j == at => {
                    cx.error(
                        binding.value_pos,
                        format!("{what}: {r}: a step cannot read its own output"),
                    );
                }
                Some(j) if before.is_some_and(|b| !b[j]) => {
                    cx.error(
                        binding.value_pos,
                        format!("{what}: {r}: step `{from}` does not run on every path to `{}`, so its output may not be there", step.id),
                    );
                }
                Some(_) => {}
            }
        }
    }
}
