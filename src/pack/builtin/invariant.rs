//! `invariant_fields_preserved`: arguments a tool was once given keep being given.
//! Over the judged calls of `tool`, in order, a field of `fields` that appeared in
//! the arguments of one call and is absent from a later one is lost. A field never
//! given is not lost, nor is one that appears late and stays; fewer than two calls
//! leave nothing to compare and pass. The score is the share of `fields` not lost,
//! as PromptKit's handler scores it. Only presence counts: a changed value is kept.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, Scored};

/// `tool` (required) and `fields` (required, non-empty).
pub(super) fn preserved(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["tool"], &["fields"]])?;
    let tool = p.required_string(&["tool"])?;
    let fields = p.required_strings(&["fields"])?;
    Ok(Box::new(move |input| {
        let args: Vec<&Json> = input
            .tool_calls
            .iter()
            .filter(|c| c.name == tool)
            .map(|c| &c.args)
            .collect();
        let total = fields.len();
        if args.len() < 2 {
            return Ok(Scored {
                score: 1.0,
                detail: format!(
                    "`{tool}` was called {} time(s): no two calls to compare",
                    args.len()
                ),
                data: json!({ "preserved": total, "total": total, "tool": tool, "calls": args.len() }),
            });
        }
        let lost: Vec<(&str, usize)> = fields
            .iter()
            .filter_map(|field| lost_at(&args, field).map(|at| (field.as_str(), at)))
            .collect();
        let preserved = total - lost.len();
        let violations: Vec<Json> = lost
            .iter()
            .map(|(field, at)| json!({ "field": field, "call_index": at }))
            .collect();
        let detail = if lost.is_empty() {
            format!(
                "every tracked field ({total}) kept over {} calls of `{tool}`",
                args.len()
            )
        } else {
            let each: Vec<String> = lost
                .iter()
                .map(|(field, at)| format!("`{field}` missing from call {at}"))
                .collect();
            format!(
                "{} of {total} field(s) dropped by `{tool}`: {}",
                lost.len(),
                each.join("; ")
            )
        };
        Ok(Scored {
            score: preserved as f64 / total as f64,
            detail,
            data: json!({
                "preserved": preserved,
                "total": total,
                "tool": tool,
                "calls": args.len(),
                "violations": violations,
            }),
        })
    }))
}

/// The index (among the calls of the tool, from 0) of the first call without
/// `field` after one that had it.
fn lost_at(args: &[&Json], field: &str) -> Option<usize> {
    let mut seen = false;
    for (i, a) in args.iter().enumerate() {
        let present = a.as_object().is_some_and(|m| m.contains_key(field));
        if present {
            seen = true;
        } else if seen {
            return Some(i);
        }
    }
    None
}
