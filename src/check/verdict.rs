//! Wording shared by the probes' verdicts. The verdict types themselves are
//! records, in [`crate::report`].

/// A failure's description with the last line the process wrote to stderr.
pub(super) fn with_stderr(description: String, stderr_tail: &str) -> String {
    match crate::exec::last_lines(stderr_tail, 1).first() {
        Some(line) => format!("{description} (stderr: {})", line.trim()),
        None => description,
    }
}
