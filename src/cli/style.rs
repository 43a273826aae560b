//! Whether to colour, decided from `--color` and `NO_COLOR`; the painting itself is
//! [`crate::report::style`], re-exported here while callers move to it.

use std::ffi::OsStr;

use super::ColorWhen;

pub(crate) use crate::report::style::*;

/// `always` wins over `NO_COLOR` (it was asked for by name); `auto` colours only a
/// terminal, and only when `NO_COLOR` is unset or empty.
pub(crate) fn wanted(when: ColorWhen, is_terminal: bool, no_color: Option<&OsStr>) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => is_terminal && no_color.is_none_or(OsStr::is_empty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_wins_over_no_color_and_never_over_a_terminal() {
        let set = Some(OsStr::new("1"));
        assert!(wanted(ColorWhen::Always, false, set));
        assert!(!wanted(ColorWhen::Never, true, None));
    }

    #[test]
    fn auto_colours_a_terminal_unless_no_color_is_set() {
        assert!(wanted(ColorWhen::Auto, true, None));
        assert!(wanted(ColorWhen::Auto, true, Some(OsStr::new(""))));
        assert!(!wanted(ColorWhen::Auto, true, Some(OsStr::new("1"))));
        assert!(!wanted(ColorWhen::Auto, false, None));
    }
}
