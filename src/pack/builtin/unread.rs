//! Params a built-in check does not read. PromptKit's handlers ignore keys they do
//! not know, so a pack written for it may carry some: each is taken out and named
//! (with the param meant, when one is close), for the loaders to warn of.

use serde_json::Value as Json;

use super::{ParamError, prepare};

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
