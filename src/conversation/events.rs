//! Event names. promptexec emits PicoClaw's classic kinds (`tool_exec_start`, ...);
//! newer PicoClaw configs observe the runtime names (`agent.tool.exec_start`) or globs
//! of them (`agent.tool.*`). Either form, and a glob of either, selects the same events.

/// Every event kind promptexec emits, with its PicoClaw runtime name.
pub(crate) const EVENT_NAMES: &[(&str, &str)] = &[
    ("turn_start", "agent.turn.start"),
    ("turn_end", "agent.turn.end"),
    ("llm_request", "agent.llm.request"),
    ("llm_response", "agent.llm.response"),
    ("tool_exec_start", "agent.tool.exec_start"),
    ("tool_exec_end", "agent.tool.exec_end"),
    ("tool_exec_skipped", "agent.tool.exec_skipped"),
    ("error", "agent.error"),
];

/// The runtime name of `kind`, or `kind` itself when it has none.
pub(crate) fn runtime_name(kind: &str) -> &str {
    EVENT_NAMES
        .iter()
        .find(|(ours, _)| *ours == kind)
        .map_or(kind, |(_, runtime)| runtime)
}

/// Whether an `observe` entry selects events of `kind`.
pub(crate) fn selects(pattern: &str, kind: &str) -> bool {
    glob(pattern, kind) || glob(pattern, runtime_name(kind))
}

/// Whether an `observe` entry selects any event promptexec emits.
pub(crate) fn selects_any(pattern: &str) -> bool {
    EVENT_NAMES.iter().any(|(kind, _)| selects(pattern, kind))
}

/// `*` matches any run of characters; everything else matches itself. The pieces
/// between stars are found left to right, each at its first place, which is enough:
/// no backtracking, so any pattern takes time linear in the text per piece.
fn glob(pattern: &str, text: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let Some(last) = pieces.next_back() else {
        // No star at all.
        return rest.is_empty();
    };
    for piece in pieces {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_a_shell_and_many_stars_stay_fast() {
        assert!(glob("agent.*", "agent.tool.exec_start"));
        assert!(glob("*exec*", "tool_exec_end"));
        assert!(glob("a*b*c", "abbbc"));
        assert!(!glob("a*b*c", "acb"));
        assert!(!glob("ab*ba", "aba"));
        assert!(glob("*", ""));
        assert!(!glob("tool", "tool_exec_end"));
        let stars = format!("{}z", "*".repeat(40));
        assert!(!glob(&stars, &"a".repeat(200)));
    }

    #[test]
    fn both_names_and_globs_of_either_select_an_event() {
        for pattern in [
            "tool_exec_start",
            "agent.tool.exec_start",
            "agent.tool.*",
            "agent.*",
            "tool_exec_*",
            "*",
            "*.exec_start",
        ] {
            assert!(selects(pattern, "tool_exec_start"), "{pattern}");
        }
        for pattern in [
            "agent.llm.*",
            "tool_exec_end",
            "agent.turn.start",
            "agent.tool",
        ] {
            assert!(!selects(pattern, "tool_exec_start"), "{pattern}");
        }
        assert!(selects("agent.error", "error"));
    }

    #[test]
    fn unknown_names_select_nothing() {
        assert!(selects_any("agent.tool.*"));
        assert!(!selects_any("agent.subturn.spawn"));
        assert!(!selects_any("tool_exec_strat"));
        assert_eq!(runtime_name("turn_end"), "agent.turn.end");
        assert_eq!(runtime_name("custom"), "custom");
    }
}
