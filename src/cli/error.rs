use std::io;
use std::path::PathBuf;

use crate::doc::{Diagnostics, Rejected, one_of, suggest};

use super::{Console, Exit};

/// Every way a command can fail, each mapped to one exit code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Files or inputs with problems; the diagnostics say where.
    #[error("invalid input")]
    Invalid(Diagnostics),
    /// Arguments that make sense to clap but not to the command.
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write output")]
    Output(#[source] io::Error),
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot start the async runtime")]
    Runtime(#[source] io::Error),
    #[error(transparent)]
    Library(#[from] crate::library::LibraryError),
    #[error(transparent)]
    Ui(#[from] crate::ui::UiError),
    /// A signature, trust or freshness check said no.
    #[error("refused")]
    Refused(#[from] crate::library::ShareError),
    #[error("interrupted")]
    Interrupted,
    /// `lock` could not read, write or compare the tool surface.
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
    /// The `--locked` gate could not compare the tool surface with the lock file.
    #[error("--locked")]
    Locked(#[source] crate::lock::LockError),
}

/// The kinds of arguments that make sense to clap but not to the command; each
/// message names the flag or value at fault and, where it can, what would do.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UsageError {
    /// A flag given where it does not apply: `FLAG WHY`, the reason reading on from
    /// the flag (`--record applies to one conversation (--message); …`).
    #[error("{flag} {why}")]
    NotHere { flag: String, why: String },
    /// Two things given that cannot both be: `SUBJECT: CLASH`
    /// (`--arg: `k` is given twice; give each key once`).
    #[error("{subject}: {clash}")]
    Conflict { subject: String, clash: String },
    /// A name that is none of those there are, with a did-you-mean hint when one is
    /// near; `phrase` says how the message reads.
    #[error("{}", unknown(.name, .known, .phrase))]
    Unknown {
        name: String,
        known: Vec<String>,
        phrase: Unknown,
    },
    /// A flag's value that does not parse: `FLAG `VALUE`: EXPECTED`, or
    /// `FLAG: EXPECTED` when the value is not worth repeating.
    #[error("{flag}{}: {expected}", quoted(.value))]
    BadValue {
        flag: String,
        value: Option<String>,
        expected: String,
    },
    /// A flag's value that is not what it must be, said as one sentence:
    /// `FLAG `VALUE` IS` (`--since `x` is not an RFC 3339 time: …`,
    /// `--event must be a JSON object`).
    #[error("{flag}{} {is}", quoted(.value))]
    NotA {
        flag: String,
        value: Option<String>,
        is: String,
    },
    /// Several candidates and none chosen:
    /// `PLACE has several KINDs; choose one with FLAG: A, B or C`.
    #[error("{place} has several {kind}s; choose one with {flag}: {}", listed(.names))]
    Ambiguous {
        place: String,
        kind: &'static str,
        flag: &'static str,
        names: Vec<String>,
    },
    /// Nothing given (or found) to work on, and what to give: `give an eval TYPE
    /// with --content, …`, `no scenarios to play in DIR: …`.
    #[error("{0}")]
    Nothing(String),
    /// A filter that matches nothing: `--filter TEXT matches no scenario (…)`.
    #[error("{0}")]
    NoMatch(String),
    /// No config given and none found where one is looked for.
    #[error("no config: give -c FILE, set PROMPTEXEC_CONFIG, or run where runtimeconfig.yaml is")]
    NoConfig,
    /// Something named that exists but cannot serve here, and why (`tool `x` has no
    /// `exec` block, …`, `hook `x` is not a server hook`).
    #[error("{0}")]
    Unusable(String),
}

/// How a message about an unknown name reads. Every one but `DefinesNo` and `NotA`
/// carries the did-you-mean hint; those that list the names there are say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unknown {
    /// `PLACE has no KIND `NAME`HINT (it has A, B or C)` (`none` when empty).
    HasNo { place: String, kind: String },
    /// `PLACE offers no KIND `NAME`HINT (it offers A, B or C)` (`none` when empty).
    OffersNo { place: String, kind: String },
    /// `no KIND is called `NAME`HINT (there are A, B or C)`.
    NoneCalled { kind: String },
    /// `PLACE binds no KIND called `NAME`HINT`.
    BindsNo { place: String, kind: String },
    /// `PLACE defines no KIND `NAME``.
    DefinesNo { place: String, kind: String },
    /// ``NAME` is not KIND; LISTING A, B or C` (`methods are`, `it can take`).
    NotA { kind: String, listing: String },
    /// `FLAG: `NAME` is not a KIND of PLACE (it declares A or B)HINT`, or
    /// `(PLACE declares none)`.
    NotDeclared {
        flag: String,
        kind: String,
        place: String,
    },
}

fn unknown(name: &str, known: &[String], phrase: &Unknown) -> String {
    // A pack file is none of the names; the hint after the message says what it is.
    let hint = if super::args::is_pack_path(name) {
        String::new()
    } else {
        suggest(name, known.iter().map(String::as_str))
    };
    let have = if known.is_empty() {
        "none".to_string()
    } else {
        listed(known)
    };
    match phrase {
        Unknown::HasNo { place, kind } => {
            let mut text = format!("{place} has no {kind} `{name}`{hint} (it has {have})");
            if super::args::is_pack_path(name) {
                let upper = kind.to_uppercase();
                text.push_str(&format!(
                    "; `{name}` is a pack file; did you mean `{upper} {name}` (a {kind} name, then the pack)?"
                ));
            }
            text
        }
        Unknown::OffersNo { place, kind } => {
            format!("{place} offers no {kind} `{name}`{hint} (it offers {have})")
        }
        Unknown::NoneCalled { kind } => {
            format!(
                "no {kind} is called `{name}`{hint} (there are {})",
                listed(known)
            )
        }
        Unknown::BindsNo { place, kind } => {
            format!("{place} binds no {kind} called `{name}`{hint}")
        }
        Unknown::DefinesNo { place, kind } => format!("{place} defines no {kind} `{name}`"),
        Unknown::NotA { kind, listing } => {
            format!("`{name}` is not {kind}; {listing} {}", listed(known))
        }
        Unknown::NotDeclared { flag, kind, place } => {
            let declared = if known.is_empty() {
                format!("{place} declares none")
            } else {
                format!("it declares {}", listed(known))
            };
            format!("{flag}: `{name}` is not a {kind} of {place} ({declared}){hint}")
        }
    }
}

/// `` `a`, `b` or `c` ``.
fn listed(names: &[String]) -> String {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    one_of(&names)
}

/// `` `value`` `` after a space, or nothing.
fn quoted(value: &Option<String>) -> String {
    value
        .as_ref()
        .map(|v| format!(" `{v}`"))
        .unwrap_or_default()
}

impl UsageError {
    /// A flag given where it does not apply.
    pub(crate) fn not_here(flag: impl Into<String>, why: impl Into<String>) -> Self {
        UsageError::NotHere {
            flag: flag.into(),
            why: why.into(),
        }
    }

    /// Two things given that cannot both be.
    pub(crate) fn conflict(subject: impl Into<String>, clash: impl Into<String>) -> Self {
        UsageError::Conflict {
            subject: subject.into(),
            clash: clash.into(),
        }
    }

    /// A name that is not there, among the names there are.
    pub(crate) fn unknown<'a>(
        name: impl Into<String>,
        known: impl IntoIterator<Item = &'a str>,
        phrase: Unknown,
    ) -> Self {
        UsageError::Unknown {
            name: name.into(),
            known: known.into_iter().map(str::to_string).collect(),
            phrase,
        }
    }

    /// A value that does not parse: `FLAG `VALUE`: EXPECTED`.
    pub(crate) fn bad_value(
        flag: impl Into<String>,
        value: Option<&str>,
        expected: impl Into<String>,
    ) -> Self {
        UsageError::BadValue {
            flag: flag.into(),
            value: value.map(str::to_string),
            expected: expected.into(),
        }
    }

    /// A value that is not what it must be: `FLAG `VALUE` IS`.
    pub(crate) fn not_a(
        flag: impl Into<String>,
        value: Option<&str>,
        is: impl Into<String>,
    ) -> Self {
        UsageError::NotA {
            flag: flag.into(),
            value: value.map(str::to_string),
            is: is.into(),
        }
    }
}

impl From<Rejected> for CliError {
    fn from(rejected: Rejected) -> Self {
        CliError::Invalid(rejected.0)
    }
}

/// A refusal the library had every right to make is a definite no; anything else
/// is a problem with what was asked of it.
fn library_exit(err: &crate::library::LibraryError) -> Exit {
    use crate::library::LibraryError as E;
    match err {
        E::Locked(_) | E::Replayed => Exit::No,
        E::Open { .. }
        | E::CreateDir { .. }
        | E::TooNew { .. }
        | E::NotFound(_)
        | E::NoVersion { .. }
        | E::BadRating(_)
        | E::Sql(_) => Exit::BadInput,
    }
}

impl CliError {
    pub(crate) fn exit(&self) -> Exit {
        match self {
            CliError::Invalid(_)
            | CliError::Usage(_)
            | CliError::Read { .. }
            | CliError::Output(_)
            | CliError::Write { .. }
            | CliError::Runtime(_)
            | CliError::Ui(_) => Exit::BadInput,
            CliError::Library(err) => library_exit(err),
            CliError::Refused(_) => Exit::No,
            CliError::Interrupted => Exit::Interrupted,
            CliError::Lock(err) | CliError::Locked(err) => match err {
                crate::lock::LockError::Interrupted => Exit::Interrupted,
                crate::lock::LockError::Server { .. } => Exit::ExtensionFailed,
                _ => Exit::BadInput,
            },
        }
    }

    /// Prints the error on stderr: diagnostics one per line, anything else with its
    /// chain of causes.
    pub(crate) fn report(&self, console: &mut Console) {
        match self {
            CliError::Invalid(diagnostics) => console.diagnostics(diagnostics),
            CliError::Output(err) if err.kind() == io::ErrorKind::BrokenPipe => {}
            CliError::Interrupted
            | CliError::Lock(crate::lock::LockError::Interrupted)
            | CliError::Locked(crate::lock::LockError::Interrupted) => {}
            other => {
                let mut message = format!("error: {other}");
                let mut source = std::error::Error::source(other);
                while let Some(cause) = source {
                    message.push_str(&format!(": {cause}"));
                    source = cause.source();
                }
                // A cause may quote what a server or an extension wrote.
                console.error(&crate::peer_text::peer(&message, true));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Unknown, UsageError};

    fn text(err: UsageError) -> String {
        err.to_string()
    }

    #[test]
    fn each_kind_reads_as_the_messages_the_commands_give() {
        assert_eq!(
            text(UsageError::not_here(
                "--mock",
                "applies to the mock provider; provider `p` is `openai`"
            )),
            "--mock applies to the mock provider; provider `p` is `openai`"
        );
        assert_eq!(
            text(UsageError::conflict(
                "--arg",
                "`k` is given twice; give each key once"
            )),
            "--arg: `k` is given twice; give each key once"
        );
        assert_eq!(
            text(UsageError::bad_value(
                "--arg",
                Some("k"),
                "expected KEY=VALUE"
            )),
            "--arg `k`: expected KEY=VALUE"
        );
        assert_eq!(
            text(UsageError::bad_value(
                "--exec",
                None,
                "the command is empty"
            )),
            "--exec: the command is empty"
        );
        assert_eq!(
            text(UsageError::not_a(
                "--since",
                Some("x"),
                "is not an RFC 3339 time: bad"
            )),
            "--since `x` is not an RFC 3339 time: bad"
        );
        assert_eq!(
            text(UsageError::not_a("--event", None, "must be a JSON object")),
            "--event must be a JSON object"
        );
        assert_eq!(
            text(UsageError::Ambiguous {
                place: "p.pack.json".into(),
                kind: "prompt",
                flag: "--prompt",
                names: vec!["a".into(), "b".into()],
            }),
            "p.pack.json has several prompts; choose one with --prompt: `a` or `b`"
        );
        assert_eq!(
            text(UsageError::NoConfig),
            "no config: give -c FILE, set PROMPTEXEC_CONFIG, or run where runtimeconfig.yaml is"
        );
    }

    #[test]
    fn a_pack_file_given_for_a_name_is_said_to_be_one() {
        let phrase = Unknown::HasNo {
            place: "the config".into(),
            kind: "tool".into(),
        };
        assert_eq!(
            UsageError::unknown("examples/assistant.pack.json", ["echo"], phrase).to_string(),
            "the config has no tool `examples/assistant.pack.json` (it has `echo`); \
             `examples/assistant.pack.json` is a pack file; did you mean \
             `TOOL examples/assistant.pack.json` (a tool name, then the pack)?"
        );
    }

    #[test]
    fn an_unknown_name_reads_in_each_phrase_with_its_hint() {
        let known = ["lookup_order", "refund"];
        let unknown = |name: &str, phrase| text(UsageError::unknown(name, known, phrase));
        let place = || "the config".to_string();
        let kind = || "tool".to_string();
        assert_eq!(
            unknown(
                "lookup_ordr",
                Unknown::HasNo {
                    place: place(),
                    kind: kind()
                }
            ),
            "the config has no tool `lookup_ordr`; did you mean `lookup_order`? (it has `lookup_order` or `refund`)"
        );
        assert_eq!(
            text(UsageError::unknown(
                "x",
                [],
                Unknown::HasNo {
                    place: place(),
                    kind: kind()
                }
            )),
            "the config has no tool `x` (it has none)"
        );
        assert_eq!(
            unknown(
                "zz",
                Unknown::OffersNo {
                    place: "MCP server `s`".into(),
                    kind: kind()
                }
            ),
            "MCP server `s` offers no tool `zz` (it offers `lookup_order` or `refund`)"
        );
        assert_eq!(
            unknown(
                "zz",
                Unknown::NoneCalled {
                    kind: "probe".into()
                }
            ),
            "no probe is called `zz` (there are `lookup_order` or `refund`)"
        );
        assert_eq!(
            unknown(
                "refnd",
                Unknown::BindsNo {
                    place: place(),
                    kind: "extension".into()
                }
            ),
            "the config binds no extension called `refnd`; did you mean `refund`?"
        );
        assert_eq!(
            unknown(
                "zz",
                Unknown::DefinesNo {
                    place: "p.pack.json".into(),
                    kind: kind()
                }
            ),
            "p.pack.json defines no tool `zz`"
        );
        assert_eq!(
            unknown(
                "zz",
                Unknown::NotA {
                    kind: "a phase of hook `h`".into(),
                    listing: "it can take".into()
                }
            ),
            "`zz` is not a phase of hook `h`; it can take `lookup_order` or `refund`"
        );
        let declared = || Unknown::NotDeclared {
            flag: "--provider".into(),
            kind: "provider".into(),
            place: "the config".into(),
        };
        assert_eq!(
            unknown("zz", declared()),
            "--provider: `zz` is not a provider of the config (it declares `lookup_order` or `refund`)"
        );
        assert_eq!(
            text(UsageError::unknown("zz", [], declared())),
            "--provider: `zz` is not a provider of the config (the config declares none)"
        );
    }
}
