//! A suite's result as a short Markdown summary, fit for `$GITHUB_STEP_SUMMARY` or a
//! pull-request comment: a headline with the totals, then the scenarios that did not
//! pass with why, each in a table row. A suite that passed whole is its headline.

use super::suite::{SuiteRecord, totals_line};

/// How many scenarios that did not pass are listed; the rest are counted.
const LISTED: usize = 50;

pub(crate) fn suite_markdown(suite: &SuiteRecord) -> String {
    let passed = suite.exit_code == 0;
    let mut text = format!(
        "### {} promptexec suite `{}`\n\n`{}`\n",
        if passed { "✅" } else { "❌" },
        escape(&suite.pack.display().to_string()),
        totals_line(suite)
    );
    let others: Vec<_> = suite
        .scenarios
        .iter()
        .filter(|s| s.result() != "passed")
        .collect();
    if others.is_empty() {
        return text;
    }
    text.push_str("\n| scenario | result | why |\n|---|---|---|\n");
    for scenario in others.iter().take(LISTED) {
        let why: Vec<String> = scenario.problems().iter().map(|p| escape(p)).collect();
        text.push_str(&format!(
            "| `{}` | {} | {} |\n",
            escape(&scenario.id),
            scenario.result(),
            why.join("<br>")
        ));
    }
    if others.len() > LISTED {
        text.push_str(&format!(
            "\n…and {} more; the JSON report has them all.\n",
            others.len() - LISTED
        ));
    }
    text
}

/// Text safe inside a table cell: no pipe, backtick or line break ends it early, and
/// no HTML is read from it.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push('\''),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn a_cell_cannot_be_broken_out_of() {
        assert_eq!(escape("a|b `c` <img>\nnext"), "a\\|b 'c' &lt;img&gt; next");
    }
}
