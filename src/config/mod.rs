//! The PromptKit RuntimeConfig: where it is found, how it is read, and the validated
//! types every command uses.

mod discover;
mod load;
mod model;
mod phase;
mod resolve;
mod secrets;

pub use discover::{ConfigSource, discover};
pub use load::{LoadError, load, load_text};
pub use model::{
    Credential, EnvMode, EvalBinding, EventMethod, ExecSpec, Hook, HookKind, HookMode, HookPhase,
    HookType, HttpRequestMapping, HttpTool, Intercept, LogFormat, LogLevel, Logging,
    MCP_TRANSPORT_HEADERS, McpEndpoint, McpServer, McpToolFilter, MockAnswer, MockTool,
    ModelDefaults, ObserveEvents, OnFailure, Pricing, Provider, RateLimit, RuntimeConfig,
    RuntimeMode, ServerHook, SideEffects, ToolBinding, ToolRun,
};
pub use phase::{Phase, Place};
pub use secrets::{looks_secret, register_secrets};
