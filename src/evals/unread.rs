//! Params a built-in check does not read. PromptKit's handlers ignore keys they do
//! not know, so a pack written for it may carry some: each is a warning naming it
//! (with the param meant, when one is close) and is left out, never a refusal.

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::config::EvalBinding;
use crate::doc::Diagnostic;
use crate::pack::Pack;

use super::builtin::{ParamError, is_builtin, prepare};

/// Drops from every eval of `pack` (its own and each prompt's) that runs as a
/// built-in check the params that check does not read; a warning for each, at the
/// eval's place. An eval the config binds takes whatever params it is given.
pub fn drop_unread_params(
    pack: &mut Pack,
    bindings: &IndexMap<String, EvalBinding>,
) -> Vec<Diagnostic> {
    let path = pack.path.clone();
    let evals = pack
        .evals
        .iter_mut()
        .chain(pack.prompts.values_mut().flat_map(|p| p.evals.iter_mut()));
    let mut warnings = Vec::new();
    for eval in evals {
        if bindings.contains_key(&eval.eval_type) || !is_builtin(&eval.eval_type) {
            continue;
        }
        for message in drop_unread(&eval.eval_type, &mut eval.params) {
            let text = format!("eval `{}`: {message}; it is ignored", eval.id);
            warnings.push(Diagnostic::warning(&path, eval.pos, text));
        }
    }
    warnings
}

/// A key in a built-in check's params that the check does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownParam {
    /// The check, as it was named.
    pub check: String,
    /// The key given.
    pub key: String,
    /// Empty, or `; did you mean `NAME`?` when a name the check takes is close.
    pub suggestion: String,
    /// Every name (aliases included) the check takes.
    pub takes: Vec<String>,
}

impl std::fmt::Display for UnknownParam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` takes no param `{}`{} (it is ignored)",
            self.check, self.key, self.suggestion
        )
    }
}

/// The keys of `params` that the built-in check `eval_type` does not read, in the
/// order they are found; never `message` (the check's human message). Empty for a
/// type that is not a built-in check.
pub fn unknown_params(eval_type: &str, params: &Json) -> Vec<UnknownParam> {
    let mut params = params.clone();
    unread(eval_type, &mut params)
}

/// Removes from `params` each key `check` does not read, and `message` (the
/// check's human message, which no check reads); what is said of each unread key.
pub fn drop_unread(check: &str, params: &mut Json) -> Vec<String> {
    unread(check, params)
        .iter()
        .map(|u| {
            let takes = if u.takes.is_empty() {
                "none".to_string()
            } else {
                u.takes.join(", ")
            };
            format!(
                "`{}` takes no param `{}`{} (it takes {takes})",
                u.check, u.key, u.suggestion
            )
        })
        .collect()
}

fn unread(check: &str, params: &mut Json) -> Vec<UnknownParam> {
    let mut found = Vec::new();
    let Json::Object(map) = params else {
        return found;
    };
    // `message` is what a person reads of the check, never a param of it.
    map.remove("message");
    if !is_builtin(check) {
        return found;
    }
    loop {
        match prepare(check, &Json::Object(map.clone())) {
            Err(ParamError::Unknown {
                check,
                key,
                suggestion,
                takes,
            }) => {
                map.remove(&key);
                let takes = takes
                    .split(", ")
                    .filter(|t| *t != "none")
                    .map(str::to_string)
                    .collect();
                found.push(UnknownParam {
                    check,
                    key,
                    suggestion,
                    takes,
                });
            }
            _ => return found,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn unknown_params_names_each_unread_key_with_a_suggestion() {
        let params =
            json!({"patterns": ["a"], "patern": "x", "case_sensitive": true, "message": "m"});
        let found = unknown_params("content_includes", &params);
        let keys: Vec<&str> = found.iter().map(|u| u.key.as_str()).collect();
        assert_eq!(keys, ["patern", "case_sensitive"]);
        assert_eq!(found[0].takes, ["patterns"]);
        assert_eq!(
            found[0].to_string(),
            "`content_includes` takes no param `patern`; did you mean `patterns`? (it is ignored)"
        );
    }

    #[test]
    fn known_params_message_and_unknown_types_give_nothing() {
        assert!(
            unknown_params(
                "content_includes",
                &json!({"patterns": ["a"], "message": "m"})
            )
            .is_empty()
        );
        assert!(unknown_params("no_such_check", &json!({"x": 1})).is_empty());
        assert!(unknown_params("pii_leakage", &json!({"message": "m"})).is_empty());
        let none = unknown_params("pii_leakage", &json!({"x": 1}));
        assert_eq!(none.len(), 1);
        assert!(none[0].takes.is_empty());
    }
}
