//! What `validate` shows: every problem found, then one line, either `ok:` and what
//! loaded or the count of errors and warnings.

use crate::doc::{Diagnostic, Diagnostics};

use super::Exit;

/// Every problem in the config, pack and scenario files, and what loaded.
#[derive(Debug, Clone, Default)]
pub(crate) struct ValidateRecord {
    pub diagnostics: Diagnostics,
    /// One description per thing that loaded, in the order checked.
    pub loaded: Vec<Loaded>,
    /// Warnings count as errors.
    pub strict: bool,
}

/// A file, or a set of files, that loaded, with what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loaded {
    Config {
        path: String,
        providers: usize,
        tools: usize,
        evals: usize,
        hooks: usize,
        mcp_servers: usize,
    },
    Pack {
        path: String,
        prompts: usize,
        tools: usize,
        evals: usize,
    },
    Scenarios {
        files: usize,
        assertions: usize,
        /// Assertions that will not be judged when played.
        skipped: usize,
        /// Whether a pack was given to check their prompts against.
        prompts_checked: bool,
    },
}

impl ValidateRecord {
    /// Exit 2 on any error, or on any warning under `--strict`.
    pub(crate) fn exit(&self) -> Exit {
        let (errors, warnings) = self.counts();
        if errors > 0 || (self.strict && warnings > 0) {
            Exit::BadInput
        } else {
            Exit::Success
        }
    }

    /// The problems to show: every diagnostic, and under `--strict` with only
    /// warnings, a last one saying they count as errors.
    pub(crate) fn problems(&self) -> Diagnostics {
        let mut shown = self.diagnostics.clone();
        let (errors, warnings) = self.counts();
        if self.strict && errors == 0 && warnings > 0 {
            shown.push(strict_verdict(warnings));
        }
        shown
    }

    /// The closing line.
    pub(crate) fn verdict(&self) -> String {
        let (errors, warnings) = self.counts();
        if self.exit() == Exit::BadInput {
            format!(
                "validate: {errors} error{}, {warnings} warning{}",
                plural(errors),
                plural(warnings)
            )
        } else {
            let loaded: Vec<String> = self.loaded.iter().map(Loaded::describe).collect();
            format!("ok: {}", loaded.join("; "))
        }
    }

    fn counts(&self) -> (usize, usize) {
        (
            self.diagnostics.error_count(),
            self.diagnostics.warning_count(),
        )
    }
}

/// The closing problem when `--strict` turns warnings into a failure.
pub(crate) fn strict_verdict(warnings: usize) -> Diagnostic {
    let verdict = if warnings == 1 {
        "1 warning counts as an error".to_string()
    } else {
        format!("{warnings} warnings count as errors")
    };
    Diagnostic::plain(format!("--strict: {verdict}"))
}

impl Loaded {
    /// `PATH (2 providers, 1 tool, …)`.
    pub(crate) fn describe(&self) -> String {
        let count = |n: usize, what: &str| format!("{n} {what}{}", plural(n));
        match self {
            Loaded::Config {
                path,
                providers,
                tools,
                evals,
                hooks,
                mcp_servers,
            } => format!(
                "{path} ({}, {}, {}, {}, {})",
                count(*providers, "provider"),
                count(*tools, "tool"),
                count(*evals, "eval"),
                count(*hooks, "hook"),
                count(*mcp_servers, "MCP server"),
            ),
            Loaded::Pack {
                path,
                prompts,
                tools,
                evals,
            } => format!(
                "{path} ({}, {}, {})",
                count(*prompts, "prompt"),
                count(*tools, "tool"),
                count(*evals, "eval"),
            ),
            Loaded::Scenarios {
                files,
                assertions,
                skipped,
                prompts_checked,
            } => format!(
                "{} ({}, {skipped} of them skipped when played{})",
                count(*files, "scenario file"),
                count(*assertions, "assertion"),
                if *prompts_checked {
                    ""
                } else {
                    ", prompts not checked without --pack"
                }
            ),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded() -> Vec<Loaded> {
        vec![
            Loaded::Config {
                path: "runtimeconfig.yaml".into(),
                providers: 1,
                tools: 2,
                evals: 0,
                hooks: 1,
                mcp_servers: 0,
            },
            Loaded::Pack {
                path: "support.pack.json".into(),
                prompts: 2,
                tools: 1,
                evals: 3,
            },
            Loaded::Scenarios {
                files: 1,
                assertions: 4,
                skipped: 1,
                prompts_checked: false,
            },
        ]
    }

    #[test]
    fn all_clear_says_what_loaded() {
        let record = ValidateRecord {
            loaded: loaded(),
            ..ValidateRecord::default()
        };
        assert_eq!(record.exit(), Exit::Success);
        insta::assert_snapshot!(record.verdict(), @"ok: runtimeconfig.yaml (1 provider, 2 tools, 0 evals, 1 hook, 0 MCP servers); support.pack.json (2 prompts, 1 tool, 3 evals); 1 scenario file (4 assertions, 1 of them skipped when played, prompts not checked without --pack)");
    }

    #[test]
    fn warnings_fail_only_under_strict_and_then_say_so() {
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(Diagnostic::plain_warning("unused key".to_string()));
        let mut record = ValidateRecord {
            diagnostics,
            loaded: loaded(),
            strict: false,
        };
        assert_eq!(record.exit(), Exit::Success);
        assert_eq!(record.problems().iter().count(), 1);
        record.strict = true;
        assert_eq!(record.exit(), Exit::BadInput);
        insta::assert_snapshot!(record.verdict(), @"validate: 0 errors, 1 warning");
        let problems = record.problems();
        let last = problems.iter().last().expect("the strict verdict");
        assert_eq!(last.message, "--strict: 1 warning counts as an error");
    }
}
