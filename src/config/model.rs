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
    /// MCP servers whose tools join the tool set, by name.
    pub mcp_servers: IndexMap<String, McpServer>,
    pub logging: Logging,
    /// A PromptArena project's judges, in its order: judge name -> the provider (by
    /// name) that answers it. The first answers evals that name no judge.
    pub judges: IndexMap<String, String>,
    /// A PromptArena project's runtime tools (mocked A2A agents, memory, skills):
    /// each conversation starts its own from this.
    pub(crate) runtime_tools: Option<crate::agents::RuntimeSpec>,
}

#[derive(Debug, Clone, Default)]
pub struct Provider {
    pub id: Option<String>,
    /// `mock`, `openai`, `ollama`, `claude`, or a type PromptKit knows and
    /// promptexec does not play (refused when chosen, not when loaded).
    pub kind: String,
    pub model: Option<String>,
    /// The API's root, `/v1` included (`http://localhost:11434/v1`); `None` for the
    /// type's default.
    pub base_url: Option<String>,
    /// Extra request headers, in file order.
    pub headers: IndexMap<String, String>,
    pub credential: Option<Credential>,
    pub defaults: ModelDefaults,
    pub pricing: Option<Pricing>,
    /// The whole request, retries excluded; `None` for the default.
    pub request_timeout: Option<Duration>,
    /// Longest silence inside a streamed answer; `None` for the default.
    pub stream_idle_timeout: Option<Duration>,
    pub rate_limit: Option<RateLimit>,
    /// `additional_config.mock_config`, resolved against the config's directory.
    pub mock_config: Option<PathBuf>,
    /// A `replay` provider's `additional_config.recording`, resolved against the
    /// config's directory, and where the config names it.
    pub recording: Option<(PathBuf, Pos)>,
    /// A `replay` provider's `additional_config.match` is `content`: a call takes the
    /// answer recorded after the same last user message (else the next, by turn).
    pub match_content: bool,
    pub pos: Pos,
}

impl Provider {
    /// The name reports and `--provider` use: the id, else the type.
    pub fn name(&self) -> &str {
        self.id.as_deref().unwrap_or(&self.kind)
    }

    /// The provider and model hook payloads name for `provider`, or for the bare mock
    /// when none plays.
    pub fn hook_names(provider: Option<&Provider>) -> (String, String) {
        let name = provider.map_or("mock", Provider::name);
        let model = provider.and_then(|p| p.model.as_deref());
        (name.to_string(), model.unwrap_or("mock-model").to_string())
    }
}

impl RuntimeConfig {
    /// The provider that plays when none is named: the mock provider, else the first.
    pub fn default_provider(&self) -> Option<&Provider> {
        let providers = &self.providers;
        providers
            .iter()
            .find(|p| p.kind == "mock")
            .or(providers.first())
    }
}

/// Where a provider's API key comes from (`credential`).
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// Written in the config itself (`api_key`).
    Key(String),
    /// The named environment variable (`credential_env`).
    Env(String),
    /// The first line of a file (`credential_file`), resolved against the config's directory.
    File(PathBuf),
}

/// Written by hand so that printing a config never prints a key it holds.
impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credential::Key(_) => f.write_str("Key(<redacted>)"),
            Credential::Env(name) => f.debug_tuple("Env").field(name).finish(),
            Credential::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

/// Sampling settings sent with every request (`defaults`); unset ones are left to the API.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ModelDefaults {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u64>,
}

/// US dollars per 1000 tokens (`pricing`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pricing {
    pub input_per_1k: f64,
    pub output_per_1k: f64,
}

/// Requests per second, with bursts of up to `burst` (`rate_limit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub rps: u32,
    pub burst: u32,
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

impl ExecSpec {
    /// `command` run in `working_dir` with no arguments, no variables passed on and
    /// every limit at its default.
    pub fn plain(command: impl Into<PathBuf>, working_dir: impl Into<PathBuf>) -> ExecSpec {
        ExecSpec {
            command: command.into(),
            args: Vec::new(),
            env: Vec::new(),
            timeout: None,
            working_dir: working_dir.into(),
            max_output_bytes: None,
            runtime: RuntimeMode::default(),
            max_in_flight: None,
            command_pos: Pos::default(),
            arg_positions: Vec::new(),
            env_mode: EnvMode::default(),
        }
    }
}

crate::wire_enum! {
    /// Which host variables reach a child (`env_mode`).
    #[derive(Default)]
    pub enum EnvMode {
        /// The base set (`PATH`, `HOME`, `LANG`, `LC_ALL`, `TZ`, `TMPDIR`) and the listed names.
        #[default]
        Base = "base",
        /// Exactly the listed names, as PromptKit passes them to a one-shot process.
        Listed = "listed",
    }
}

crate::wire_enum! {
    /// How an extension's process lives (`runtime`).
    #[derive(Default)]
    pub enum RuntimeMode {
        /// One process per call.
        #[default]
        Exec = "exec",
        /// One long-running JSON-RPC process.
        Server = "server",
    }
}

#[derive(Debug, Clone)]
pub struct ToolBinding {
    pub name: String,
    pub run: ToolRun,
    /// What calling it may change; `check` calls a tool that writes with generated
    /// arguments only when told it may.
    pub side_effects: SideEffects,
    pub pos: Pos,
}

/// A tool's `side_effects`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SideEffects {
    /// Not said: treated as today, fuzzed.
    #[default]
    Unstated,
    /// `none`: calling it changes nothing.
    None,
    /// `writes`: calling it may change data.
    Writes,
}

impl ToolBinding {
    /// How to start the tool's process, for an exec tool.
    pub fn exec(&self) -> Option<&ExecSpec> {
        match &self.run {
            ToolRun::Exec(spec) => Some(spec),
            _ => None,
        }
    }
}

/// How a bound tool is answered (`mode` and the keys that go with it).
#[derive(Debug, Clone)]
pub enum ToolRun {
    /// A process per call or a JSON-RPC server (`exec`).
    Exec(ExecSpec),
    /// Answered without any process (`mode: mock`).
    Mock(MockTool),
    /// An HTTP request per call (`mode: live`, `http`).
    Http(Box<HttpTool>),
    /// Answered by the application's own code (`mode: client`, `mode: local`) or
    /// an MCP server named elsewhere (`mode: mcp`): nothing promptexec can call.
    Elsewhere { mode: &'static str },
    /// No way to run it is given.
    Unbound,
}

impl ToolRun {
    /// Whether promptexec can call the tool: exec, mock and live tools.
    pub fn callable(&self) -> bool {
        matches!(self, ToolRun::Exec(_) | ToolRun::Mock(_) | ToolRun::Http(_))
    }

    /// The word a listing shows for how the tool runs.
    pub fn mode(&self) -> &'static str {
        match self {
            ToolRun::Exec(spec) => spec.runtime.as_str(),
            ToolRun::Mock(_) => "mock",
            ToolRun::Http(_) => "live",
            ToolRun::Elsewhere { mode } => mode,
            ToolRun::Unbound => "unbound",
        }
    }
}

/// A mock tool: its answer, and how long a call may take (`timeout_ms`).
#[derive(Debug, Clone)]
pub struct MockTool {
    pub answer: MockAnswer,
    /// `mock_parts` as written: content parts shown beside the result.
    pub parts: Option<serde_json::Value>,
    pub timeout: Option<Duration>,
}

/// What a mock tool answers.
#[derive(Debug, Clone)]
pub enum MockAnswer {
    /// `mock_result`: the same value for every call.
    Result(serde_json::Value),
    /// `mock_template`: a Go text/template rendered against the call's arguments; the
    /// output is the result when it parses as JSON, else `{"result": TEXT}`.
    Template(crate::go_template::Template),
    /// Neither: PromptKit's fixed `{"result": "mock response"}`.
    Default,
}

/// A live tool: one HTTP request per call (`http`).
#[derive(Debug, Clone)]
pub struct HttpTool {
    /// May hold `{{.arg}}` placeholders filled from the arguments.
    pub url: crate::go_template::Template,
    /// Upper case; `POST` when not given.
    pub method: String,
    pub headers: IndexMap<String, String>,
    /// `Header=VARIABLE`: the header is set from the variable when it is set.
    pub headers_from_env: Vec<(String, String)>,
    /// The request's deadline (`http.timeout_ms`, else the tool's `timeout_ms`).
    pub timeout: Option<Duration>,
    /// Top-level fields of a JSON object answer replaced by `[REDACTED]`.
    pub redact: Vec<String>,
    pub request: Option<HttpRequestMapping>,
    /// `response.body_mapping`: a JMESPath expression applied to the answer.
    pub response_mapping: Option<String>,
    pub pos: Pos,
}

/// How the arguments become the request (`http.request`).
#[derive(Debug, Clone, Default)]
pub struct HttpRequestMapping {
    pub query_params: Vec<String>,
    /// Header name to a template over the arguments.
    pub header_params: IndexMap<String, crate::go_template::Template>,
    /// A JMESPath expression reshaping the body's arguments.
    pub body_mapping: Option<String>,
    pub exclude: Vec<String>,
    pub static_query: IndexMap<String, String>,
    pub static_headers: IndexMap<String, String>,
    pub static_body: serde_json::Map<String, serde_json::Value>,
}

/// An MCP server the config binds (`spec.mcp_servers[]`). Its tools are named
/// `mcp__<server>__<tool>`.
#[derive(Debug, Clone)]
pub struct McpServer {
    pub name: String,
    pub endpoint: McpEndpoint,
    /// Each call's deadline (`timeout_ms`); `None` for the default.
    pub timeout: Option<Duration>,
    pub tool_filter: McpToolFilter,
    pub pos: Pos,
}

/// Where an MCP server is and how promptexec talks to it.
#[derive(Debug, Clone)]
pub enum McpEndpoint {
    /// A child speaking JSON-RPC on stdin and stdout (`command`). `exec.env` is empty:
    /// the child gets the base set and `env`'s values.
    Stdio {
        exec: ExecSpec,
        env: IndexMap<String, String>,
    },
    /// A server at `url`, over the streamable HTTP transport.
    Http {
        url: String,
        headers: IndexMap<String, String>,
    },
}

/// Headers the streamable HTTP transport sets on its own requests; a config's would
/// clash with them (the SDK refuses the first three and replaces the protocol version
/// after the handshake).
pub const MCP_TRANSPORT_HEADERS: &[&str] = &[
    "Accept",
    "Mcp-Session-Id",
    "Last-Event-Id",
    "MCP-Protocol-Version",
];

/// Which of a server's tools join the tool set (`tool_filter`). Each pattern is a
/// glob (`*`, `?`) matched against the tool's own name and its `mcp__server__tool`
/// name; an empty allowlist allows every tool, and the blocklist wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpToolFilter {
    pub allowlist: Vec<String>,
    pub blocklist: Vec<String>,
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
    /// Variables set for the hook's process (`env` written as a map, as PicoClaw
    /// writes it), over the host's; values are never shown.
    pub env_values: IndexMap<String, String>,
    /// Lower runs first; ties keep declaration order.
    pub priority: i64,
    pub kind: HookKind,
    pub pos: Pos,
}

crate::wire_enum! {
    /// The four hook types of the reference (`hook`).
    pub enum HookType {
        Provider = "provider",
        Tool = "tool",
        Session = "session",
        Eval = "eval",
    }
}

impl HookType {
    /// The phases a hook of this type can subscribe to; none for eval hooks.
    pub fn phases(self) -> &'static [HookPhase] {
        match self {
            HookType::Provider => &[HookPhase::BeforeCall, HookPhase::AfterCall],
            HookType::Tool => &[HookPhase::BeforeExecution, HookPhase::AfterExecution],
            HookType::Session => &[
                HookPhase::SessionStart,
                HookPhase::SessionUpdate,
                HookPhase::SessionEnd,
            ],
            HookType::Eval => &[],
        }
    }
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

impl HookKind {
    /// The reference's hook type; `None` for a JSON-RPC hook, which has none.
    pub fn hook_type(&self) -> Option<HookType> {
        match self {
            HookKind::Provider { .. } => Some(HookType::Provider),
            HookKind::Tool { .. } => Some(HookType::Tool),
            HookKind::Session { .. } => Some(HookType::Session),
            HookKind::Eval => Some(HookType::Eval),
            HookKind::Server(_) => None,
        }
    }
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

crate::wire_enum! {
    /// Whether a one-shot hook may block (`mode`).
    pub enum HookMode {
        /// Can block; any failure denies.
        Filter = "filter",
        /// Never blocks; failures are logged.
        Observe = "observe",
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerHook {
    pub intercept: Vec<Intercept>,
    pub observe: ObserveEvents,
    pub on_failure: OnFailure,
    pub approval_timeout: Option<Duration>,
    pub handshake_timeout: Option<Duration>,
    /// The notification method for events.
    pub event_method: EventMethod,
}

crate::wire_enum! {
    /// What a JSON-RPC hook intercepts; its method is `hook.` and this name.
    pub enum Intercept {
        BeforeLlm = "before_llm",
        AfterLlm = "after_llm",
        BeforeTool = "before_tool",
        AfterTool = "after_tool",
        ApproveTool = "approve_tool",
    }
}

crate::wire_enum! {
    /// The notification a JSON-RPC hook hears events through (`event_method`).
    pub enum EventMethod {
        /// Classic event kinds, `{"Kind", "Meta", "Payload"}`: only when a config
        /// names it (PicoClaw no longer sends it).
        Event = "hook.event",
        /// PicoClaw's runtime events, with `kind`, `source` and `scope`: the default.
        RuntimeEvent = "hook.runtime_event",
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObserveEvents {
    None,
    All,
    Kinds(Vec<String>),
}

crate::wire_enum! {
    /// What a failed interceptor amounts to (`on_failure`).
    pub enum OnFailure {
        /// Skip the failed interceptor with a warning.
        Skip = "skip",
        Deny = "deny",
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Logging {
    pub default_level: Option<LogLevel>,
    pub format: LogFormat,
}

crate::wire_enum! {
    /// `logging.defaultLevel`.
    pub enum LogLevel {
        Trace = "trace",
        Debug = "debug",
        Info = "info",
        Warn = "warn",
        Error = "error",
    }
}

crate::wire_enum! {
    /// `logging.format`.
    #[derive(Default)]
    pub enum LogFormat {
        #[default]
        Text = "text",
        Json = "json",
    }
}
