use super::Diagnostics;

/// A file that was read and accepted, with the warnings found on the way.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    pub value: T,
    pub warnings: Diagnostics,
}

/// A file that could not be read or has errors; holds every problem found.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{} error(s) found", .0.error_count())]
pub struct Rejected(pub Diagnostics);

/// Turns the outcome of a checking pass into a result: any error rejects it all.
pub(crate) fn finish<T>(value: T, diagnostics: Diagnostics) -> Result<Loaded<T>, Rejected> {
    if diagnostics.has_errors() {
        Err(Rejected(diagnostics))
    } else {
        Ok(Loaded {
            value,
            warnings: diagnostics,
        })
    }
}
