/// The closest of `candidates` to a misspelt `word`, if one is close enough to be a
/// likely typo.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `"; did you mean `x`?"` when a candidate is close to `word`, else nothing.
pub(crate) fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(word, candidates)
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggests_the_nearest_known_word() {
        let known = ["command", "args", "env", "timeout_ms"];
        assert_eq!(did_you_mean("comand", known), Some("command"));
        assert_eq!(did_you_mean("timeout", known), Some("timeout_ms"));
        assert_eq!(did_you_mean("zzz", known), None);
    }
}
