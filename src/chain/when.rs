//! A branch's condition on a step's output: a regex, a JSON pointer (with a value it
//! must equal), a built-in check's score; every one given must hold.

use regex::Regex;
use serde_json::Value as Json;

use crate::conversation::{EvalInput, History};
use crate::doc::{Checker, Node, UnknownKeys};
use crate::pack::builtin::{self, Judge};

use super::refs::{check_pointer, output_json, plain_text};

pub(crate) struct When {
    /// The value judged is the one at this pointer of the output read as JSON; without
    /// it, the output text.
    pub pointer: Option<String>,
    pub matches: Option<Regex>,
    pub equals: Option<Json>,
    pub eval: Option<EvalCondition>,
}

pub(crate) struct EvalCondition {
    /// The check's name as written.
    pub kind: String,
    pub judge: Judge,
    pub min_score: f64,
}

/// Whether a condition held, and why, in words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub holds: bool,
    pub reason: String,
}

/// A built-in check that could not judge the output.
#[derive(Debug, Clone, thiserror::Error)]
#[error("check `{kind}` cannot judge the output: {detail}")]
pub(crate) struct JudgeFailed {
    pub kind: String,
    pub detail: String,
}

impl When {
    /// Judges `output`, the answer to `messages` of a step given `variables`.
    pub(crate) fn judge(
        &self,
        output: &str,
        messages: &History,
        variables: &Json,
    ) -> Result<Verdict, JudgeFailed> {
        let mut reasons = Vec::new();
        let subject = match &self.pointer {
            None => Json::String(output.to_string()),
            Some(pointer) => match output_json(output).and_then(|j| j.pointer(pointer).cloned()) {
                Some(Json::Null) | None => {
                    return Ok(Verdict {
                        holds: false,
                        reason: format!("`{pointer}` has no value"),
                    });
                }
                Some(found) => {
                    if self.equals.is_none() {
                        reasons.push(format!("`{pointer}` is set"));
                    }
                    found
                }
            },
        };
        let text = plain_text(&subject);
        let mut holds = true;
        if let Some(regex) = &self.matches {
            holds &= regex.is_match(&text);
            reasons.push(format!("matches `{}`", regex.as_str()));
        }
        if let Some(expected) = &self.equals {
            let same = match &self.pointer {
                Some(_) => crate::diff::same(&subject, expected),
                None => text.trim() == plain_text(expected),
            };
            holds &= same;
            let what = self.pointer.as_deref().unwrap_or("the output");
            reasons.push(format!("`{what}` equals {expected}"));
        }
        if let Some(eval) = &self.eval {
            let mut messages = messages.clone();
            messages.push(crate::conversation::assistant_message(output, &[]));
            let input = EvalInput {
                content: text,
                messages,
                turn_index: 1,
                variables: variables.clone(),
                ..EvalInput::default()
            };
            let scored = (eval.judge)(&input).map_err(|err| JudgeFailed {
                kind: eval.kind.clone(),
                detail: err.to_string(),
            })?;
            holds &= scored.score >= eval.min_score;
            reasons.push(format!(
                "`{}` scored {} (at least {})",
                eval.kind, scored.score, eval.min_score
            ));
        }
        Ok(Verdict {
            holds,
            reason: reasons.join(", "),
        })
    }
}

/// Reads a `when` mapping; `None` after its problems are reported.
pub(super) fn read(cx: &mut Checker, node: &Node, what: &str) -> Option<When> {
    let mut f = cx.map(node, what)?;
    let mut ok = true;
    let pointer = f.get("pointer").and_then(|n| {
        let p = cx.string(n, &format!("{what}.pointer"))?;
        if !p.is_empty() && !p.starts_with('/') {
            cx.error(
                n.pos,
                format!("{what}.pointer: `{p}` is not a JSON pointer: it starts with `/`"),
            );
            ok = false;
            return None;
        }
        if let Err(err) = check_pointer(&p) {
            cx.error(n.pos, format!("{what}.pointer: {err}"));
            ok = false;
            return None;
        }
        Some(p)
    });
    let matches = f.get("matches").and_then(|n| {
        let text = cx.string(n, &format!("{what}.matches"))?;
        match Regex::new(&text) {
            Ok(regex) => Some(regex),
            Err(err) => {
                let detail = err.to_string();
                let last = detail.lines().last().unwrap_or_default().trim();
                let last = last.strip_prefix("error: ").unwrap_or(last);
                cx.error(
                    n.pos,
                    format!(
                        "{what}.matches: `{text}` is not a regex: {}",
                        last.to_lowercase()
                    ),
                );
                ok = false;
                None
            }
        }
    });
    let equals = f.get("equals").map(Node::to_json);
    let min_score = f.entry("min_score");
    let eval = match f.get("eval") {
        Some(n) => {
            let eval = read_eval(cx, n, &format!("{what}.eval"), min_score.map(|(_, v)| v));
            ok &= eval.is_some();
            eval
        }
        None => {
            if let Some((key, _)) = min_score {
                cx.error(key.pos, format!("{what}.min_score: applies to an `eval`"));
                ok = false;
            }
            None
        }
    };
    cx.unknown_keys(&f, what, UnknownKeys::Error);
    if pointer.is_none() && matches.is_none() && equals.is_none() && eval.is_none() && ok {
        cx.error(
            node.pos,
            format!(
                "{what}: give at least one of `matches`, `pointer`, `equals` or `eval` (a branch without `when` is always taken)"
            ),
        );
        return None;
    }
    ok.then_some(When {
        pointer,
        matches,
        equals,
        eval,
    })
}

fn read_eval(
    cx: &mut Checker,
    node: &Node,
    what: &str,
    min_score: Option<&Node>,
) -> Option<EvalCondition> {
    let mut f = cx.map(node, what)?;
    let kind = match f.get("type") {
        Some(n) => cx.nonempty_string(n, &format!("{what}.type"))?,
        None => {
            cx.error(node.pos, format!("{what}: missing key `type`"));
            return None;
        }
    };
    let params_node = f.get("params");
    let params = params_node.map_or_else(|| Json::Object(Default::default()), Node::to_json);
    cx.unknown_keys(&f, what, UnknownKeys::Error);
    let min_score = match min_score {
        Some(n) => {
            let score = cx.number(n, "min_score")?;
            if !(0.0..=1.0).contains(&score) {
                cx.error(n.pos, "min_score: a score is from 0 to 1");
                return None;
            }
            score
        }
        None => 1.0,
    };
    if !builtin::is_builtin(&kind) {
        let hint = crate::doc::suggest(&kind, builtin::builtin_names());
        cx.error(
            node.pos,
            format!("{what}.type: `{kind}` is not a built-in check{hint}; a chain judges outputs with built-in checks only"),
        );
        return None;
    }
    match builtin::prepare(&kind, &params) {
        Ok(judge) => Some(EvalCondition {
            kind,
            judge,
            min_score,
        }),
        Err(err) => {
            let at = params_node.map_or(node.pos, |n| n.pos);
            cx.error(at, format!("{what}.params: {err}"));
            None
        }
    }
}
