//! Everything a run of case files will do, decided before any process starts: the
//! case files bound to the config, tool arguments checked against their pack's
//! schema, hook payloads built. Every problem of every file is reported, each at its
//! place.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{ExecSpec, Hook, McpServer, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics, Rejected, suggest};
use crate::hooks::{sample_params, sample_payload, wrap_event};
use crate::pack::{self, Pack};
use crate::tools::ArgsSchema;

use super::bind::{BoundTool, HookPoint, bind_hook, bind_tool};
use super::model::{
    CallStatus, Case, CaseFile, HookCase, HookExpect, Target, ToolCase, ToolExpect,
};
use super::snapshot::snapshot_path;

/// A run of case files, planned.
pub(crate) struct CasesPlan {
    /// In command-line order.
    pub files: Vec<PlannedFile>,
    /// How many files run at once.
    pub jobs: usize,
    pub fail_fast: bool,
    pub update_snapshots: bool,
    /// Cancelled when the command is interrupted: the calls in flight stop, every
    /// extension is shut down, and the run ends [`super::CasesError::Interrupted`].
    pub stop: CancellationToken,
}

pub(crate) struct PlannedFile {
    pub path: PathBuf,
    /// The selected cases, in file order.
    pub cases: Vec<PlannedCase>,
}

pub(crate) struct PlannedCase {
    pub name: String,
    pub call: PlannedCall,
}

pub(crate) enum PlannedCall {
    Tool(ToolCall),
    Hook(HookCall),
}

pub(crate) struct ToolCall {
    pub tool: String,
    pub target: ToolTarget,
    pub args: Json,
    pub timeout: Option<Duration>,
    /// How the arguments break the pack's schema; only a case that expects
    /// `invalid_args` gets this far with any, and its tool is then not called.
    pub violations: Vec<String>,
    pub expect: ToolExpect,
    /// Where the result's snapshot is kept, when the case compares with one.
    pub snapshot: Option<PathBuf>,
}

/// What runs a tool case's tool.
pub(crate) enum ToolTarget {
    Exec(ExecSpec),
    /// A tool of an MCP server: its schema is the server's, checked when the server
    /// has listed it.
    Mcp {
        server: Box<McpServer>,
        tool: String,
    },
}

pub(crate) struct HookCall {
    pub hook: Hook,
    pub point: HookPoint,
    pub payload: Json,
    pub expect: HookExpect,
}

/// Every case of the loaded files planned against `config` (each pack read once),
/// every problem in `problems` at its place; a case with a problem is left out.
pub(crate) fn plan_files(
    loaded: &[CaseFile],
    config: &RuntimeConfig,
    problems: &mut Diagnostics,
) -> Vec<PlannedFile> {
    let packs = load_packs(loaded, problems);
    let mut snapshots = HashMap::new();
    loaded
        .iter()
        .map(|file| plan_file(file, config, &packs, &mut snapshots, problems))
        .collect()
}

/// Each pack the case files name, read once; one that cannot be read is a problem
/// at the `pack:` that names it.
fn load_packs(files: &[CaseFile], problems: &mut Diagnostics) -> HashMap<PathBuf, Pack> {
    let mut packs = HashMap::new();
    let mut tried = std::collections::HashSet::new();
    for file in files {
        let Some(named) = &file.pack else {
            continue;
        };
        if let Err(err) = std::fs::metadata(&named.value) {
            problems.push(Diagnostic::error(
                &file.path,
                named.pos,
                format!("pack: cannot read `{}`: {err}", named.value.display()),
            ));
            continue;
        }
        if !tried.insert(named.value.clone()) {
            continue;
        }
        match pack::load(&named.value) {
            Ok(pack) => {
                problems.extend(pack.warnings);
                packs.insert(named.value.clone(), pack.value);
            }
            Err(Rejected(found)) => problems.extend(found),
        }
    }
    packs
}

/// Which case stores its snapshot where, so two case files whose names differ only
/// in their extension cannot overwrite each other's snapshots.
type SnapshotOwners = HashMap<PathBuf, (PathBuf, String)>;

fn plan_file(
    file: &CaseFile,
    config: &RuntimeConfig,
    packs: &HashMap<PathBuf, Pack>,
    snapshots: &mut SnapshotOwners,
    problems: &mut Diagnostics,
) -> PlannedFile {
    let pack = file.pack.as_ref().and_then(|p| packs.get(&p.value));
    let cases = file
        .cases
        .iter()
        .filter_map(|case| {
            let call = match &case.target {
                Target::Tool(tool) => plan_tool(file, case, tool, pack, config, problems)
                    .filter(|call| owns_snapshot(file, case, call, snapshots, problems))
                    .map(PlannedCall::Tool),
                Target::Hook(hook) => {
                    plan_hook(&file.path, case, hook, config, problems).map(PlannedCall::Hook)
                }
            }?;
            Some(PlannedCase {
                name: case.name.clone(),
                call,
            })
        })
        .collect();
    PlannedFile {
        path: file.path.clone(),
        cases,
    }
}

fn plan_tool(
    file: &CaseFile,
    case: &Case,
    tool: &ToolCase,
    pack: Option<&Pack>,
    config: &RuntimeConfig,
    problems: &mut Diagnostics,
) -> Option<ToolCall> {
    let target = match bind_tool(tool, &file.path, config, problems)? {
        BoundTool::Exec(spec) => ToolTarget::Exec(spec.clone()),
        BoundTool::Mcp(server, name) => ToolTarget::Mcp {
            server: Box::new(server.clone()),
            tool: name.to_string(),
        },
    };
    let violations = match (pack, &target) {
        (Some(pack), ToolTarget::Exec(_)) => {
            schema_violations(&file.path, case, tool, pack, problems)?
        }
        _ => Vec::new(),
    };
    Some(ToolCall {
        tool: tool.tool.value.clone(),
        target,
        args: tool.args.value.clone(),
        timeout: tool.timeout,
        violations,
        expect: tool.expect.clone(),
        snapshot: tool
            .expect
            .snapshot
            .then(|| snapshot_path(&file.path, &case.name)),
    })
}

/// Whether the case's snapshot file is its own; if another case of another file
/// has it, that is a problem at this case.
fn owns_snapshot(
    file: &CaseFile,
    case: &Case,
    call: &ToolCall,
    owners: &mut SnapshotOwners,
    problems: &mut Diagnostics,
) -> bool {
    let Some(path) = &call.snapshot else {
        return true;
    };
    match owners.get(path) {
        Some((other_file, other_case)) => {
            problems.push(Diagnostic::error(
                &file.path,
                case.pos,
                format!(
                    "case `{}`: its snapshot {} is also that of case `{other_case}` of {}; rename one",
                    case.name,
                    path.display(),
                    other_file.display()
                ),
            ));
            false
        }
        None => {
            owners.insert(path.clone(), (file.path.clone(), case.name.clone()));
            true
        }
    }
}

/// The arguments checked against the pack's schema for the tool, as `invoke-tool
/// --pack` checks them. Violations the case does not expect are problems at its
/// `args`; `None` when there is a problem.
fn schema_violations(
    file: &Path,
    case: &Case,
    tool: &ToolCase,
    pack: &Pack,
    problems: &mut Diagnostics,
) -> Option<Vec<String>> {
    let name = &tool.tool.value;
    let Some(definition) = pack.tools.get(name) else {
        let hint = suggest(name, pack.tools.keys().map(String::as_str));
        problems.push(Diagnostic::error(
            file,
            tool.tool.pos,
            format!(
                "the pack {} defines no tool `{name}`{hint}",
                pack.path.display()
            ),
        ));
        return None;
    };
    let violations: Vec<String> = ArgsSchema::new(&definition.parameters)
        .check(&tool.args.value)
        .iter()
        .map(ToString::to_string)
        .collect();
    if violations.is_empty() || tool.expect.status == CallStatus::InvalidArgs {
        return Some(violations);
    }
    for violation in &violations {
        problems.push(Diagnostic::error(
            file,
            tool.args.pos,
            format!(
                "case `{}`: arguments for tool `{name}` break its schema at {violation}",
                case.name
            ),
        ));
    }
    None
}

fn plan_hook(
    file: &Path,
    case: &Case,
    hook_case: &HookCase,
    config: &RuntimeConfig,
    problems: &mut Diagnostics,
) -> Option<HookCall> {
    let (hook, point) = bind_hook(hook_case, file, config, problems)?;
    let payload = match (&hook_case.event, point) {
        (Some(event), HookPoint::Exec(phase)) => {
            match wrap_event(hook, phase, event.value.clone()) {
                Ok(payload) => payload,
                Err(why) => {
                    problems.push(Diagnostic::error(
                        file,
                        event.pos,
                        format!("case `{}`: event: {why}", case.name),
                    ));
                    return None;
                }
            }
        }
        (Some(event), HookPoint::Rpc(_)) => event.value.clone(),
        (None, HookPoint::Exec(phase)) => sample_payload(phase, config),
        (None, HookPoint::Rpc(intercept)) => sample_params(intercept, config),
    };
    Some(HookCall {
        hook: hook.clone(),
        point,
        payload,
        expect: hook_case.expect.clone(),
    })
}
