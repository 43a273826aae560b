use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;

use crate::doc::Pos;

/// A resolved RuntimeConfig. Paths are absolute, durations typed, names checked.
#[derive(Debug, Clone, Default)]
pub struct RuntimeConfig {
    /// The file it came from; `None` for the empty config used when there is none.
    pub path: Option<PathBuf>,
    /// The directory relative paths and children's working directories start from.
    pub base_dir: PathBuf,
    pub name: Option<String>,
    pub providers: Vec<Provider>,
    pub tools: IndexMap<String, ToolBinding>,
    pub evals: IndexMap<String, EvalBinding>,
    /// In declaration order; runners sort by priority themselves.
    pub hooks: IndexMap<String, Hook>,
    pub logging: Logging,
}

#[derive(Debug, Clone)]
pub struct Provider {
    pub id: Option<String>,
    pub kind: String,
    pub model: Option<String>,
    /// `additional_config.mock_config`, resolved against the config's directory.
    pub mock_config: Option<PathBuf>,
    pub pos: Pos,
}

/// How to start one extension process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecSpec {
    /// A bare name (looked up in `PATH`) or an absolute path.
    pub command: PathBuf,
    pub args: Vec<String>,
    /// Names of host variables passed through to the child.
    pub env: Vec<String>,
    /// `None` means the default for the kind of call.
    pub timeout: Option<Duration>,
    pub working_dir: PathBuf,
    pub max_output_bytes: Option<u64>,
    pub runtime: RuntimeMode,
    /// Server mode: how many calls may wait on the process at once.
    pub max_in_flight: Option<u64>,
    /// Where `command` is written, for messages about it.
    pub command_pos: Pos,
    /// Where each of `args` is written, for messages about it.
    pub arg_positions: Vec<Pos>,
    /// Which host variables the child gets besides promptexec's own.
    pub env_mode: EnvMode,
}

/// Which host variables reach a child (`env_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvMode {
    /// The base set (`PATH`, `HOME`, `LANG`, `LC_ALL`, `TZ`, `TMPDIR`) and the listed names.
    #[default]
    Base,
    /// Exactly the listed names, as PromptKit passes them to a one-shot process.
    Listed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RuntimeMode {
    /// One process per call.
    #[default]
    Exec,
    /// One long-running JSON-RPC process.
    Server,
}

#[derive(Debug, Clone)]
pub struct ToolBinding {
    pub name: String,
    /// `None` for a tool PromptKit runs some other way (HTTP, mock, client).
    pub exec: Option<ExecSpec>,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub struct EvalBinding {
    pub eval_type: String,
    pub exec: ExecSpec,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub struct Hook {
    pub name: String,
    pub exec: ExecSpec,
    /// Lower runs first; ties keep declaration order.
    pub priority: i64,
    pub kind: HookKind,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookKind {
    /// A one-shot hook of one of the reference's four types.
    Provider {
        phases: Vec<HookPhase>,
        mode: HookMode,
    },
    Tool {
        phases: Vec<HookPhase>,
        mode: HookMode,
    },
    /// Session hooks only observe.
    Session { phases: Vec<HookPhase> },
    /// Eval hooks are fire-and-forget and have no phases.
    Eval,
    /// A long-running JSON-RPC hook.
    Server(ServerHook),
}

crate::wire_enum! {
    /// When a one-shot hook runs.
    pub enum HookPhase {
        BeforeCall = "before_call",
        AfterCall = "after_call",
        BeforeExecution = "before_execution",
        AfterExecution = "after_execution",
        SessionStart = "session_start",
        SessionUpdate = "session_update",
        SessionEnd = "session_end",
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookMode {
    /// Can block; any failure denies.
    Filter,
    /// Never blocks; failures are logged.
    Observe,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerHook {
    pub intercept: Vec<Intercept>,
    pub observe: ObserveEvents,
    pub on_failure: OnFailure,
    pub approval_timeout: Option<Duration>,
    pub handshake_timeout: Option<Duration>,
    /// The notification method for events: `hook.event` or `hook.runtime_event`.
    pub event_method: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intercept {
    BeforeLlm,
    AfterLlm,
    BeforeTool,
    AfterTool,
    ApproveTool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObserveEvents {
    None,
    All,
    Kinds(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnFailure {
    /// Skip the failed interceptor with a warning.
    Skip,
    Deny,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Logging {
    pub default_level: Option<LogLevel>,
    pub format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}
