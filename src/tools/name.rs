//! The names a model can be offered a tool under: what OpenAI's and Anthropic's APIs
//! accept (1 to 64 letters, digits, `_` and `-`). A tool under any other name would be
//! refused by the provider, or worse, offered under a name the model cannot call.

/// The longest tool name model APIs accept.
pub const MAX_TOOL_NAME: usize = 64;

/// Why a name cannot be a model tool's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolNameError {
    #[error("its name is empty; model APIs need at least one character")]
    Empty,
    #[error("its name is {0} bytes long, more than the {MAX_TOOL_NAME} model APIs accept")]
    TooLong(usize),
    #[error(
        "its name `{0}` is not one model APIs accept (letters, digits, `_` and `-`, at most {MAX_TOOL_NAME})"
    )]
    Characters(String),
}

/// Whether model APIs accept `name` as a tool's name, and if not, why.
pub fn check_tool_name(name: &str) -> Result<(), ToolNameError> {
    if name.is_empty() {
        return Err(ToolNameError::Empty);
    }
    if name.len() > MAX_TOOL_NAME {
        return Err(ToolNameError::TooLong(name.len()));
    }
    let fits = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !fits {
        // Escaped: the name may come from a peer and is shown at a terminal.
        return Err(ToolNameError::Characters(name.escape_debug().to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_underscores_and_dashes_up_to_64_pass() {
        assert_eq!(check_tool_name("lookup_order-2"), Ok(()));
        assert_eq!(check_tool_name(&"x".repeat(64)), Ok(()));
    }

    #[test]
    fn empty_long_and_odd_names_are_refused_with_why() {
        assert_eq!(check_tool_name(""), Err(ToolNameError::Empty));
        assert_eq!(
            check_tool_name(&"x".repeat(65)),
            Err(ToolNameError::TooLong(65))
        );
        for odd in ["get weather", "a.b", "tab\there", "é", "esc\u{1b}[2J"] {
            assert_eq!(
                check_tool_name(odd),
                Err(ToolNameError::Characters(odd.escape_debug().to_string())),
                "{odd:?}"
            );
        }
        assert_eq!(
            ToolNameError::Characters("a.b".into()).to_string(),
            "its name `a.b` is not one model APIs accept (letters, digits, `_` and `-`, at most 64)"
        );
    }
}
