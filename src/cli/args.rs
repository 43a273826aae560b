use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

mod library;

pub(crate) use library::{AuditCommand, LibraryArgs, LibraryCommand, LibraryFormat, ShareCommand};

const GLOBAL: &str = "Global options";

/// Run LLM-agent extensions (exec tools, hooks, evals) for real, outside any agent.
#[derive(Debug, Parser)]
#[command(
    name = "promptexec",
    version,
    propagate_version = true,
    after_help = "Exit codes: 0 success, 1 a definite no (tool error, denial, failed eval), \
                  2 bad input, 3 an extension failed, 4 waiting on a decision, 130 interrupted."
)]
pub(crate) struct Cli {
    /// The RuntimeConfig [default: ./runtimeconfig.yaml when present]
    #[arg(
        short,
        long,
        global = true,
        env = "PROMPTEXEC_CONFIG",
        hide_env_values = true,
        value_name = "FILE",
        help_heading = GLOBAL
    )]
    pub config: Option<PathBuf>,

    /// More logging on stderr (-v, -vv)
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,

    /// Only errors on stderr
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub quiet: bool,

    /// When to use colors (NO_COLOR is honoured)
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN", help_heading = GLOBAL)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Whether to color output going to a stream that is (or is not) a terminal.
    pub(crate) fn enabled(self, is_terminal: bool) -> bool {
        super::style::wanted(self, is_terminal, std::env::var_os("NO_COLOR").as_deref())
    }
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum Command {
    /// Play a pack's suite of scenarios, or one conversation, against the scripted mock, a
    /// real model or a recording
    Run(Box<RunArgs>),
    /// Call one tool (bound in the config, or a program given with --server or --exec) and
    /// show exactly what happened
    InvokeTool(InvokeArgs),
    /// Send one event to one configured hook and show its decision
    #[command(subcommand)]
    Hook(HookCommand),
    /// Run test cases that call tools and hooks and check their answers
    Test(TestArgs),
    /// List the scenarios, test cases, tools, hooks and evals a suite would run
    List(ListArgs),
    /// List every tool the config (and pack) make available, exec, server and MCP, with
    /// its input schema; MCP servers are started to ask them
    Tools(ToolsArgs),
    /// Run one eval on some content, or a pack's evals over a recorded run
    Eval(EvalArgs),
    /// Check the config, a pack and scenario files, and the references between them
    Validate(ValidateArgs),
    /// Run every extension the config binds (or the named ones) through conformance
    /// probes, and fuzz its tools with arguments generated from their schemas
    Check(CheckArgs),
    /// Render and manage prompt templates
    #[command(subcommand)]
    Prompt(PromptCommand),
    /// Print shell completions
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
}

// Not an argument group of `--message` and `--messages-from`: clap would keep every
// message a second time for the group (3 MiB at 10,000 flags). The usage line names
// the two sources instead.
#[derive(Debug, Args)]
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

    /// Play the K-th of N slices of the suite, dealt in scenario id order
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::suite::Shard>,

    /// `human`: the conversation and a summary on stderr; `json`: one report document
    /// on stdout; `junit`: JUnit XML on stdout (turns and evals as testcases)
    #[arg(long, value_enum, default_value_t = RunFormat::Human)]
    pub format: RunFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Treat every warning from loading as an error: exit 2 before anything starts;
    /// in a suite, a PARTIAL scenario fails too (as with --fail-on-partial)
    #[arg(long)]
    pub strict: bool,
}

/// How a replayed model call finds its recorded answer (`--match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReplayMatch {
    Turn,
    Content,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunFormat {
    Human,
    Json,
    Junit,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["eval_type", "pack"])))]
pub(crate) struct EvalArgs {
    /// The eval type: bound in the config's spec.evals, or built in
    #[arg(value_name = "TYPE", requires = "content", conflicts_with_all = ["pack", "transcript"])]
    pub eval_type: Option<String>,

    /// The text to judge: inline, @FILE, or - for stdin
    #[arg(long, value_name = "TEXT")]
    pub content: Option<String>,

    /// The eval's params: a JSON object, inline or @FILE
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,

    /// The conversation around the content: a JSON object with messages, turn_index,
    /// tool_calls, variables and metadata, inline or @FILE
    #[arg(long, value_name = "JSON")]
    pub context: Option<String>,

    /// The lowest passing score
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub min_score: f64,

    /// The highest passing score
    #[arg(long, value_name = "Y")]
    pub max_score: Option<f64>,

    /// Run this PromptPack's evals over --transcript
    #[arg(long, value_name = "PACK", requires = "transcript")]
    pub pack: Option<PathBuf>,

    /// A transcript written by `run --transcript`
    #[arg(long, value_name = "FILE", requires = "pack")]
    pub transcript: Option<PathBuf>,

    /// The pack's prompt [default: the one the transcript played]
    #[arg(long, value_name = "ID", requires = "pack")]
    pub prompt: Option<String>,

    /// `json`: EvalResults on stdout; `human`: a table on stderr; `junit`: JUnit XML
    /// on stdout [default: json for one eval, human for a pack]
    #[arg(long, value_enum)]
    pub format: Option<RunFormat>,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct InvokeArgs {
    /// The tool: its name in the config's `spec.tools`, `mcp__SERVER__TOOL` for a tool of
    /// one of its `mcp_servers`, or the tool's own name with --server
    pub name: String,

    /// Call a tool of the MCP server this command line starts (stdio), with no config
    #[arg(long, value_name = "COMMAND", conflicts_with = "exec")]
    pub server: Option<String>,

    /// Call this command line as a one-shot exec tool, with no config
    #[arg(long, value_name = "COMMAND")]
    pub exec: Option<String>,

    /// The arguments: inline JSON, @FILE, or - for stdin
    #[arg(
        long,
        value_name = "JSON",
        default_value = "{}",
        conflicts_with = "batch"
    )]
    pub args: String,

    /// One argument, KEY=VALUE (repeatable): the value is JSON when it reads as JSON, else
    /// a string, and stays a string where the tool's schema says so
    #[arg(long = "arg", value_name = "KEY=VALUE", conflicts_with_all = ["args", "batch"])]
    pub arg: Vec<String>,

    /// Many calls: one JSON arguments object per line of FILE (or - for stdin); one
    /// JSON envelope per line on stdout, in input order
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,

    /// With --batch: how many calls run at once
    #[arg(short = 'j', long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub jobs: u64,

    /// Check the arguments against the tool's JSON Schema in this PromptPack first
    #[arg(long, value_name = "PACK")]
    pub pack: Option<PathBuf>,

    /// Deadline for the call, overriding the config's timeout_ms
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: Option<u64>,

    /// `result`: the tool's result alone; `json`: the whole call as one JSON object
    #[arg(long, value_enum, default_value_t = InvokeFormat::Result)]
    pub format: InvokeFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum InvokeFormat {
    Result,
    Json,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum HookCommand {
    /// Send one event to a hook (a realistic sample unless --event is given)
    Test(HookTestArgs),
}

#[derive(Debug, Args)]
pub(crate) struct HookTestArgs {
    /// The hook's name in the config's `spec.hooks`
    pub name: String,

    /// The phase to send [default: the hook's first phase]
    #[arg(long, value_name = "PHASE", conflicts_with = "all_phases")]
    pub phase: Option<String>,

    /// The payload: inline JSON, @FILE or - (stdin); an object without `hook` is taken as the
    /// phase's `request` (or `event`) and wrapped
    #[arg(long, value_name = "JSON")]
    pub event: Option<String>,

    /// Run every phase the hook is configured for, one decision per line
    #[arg(long, conflicts_with = "event")]
    pub all_phases: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// Case files, or directories searched for *.cases.yaml, *.cases.yml and *.cases.json
    /// [default: the current folder]
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,

    /// Only the cases whose name contains TEXT
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,

    /// Start no case after the first that fails or errs
    #[arg(long)]
    pub fail_fast: bool,

    /// Store the result of each snapshot case whose status is as expected, where
    /// the snapshot is missing or differs
    #[arg(long)]
    pub update_snapshots: bool,

    /// How many case files run at once [default: the number of cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,

    /// `human`: a line per case and a summary on stderr; `json`: one report document
    /// on stdout; `junit`: JUnit XML on stdout (a testsuite per case file)
    #[arg(long, value_enum, default_value_t = RunFormat::Human)]
    pub format: RunFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The PromptPack (JSON)
    pub pack: PathBuf,

    /// Scenario files, or folders searched for `*.scenario.yaml|yml|json`
    /// [default: the `scenarios/` folder beside the pack]
    #[arg(value_name = "SCENARIOS")]
    pub scenarios: Vec<PathBuf>,

    /// Case files, or folders searched for `*.cases.yaml|yml|json`, to list too
    /// (repeatable)
    #[arg(long = "cases", value_name = "FILE|DIR")]
    pub cases: Vec<PathBuf>,

    /// Only scenarios whose id contains TEXT, or whose label KEY is VALUE
    /// (`KEY=VALUE`); repeatable, any may match
    #[arg(long, value_name = "TEXT")]
    pub filter: Vec<String>,

    /// Only the K-th of N slices of the suite, as `run --shard` deals them
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::suite::Shard>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// `human`: tables on stdout; `json`: one document on stdout
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// The PromptPack: the schemas of exec tools, and which prompts offer each tool
    #[arg(long, value_name = "PACK")]
    pub pack: Option<PathBuf>,

    /// `human`: tables on stdout; `json`: one document on stdout
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Only these extensions: tool, hook or eval names, or MCP server names
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// The PromptPack: tool schemas to fuzz with, and output schemas to hold results to
    #[arg(long, value_name = "PACK")]
    pub pack: Option<PathBuf>,

    /// Only this probe (one of the names a report shows, such as `echoes_ids`)
    #[arg(long, value_name = "NAME")]
    pub probe: Option<String>,

    /// Seed of the generated arguments [default: a new one, printed in the report]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Generated argument sets per tool
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub cases: u64,

    /// How many extensions are checked at once [default: one per core]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,

    /// `human`: a table per extension; `json`: one document; `junit`: JUnit XML, a
    /// testsuite per extension
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    Human,
    Json,
    Junit,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The PromptPack (JSON) to check with the config
    #[arg(long, value_name = "PACK")]
    pub pack: Option<PathBuf>,

    /// Scenario files, or folders searched for `*.scenario.yaml|yml|json`, checked as
    /// `run` plays them (with --pack: their prompts, providers, variables and evals too)
    #[arg(value_name = "SCENARIOS")]
    pub scenarios: Vec<PathBuf>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// Treat every warning as an error (exit 2)
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum PromptCommand {
    /// Print a rendered template on stdout, and nothing else
    #[command(disable_version_flag = true)]
    Render(RenderArgs),
    #[command(flatten)]
    Library(LibraryCommand),
    #[command(flatten)]
    Share(ShareCommand),
}

#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// A prompt of the library
    #[arg(value_name = "ID", conflicts_with_all = ["file", "pack"])]
    pub id: Option<String>,

    /// With ID: this version rather than the latest
    #[arg(long, value_name = "V", requires = "id")]
    pub version: Option<u64>,

    /// A PromptKind template file (JSON)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pack", "prompt"])]
    pub file: Option<PathBuf>,

    /// A PromptPack (JSON)
    #[arg(long, value_name = "PACK")]
    pub pack: Option<PathBuf>,

    /// The prompt of the pack [default: the pack's only prompt]
    #[arg(long, value_name = "ID", requires = "pack")]
    pub prompt: Option<String>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// With ID: the library and who renders
    #[command(flatten)]
    pub library: LibraryArgs,
}

// Variable values, shared by every command that renders a template. (Not a doc
// comment, as above.)
#[derive(Debug, Args)]
pub(crate) struct VarArgs {
    /// A value for a variable or slot (repeatable); overrides --vars-file
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,

    /// Values for variables, from a JSON or YAML mapping
    #[arg(long, value_name = "FILE")]
    pub vars_file: Option<PathBuf>,

    /// The time for time variables (`current_date`, …), RFC 3339 [default: now]
    #[arg(long, value_name = "TIME", value_parser = crate::template::parse_rfc3339)]
    pub now: Option<std::time::SystemTime>,
}

/// A `--var` that is not `KEY=VALUE`.
#[derive(Debug, thiserror::Error)]
#[error("expected KEY=VALUE, found `{0}`")]
pub(crate) struct BadVar(String);

fn parse_var(text: &str) -> Result<(String, String), BadVar> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_string(), value.to_string()))
        }
        _ => Err(BadVar(text.to_string())),
    }
}
