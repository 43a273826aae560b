use std::path::Path;

use crate::doc::{Checker, Diagnostic, Loaded, Rejected, finish, parse_json};

use super::Pack;
use super::check::check_pack;
use super::resolve::resolve;

/// Reads a PromptPack, resolves it and checks its internal references.
pub fn load(path: &Path) -> Result<Loaded<Pack>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let root = parse_json(path, &text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    let pack = resolve(&root, path, &mut cx);
    let Some(pack) = pack else {
        return Err(Rejected(cx.diagnostics));
    };
    check_pack(&pack, &mut cx);
    finish(pack, cx.diagnostics)
}
