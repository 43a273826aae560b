//! Wording shared by the probes' verdicts. The verdict types themselves are
//! records, in [`crate::report`].

/// A failure's description with the last line the process wrote to stderr.
pub(super) fn with_stderr(description: String, stderr_tail: &str) -> String {
    match crate::exec::last_lines(stderr_tail, 1).first() {
        Some(line) => format!("{description} (stderr: {})", line.trim()),
        None => description,
    }
}

/// A probe whose every one of `calls` calls answered an error: it passes, but says
/// it exercised nothing. `calls` names them (`"3 generated calls"`).
pub(super) fn exercised_nothing(
    probe: super::Probe,
    calls: &str,
    reason: &str,
) -> super::ProbeResult {
    super::ProbeResult::warn(
        probe,
        format!(
            "every one of the {calls} answered an error: the probe exercised nothing; {reason}"
        ),
        "give the schema what a valid call needs (`enum`, `pattern`, `default`, `examples`), so calls reach the tool's work",
    )
}
