//! `run`: a pack's suite of scenarios, or one conversation.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::VarArgs;

// Not an argument group of `--message` and `--messages-from`: clap would keep every
// message a second time for the group (3 MiB at 10,000 flags). The usage line names
// the two sources instead.
#[derive(Debug, Clone, Args)]
#[command(
    override_usage = "promptexec run [OPTIONS] <PACK> [SCENARIOS]...\n       promptexec run [OPTIONS] <--message <TEXT>|--messages-from <FILE>> <PACK>"
)]
pub(crate) struct RunArgs {
    /// The PromptPack (JSON)
    pub pack: PathBuf,

    /// Scenario files, or folders searched for `*.scenario.yaml|yml|json`
    /// [default: the `scenarios/` folder beside the pack]; played when no message is
    /// given
    #[arg(value_name = "SCENARIOS", conflicts_with_all = ["messages", "messages_from"])]
    pub scenarios: Vec<PathBuf>,

    /// The prompt to play [default: the pack's only prompt]
    #[arg(long, value_name = "ID")]
    pub prompt: Option<String>,

    /// Play this library prompt (rendered with --var and --vars-file) as the system
    /// prompt instead of the pack's; the reports and the library's audit log name
    /// its id, version and content hash
    #[arg(long, value_name = "ID[@VERSION]")]
    pub library_prompt: Option<String>,

    /// With --library-prompt: the library database [default: the per-user data
    /// directory]
    #[arg(long, value_name = "PATH", env = "PROMPTEXEC_LIBRARY")]
    pub library: Option<PathBuf>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// A user message (repeatable; each is one turn)
    #[arg(long = "message", value_name = "TEXT")]
    pub messages: Vec<String>,

    /// Read the user messages from FILE (`-`: stdin), one per line; blank lines are
    /// skipped
    #[arg(long, value_name = "FILE", conflicts_with = "messages")]
    pub messages_from: Option<PathBuf>,

    /// PromptKit mock-responses YAML [default: the mock provider's mock_config]
    #[arg(long, value_name = "FILE")]
    pub mock: Option<PathBuf>,

    /// An Arena project's providers all answer as the mock, each from its own
    /// mock_config (else the mock's fixed answers), as PromptArena's --mock-provider
    #[arg(long, conflicts_with = "mock")]
    pub mock_provider: bool,

    /// The mock scenario [default: the prompt id]
    #[arg(long, value_name = "KEY")]
    pub scenario: Option<String>,

    /// The provider that answers model calls: an `id` (or `type`) of the config's
    /// spec.providers [default: the scenario's provider, else the config's mock
    /// provider, else its first]
    #[arg(long, value_name = "ID")]
    pub provider: Option<String>,

    /// Ask an HTTP provider for streamed answers (server-sent events); a scenario's
    /// `streaming` says the same for its turns
    #[arg(long)]
    pub stream: bool,

    /// Write the conversation's model exchanges to FILE, a recording `--replay` plays
    #[arg(long, value_name = "FILE", conflicts_with = "record_dir")]
    pub record: Option<PathBuf>,

    /// Answer model calls from a recording (promptexec's or PromptKit's) instead of
    /// calling the provider; tools, hooks and evals still run
    #[arg(long, value_name = "FILE", conflicts_with = "replay_dir")]
    pub replay: Option<PathBuf>,

    /// Suite: write one recording per scenario, DIR/ID.recording.json
    #[arg(long, value_name = "DIR")]
    pub record_dir: Option<PathBuf>,

    /// Suite: replay each scenario from DIR/ID.recording.json
    #[arg(long, value_name = "DIR")]
    pub replay_dir: Option<PathBuf>,

    /// How a replayed call finds its answer: `turn`, the next recorded call, whose
    /// request must match; `content`, the call recorded after the same last user
    /// message
    #[arg(long = "match", value_enum, value_name = "turn|content", default_value_t = ReplayMatch::Turn)]
    pub replay_match: ReplayMatch,

    /// Model calls per turn at most [default: the prompt's tool_policy.max_rounds]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=u64::from(u32::MAX)))]
    pub max_rounds: Option<u64>,

    /// Approve pending calls of TOOL (repeatable), or of every tool with `all`
    #[arg(long, value_name = "all|TOOL")]
    pub approve: Vec<String>,

    /// Reject pending calls of TOOL (repeatable), or of every tool with `all`
    #[arg(long, value_name = "all|TOOL")]
    pub reject: Vec<String>,

    /// Write every event as one JSON line to FILE, as it happens; for a suite, FILE
    /// is a folder that gets one transcript per scenario
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,

    /// Scenarios played at once [default: the number of cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,

    /// Play only scenarios whose id contains TEXT, or whose label KEY is VALUE
    /// (`KEY=VALUE`); repeatable, any may match
    #[arg(long, value_name = "TEXT")]
    pub filter: Vec<String>,

    /// Start no scenario after one fails
    #[arg(long)]
    pub fail_fast: bool,

    /// Fail (exit 1) a PARTIAL scenario: one that passed but for assertions promptexec
    /// does not judge (those of self-play and `assistant` turns, or of types that need
    /// a real model), which are reported skipped; without it PARTIAL exits 0
    #[arg(long)]
    pub fail_on_partial: bool,

    #[command(flatten)]
    pub slice: super::ShardArgs,

    #[command(flatten)]
    pub baseline: super::BaselineArgs,

    #[command(flatten)]
    pub watch: super::WatchArgs,

    /// `human`: the conversation and a summary on stderr; `json`: one report document
    /// on stdout; `junit`: JUnit XML on stdout (turns and evals as testcases); `html`:
    /// a self-contained page that shows the JSON report
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub files: super::ReportFiles,

    /// Suite: also write a short Markdown summary to FILE (for `$GITHUB_STEP_SUMMARY`
    /// or a pull-request comment)
    #[arg(long = "markdown", value_name = "FILE")]
    pub markdown_file: Option<PathBuf>,

    /// Treat every warning from loading as an error: exit 2 before anything starts;
    /// in a suite, a PARTIAL scenario fails too (as with --fail-on-partial)
    #[arg(long)]
    pub strict: bool,

    /// Before anything runs, compare the tool surface with promptexec.lock beside
    /// the config; exit 1 with the diff when it drifted
    #[arg(long)]
    pub locked: bool,
}

/// How a replayed model call finds its recorded answer (`--match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReplayMatch {
    Turn,
    Content,
}

/// The report `run` and `test` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    Human,
    Json,
    Junit,
    Html,
}
