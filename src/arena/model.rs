//! A `kind: Arena` project as read: what it plays, with what, and the settings
//! the suite takes from it. Parts that other players act on (self-play, judges,
//! the workflow, the extras) are kept as plain data with their positions.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::config::{Provider, RuntimeConfig};
use crate::doc::Pos;
use crate::pack::Pack;

use super::source_map::SourceMap;

/// An Arena project, loaded: the config and the pack its files compile to.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    pub arena: Arena,
    /// The PromptConfig and Tool files compiled into one pack (prompts keyed by
    /// `task_type`), named after the Arena file.
    pub pack: Pack,
    /// Where each part of the pack was written, for problems found in it later.
    pub source_map: SourceMap,
    /// Where each part of the config was written.
    pub config_map: SourceMap,
    /// The Provider files (with the inline `runtime`, or the RuntimeConfig file it
    /// names, and `mcp_servers`) as one RuntimeConfig.
    pub config: RuntimeConfig,
}

/// The `kind: Arena` file.
#[derive(Debug, Clone)]
pub(crate) struct Arena {
    pub path: PathBuf,
    /// The folder its file names are relative to.
    pub dir: PathBuf,
    /// `metadata.name` (else the file's stem).
    pub name: String,
    pub prompt_configs: Vec<PromptConfigRef>,
    /// `providers[]`, each file's `kind: Provider` read into the config's shape.
    pub providers: Vec<ArenaProvider>,
    /// `scenarios[].file`, resolved, with where each is written.
    pub scenarios: Vec<(PathBuf, Pos)>,
    /// `tools[].file`: how each tool runs (its schema is in the pack).
    pub tools: Vec<ArenaTool>,
    pub judges: Vec<JudgeRef>,
    pub judge_defaults: Option<JudgeDefaults>,
    pub self_play: Option<SelfPlay>,
    /// `workflow`, as written: compiled into the pack's `workflow`, which plays it.
    pub workflow: Option<Raw>,
    pub defaults: Defaults,
    /// Where `defaults` is written.
    pub defaults_pos: Pos,
    /// `globals.conversation_assertions`: added to every scenario's.
    pub conversation_assertions: Vec<RawAssertion>,
    /// `runtime`: a RuntimeConfig file binding exec tools, hooks, evals and MCP
    /// servers.
    pub runtime: Option<PathBuf>,
    /// Every other key PromptArena defines (`mcp_servers`, `a2a_agents`, `memory`,
    /// `compositions`, `skills`, `deploy`, ...), as written; each was reported
    /// with a warning unless something plays it.
    pub extras: IndexMap<String, Raw>,
    /// `evals[].file`: `kind: Eval` files, each a test case over a recording.
    pub evals: Vec<super::eval_file::EvalFile>,
}

/// A part of a file kept as written.
#[derive(Debug, Clone)]
pub(crate) struct Raw {
    pub value: Json,
    pub file: PathBuf,
    pub pos: Pos,
}

/// `prompt_configs[]`: a PromptConfig file and the variables the Arena gives it.
#[derive(Debug, Clone)]
pub(crate) struct PromptConfigRef {
    pub id: String,
    pub file: PathBuf,
    /// The prompt's `task_type`: what scenarios name it by.
    pub task_type: String,
    /// `vars`: values for its variables, under any the scenario gives.
    pub vars: IndexMap<String, String>,
    pub pos: Pos,
}

/// A `kind: Provider` file.
#[derive(Debug, Clone)]
pub(crate) struct ArenaProvider {
    pub provider: Provider,
    /// `group` (`default` when not given): a scenario that names no provider plays
    /// against those of the `default` group.
    pub group: String,
}

impl ArenaProvider {
    /// The id scenarios and roles name it by.
    pub(crate) fn id(&self) -> &str {
        self.provider.name()
    }
}

/// A `kind: Tool` file: its schema is in the pack, how it runs in the config's
/// tool bindings (from the keys `mode`, `mock_result`, `mock_template`, `http`,
/// `timeout_ms`).
#[derive(Debug, Clone)]
pub(crate) struct ArenaTool {
    pub name: String,
    pub file: PathBuf,
    pub pos: Pos,
}

/// `judges[]`: a judge name assertions use, and the provider that answers it.
#[derive(Debug, Clone)]
pub(crate) struct JudgeRef {
    pub name: String,
    pub provider: String,
    pub pos: Pos,
}

/// `judge_defaults`.
#[derive(Debug, Clone, Default)]
pub(crate) struct JudgeDefaults {
    pub prompt: Option<String>,
    pub prompt_registry: Option<String>,
}

/// `self_play`: the personas and the providers that speak for them.
#[derive(Debug, Clone)]
pub(crate) struct SelfPlay {
    pub enabled: bool,
    /// `personas[].file`, resolved.
    pub personas: Vec<(PathBuf, Pos)>,
    /// `roles[]`: a role id and the provider id that plays it.
    pub roles: Vec<SelfPlayRole>,
}

#[derive(Debug, Clone)]
pub(crate) struct SelfPlayRole {
    pub id: String,
    pub provider: String,
    pub pos: Pos,
}

/// `defaults`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Defaults {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u64>,
    /// Scenarios played at once.
    pub concurrency: Option<u64>,
    pub output: Output,
}

/// `defaults.output`: the reports written after a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Output {
    /// `dir`, resolved against the Arena file's folder.
    pub dir: Option<PathBuf>,
    /// `formats` (with the older `output_formats`), each with where it is written.
    pub formats: Vec<(String, Pos)>,
    /// A file name per format (`json.file`, `junit.file`, `html.file`,
    /// `markdown.file`), relative to `dir`.
    pub files: IndexMap<String, String>,
    /// `recording`: write a recording per scenario into this folder.
    pub recording: Option<PathBuf>,
}

impl Output {
    /// The file a format's report goes to: its own name if given, else
    /// PromptArena's (`index.json`, `results.xml`, `report.html`, `report.md`).
    pub(crate) fn file_for(&self, format: &str) -> Option<PathBuf> {
        let dir = self.dir.clone().unwrap_or_else(|| PathBuf::from("out"));
        let default = match format {
            "json" => "index.json",
            "junit" => "results.xml",
            "html" => "report.html",
            "markdown" => "report.md",
            _ => return None,
        };
        let name = self.files.get(format).map_or(default, String::as_str);
        Some(dir.join(name))
    }
}

/// An assertion of `globals.conversation_assertions`, as written.
#[derive(Debug, Clone)]
pub(crate) struct RawAssertion {
    pub kind: String,
    pub params: Json,
    pub message: Option<String>,
    /// `when`, as written (read where assertions are planned).
    pub when: Option<crate::doc::Node>,
    pub pass_threshold: Option<f64>,
    pub pos: Pos,
}
