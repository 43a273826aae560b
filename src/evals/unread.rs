//! Params a built-in check does not read. PromptKit's handlers ignore keys they do
//! not know, so a pack written for it may carry some: each is a warning naming it
//! (with the param meant, when one is close) and is left out, never a refusal.

use indexmap::IndexMap;

use crate::config::EvalBinding;
use crate::doc::Diagnostic;
use crate::pack::Pack;

use crate::pack::builtin::{drop_unread, is_builtin};

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
