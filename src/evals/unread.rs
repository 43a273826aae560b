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
pub(crate) fn drop_unread_params(
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
        for unread in drop_unread(&eval.eval_type, &mut eval.params) {
            let text = format!("eval `{}`: {}; it is ignored", eval.id, unread.message);
            warnings.push(Diagnostic::warning(&path, eval.pos, text));
        }
    }
    warnings
}

/// A key a built-in check does not read, taken out of its params.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    pub key: String,
    /// What is said of it: the check, the key, and the name meant when one is close.
    pub message: String,
}

/// Removes from `params` each key `check` does not read, and `message` (the
/// check's human message, which no check reads); each unread key, in the order found.
/// The loaders warn of each at the place it is written.
pub(crate) fn drop_unread(check: &str, params: &mut Json) -> Vec<Unread> {
    let mut found = Vec::new();
    let Json::Object(map) = params else {
        return found;
    };
    // `message` is what a person reads of the check, never a param of it.
    map.remove("message");
    loop {
        match prepare(check, &Json::Object(map.clone())) {
            Err(err @ ParamError::Unknown { .. }) => {
                let ParamError::Unknown { key, .. } = &err else {
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
