//! What promptexec judges itself, without a binding in the config: the built-in
//! checks of `pack::builtin` and the judge evals, which call a model.

use serde_json::Value as Json;

use super::judge::{JudgeSpec, is_judge_type};

/// Whether promptexec judges `eval_type` itself: a built-in check, or a judge eval
/// (which is skipped, saying why, when the run has no judge to call).
pub(crate) fn is_builtin(eval_type: &str) -> bool {
    crate::pack::builtin::is_builtin(eval_type) || is_judge_type(eval_type)
}

/// A param an eval promptexec judges itself does not read, taken out of its params.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    pub key: String,
    /// What is said of it: the eval type, the key, and the name meant when one is close.
    pub message: String,
}

/// Removes from `params` each key the check or judge eval `eval_type` does not
/// read (and `message`, which none reads); each, in the order found. A judge
/// eval's `min_score` / `max_score` stay, for its preparation to refuse them
/// with the way to write them.
pub(crate) fn drop_unread(eval_type: &str, params: &mut Json) -> Vec<Unread> {
    if !is_judge_type(eval_type) {
        return crate::pack::builtin::drop_unread(eval_type, params)
            .into_iter()
            .map(|u| Unread {
                key: u.key,
                message: u.message,
            })
            .collect();
    }
    let mut found = Vec::new();
    let Json::Object(map) = params else {
        return found;
    };
    map.remove("message");
    loop {
        let mut given = map.clone();
        given.remove("min_score");
        given.remove("max_score");
        let given = Json::Object(given);
        match JudgeSpec::prepare(eval_type, &given) {
            Some(Err(super::judge::JudgeParamError::Param(
                err @ crate::pack::builtin::ParamError::Unknown { .. },
            ))) => {
                let crate::pack::builtin::ParamError::Unknown { key, .. } = &err else {
                    return found;
                };
                let key = key.clone();
                map.remove(&key);
                found.push(Unread {
                    key,
                    message: err.to_string(),
                });
            }
            _ => return found,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn judge_evals_count_as_judged_here_and_drop_what_they_do_not_read() {
        assert!(is_builtin("faithfulness") && is_builtin("llm_judge_conversation"));
        assert!(is_builtin("contains") && !is_builtin("tone"));
        let mut params =
            json!({"criteria": "kind", "critera": "x", "message": "m", "min_score": 0.8});
        let unread = drop_unread("llm_judge", &mut params);
        assert_eq!(unread.len(), 1);
        assert_eq!(unread[0].key, "critera");
        assert!(
            unread[0].message.contains("did you mean"),
            "{}",
            unread[0].message
        );
        assert_eq!(params, json!({"criteria": "kind", "min_score": 0.8}));
    }
}
