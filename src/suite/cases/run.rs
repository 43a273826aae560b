//! Running the planned case files. Up to `jobs` files run at once on one thread: the
//! work is waiting on extension processes, which run in parallel anyway. Each file
//! gets its own extensions (a server tool or JSON-RPC hook starts when its first
//! case calls it), runs its cases in file order, and shuts them all down at its end.
//! Calls go through the same engine as `invoke-tool` and `hook test`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use serde_json::{Value as Json, json};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::exec::{Outcome, RawJson};
use crate::hooks::{ExecHook, HookDecision, HookReport, RpcHook, call_exec, call_rpc, start_rpc};
use crate::mcp::McpClient;
use crate::report::{CaseKind, CaseRecord, CaseStatus, FileRecord, TestRecord};
use crate::tool_caller::ToolCaller;
use crate::tools::{ArgsSchema, ToolMode, ToolReport, ToolStatus};

use super::bind::HookPoint;
use super::judge::{HookSeen, SnapshotCheck, ToolSeen, Verdict, judge_hook, judge_tool};
use super::model::CallStatus;
use super::plan::{
    CasesPlan, HookCall, PlannedCall, PlannedCase, PlannedFile, ToolCall, ToolTarget,
};
use super::snapshot;

/// What a run of case files shows as it goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CaseEvent<'r> {
    /// A case finished (in the order cases finish), in the file at `file`.
    Finished {
        file: &'r Path,
        case: &'r CaseRecord,
    },
}

/// Why a run of case files has no record.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CasesError {
    /// The plan's `stop` was cancelled: the calls in flight were stopped and every
    /// extension shut down.
    #[error("interrupted")]
    Interrupted,
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// Runs every planned file and shows each case to `on_event` as it finishes.
pub(crate) fn run(
    plan: &CasesPlan,
    mut on_event: impl FnMut(CaseEvent<'_>),
) -> Result<TestRecord, CasesError> {
    let started = Instant::now();
    let run = Run {
        plan,
        cancel: CancellationToken::new(),
        failed: Cell::new(false),
        watch: RefCell::new(&mut on_event),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CasesError::Runtime)?;
    let files = runtime.block_on(async {
        if plan.stop.is_cancelled() {
            return Err(CasesError::Interrupted);
        }
        let every_file = futures::stream::iter(plan.files.iter().map(|file| run.file(file)))
            .buffered(plan.jobs.max(1))
            .collect::<Vec<_>>();
        tokio::pin!(every_file);
        tokio::select! {
            files = &mut every_file => Ok(files),
            () = plan.stop.cancelled() => {
                run.cancel.cancel();
                every_file.await;
                Err(CasesError::Interrupted)
            }
        }
    })?;
    Ok(TestRecord::new(files, started.elapsed().as_millis() as u64))
}

/// Where each finished case is shown.
type Watch<'w> = &'w mut dyn FnMut(CaseEvent<'_>);

/// What every file's run shares.
struct Run<'p, 'w> {
    plan: &'p CasesPlan,
    /// Cancelled on an interrupt.
    cancel: CancellationToken,
    /// A case failed, so `--fail-fast` starts no more.
    failed: Cell<bool>,
    watch: RefCell<Watch<'w>>,
}

impl Run<'_, '_> {
    async fn file(&self, file: &PlannedFile) -> FileRecord {
        let started = Instant::now();
        let extensions = Extensions::for_cases(&file.cases);
        let mut cases = Vec::with_capacity(file.cases.len());
        let mut not_run = Vec::new();
        for case in &file.cases {
            if self.cancel.is_cancelled() || (self.plan.fail_fast && self.failed.get()) {
                not_run.push(case.name.clone());
                continue;
            }
            let record = self.case(case, &extensions).await;
            if self.cancel.is_cancelled() {
                break;
            }
            if record.status != CaseStatus::Passed {
                self.failed.set(true);
            }
            (self.watch.borrow_mut())(CaseEvent::Finished {
                file: &file.path,
                case: &record,
            });
            cases.push(record);
        }
        extensions.shutdown().await;
        FileRecord {
            file: file.path.display().to_string(),
            cases,
            not_run,
            duration_ms: started.elapsed().as_millis() as u64,
        }
    }

    async fn case(&self, case: &PlannedCase, extensions: &Extensions) -> CaseRecord {
        let started = Instant::now();
        let mut record = match &case.call {
            PlannedCall::Tool(call) => self.tool_case(&case.name, call, extensions).await,
            PlannedCall::Hook(call) => self.hook_case(&case.name, call, extensions).await,
        };
        record.duration_ms = started.elapsed().as_millis() as u64;
        record
    }

    async fn tool_case(&self, name: &str, call: &ToolCall, extensions: &Extensions) -> CaseRecord {
        // An MCP tool's schema is its server's: known once the server lists it.
        let violations = match &call.target {
            ToolTarget::Exec(_) => call.violations.clone(),
            ToolTarget::Mcp { server, tool } => {
                let client = &extensions.mcp_servers[&server.name];
                match mcp_violations(client, tool, &call.tool, &call.args).await {
                    Ok(violations) => violations,
                    Err(report) => return self.tool_record(name, call, report),
                }
            }
        };
        if !violations.is_empty() {
            // The arguments break the schema: no call is made.
            let text = violations.join("; ");
            let seen = ToolSeen {
                status: CallStatus::InvalidArgs,
                result: None,
                text: &text,
            };
            let verdict = judge_tool(&call.expect, &seen, None);
            let actual = json!({"tool": call.tool, "status": "invalid_args", "errors": violations});
            return case_record(name, CaseKind::Tool, &call.tool, verdict, actual);
        }
        let report = self.call_tool(&extensions.tools[&call.tool], call).await;
        self.tool_record(name, call, report)
    }

    /// A finished call judged against what the case expects.
    fn tool_record(&self, name: &str, call: &ToolCall, report: ToolReport) -> CaseRecord {
        let result = match report.status {
            ToolStatus::Ok => Some(report.result.as_ref().map_or(Json::Null, RawJson::to_value)),
            _ => None,
        };
        let text = answer_text(&report);
        let stored = call.snapshot.as_deref().map(snapshot::read);
        let shown = call.snapshot.as_ref().map(|p| p.display().to_string());
        let check = match (&stored, &shown) {
            (Some(stored), Some(shown)) => Some(SnapshotCheck {
                shown,
                stored,
                update: self.plan.update_snapshots,
            }),
            _ => None,
        };
        let seen = ToolSeen {
            status: report.status.into(),
            result: result.as_ref(),
            text: &text,
        };
        let verdict = judge_tool(&call.expect, &seen, check);
        let store = verdict.store_snapshot;
        let actual = serde_json::to_value(&report).unwrap_or_default();
        let mut record = case_record(name, CaseKind::Tool, &call.tool, verdict, actual);
        record.stderr_tail = report.stderr_tail;
        if let (true, Some(path), Some(result)) = (store, &call.snapshot, &result) {
            store_snapshot(&mut record, path, result);
        }
        record
    }

    /// One call through the tool's caller; on an interrupt a server is stopped
    /// without waiting, as `invoke-tool` does.
    async fn call_tool(&self, caller: &ToolCaller, call: &ToolCall) -> ToolReport {
        let work = caller.call(&call.args, call.timeout, &self.cancel);
        tokio::pin!(work);
        tokio::select! {
            report = &mut work => report,
            () = self.cancel.cancelled() => {
                caller.stop_now();
                work.await
            }
        }
    }

    async fn hook_case(&self, name: &str, call: &HookCall, extensions: &Extensions) -> CaseRecord {
        let report = match call.point {
            HookPoint::Exec(phase) => {
                let hook = &extensions.exec_hooks[&call.hook.name];
                call_exec(hook, phase, &call.payload, &self.cancel).await
            }
            HookPoint::Rpc(intercept) => {
                let server = &extensions.rpc_hooks[&call.hook.name];
                tokio::select! {
                    report = server.call(intercept, &call.payload) => report,
                    () = self.cancel.cancelled() => {
                        let mut report = HookReport::new(&call.hook.name, intercept.as_str(), HookDecision::Failed, 0);
                        report.reason = Some("interrupted".into());
                        report
                    }
                }
            }
        };
        let seen = HookSeen {
            decision: report.decision,
            action: report.action,
            reason: report.reason.as_deref(),
        };
        let verdict = judge_hook(&call.expect, &seen);
        let actual = serde_json::to_value(&report).unwrap_or_default();
        let mut record = case_record(name, CaseKind::Hook, &call.hook.name, verdict, actual);
        record.stderr_tail = report.stderr_tail;
        record
    }
}

fn case_record(
    name: &str,
    kind: CaseKind,
    target: &str,
    verdict: Verdict,
    actual: Json,
) -> CaseRecord {
    let mut record = CaseRecord {
        name: name.to_string(),
        kind,
        target: target.to_string(),
        status: verdict.status,
        duration_ms: 0,
        message: None,
        actual,
        problems: verdict.problems,
        stderr_tail: String::new(),
    };
    record.set_message(None);
    record
}

/// Writes `result` as the case's snapshot (`--update-snapshots`), and says so; a
/// snapshot that cannot be written fails the case.
fn store_snapshot(record: &mut CaseRecord, path: &Path, result: &Json) {
    match snapshot::write(path, result) {
        Ok(()) => record.set_message(Some(format!("snapshot written to {}", path.display()))),
        Err(err) => {
            record.status = CaseStatus::Failed;
            record.problems.push(format!(
                "snapshot {}: cannot write it: {err}",
                path.display()
            ));
            record.set_message(None);
        }
    }
}

/// What `matches` reads when the call has no result: the error (or why the process
/// failed), or the pending answer's reason and message.
fn answer_text(report: &ToolReport) -> String {
    match report.status {
        ToolStatus::Ok => String::new(),
        ToolStatus::Error | ToolStatus::Failed | ToolStatus::Timeout => {
            report.error.clone().unwrap_or_default()
        }
        ToolStatus::Pending => report
            .pending
            .as_ref()
            .map(|p| format!("{}: {}", p.reason, p.message))
            .unwrap_or_default(),
    }
}

/// The extensions one case file calls, each made once for the file.
struct Extensions {
    tools: HashMap<String, ToolCaller>,
    /// By name; each starts on its first call and serves all its tools.
    mcp_servers: HashMap<String, Arc<McpClient>>,
    exec_hooks: HashMap<String, ExecHook>,
    rpc_hooks: HashMap<String, RpcServer>,
}

/// A JSON-RPC hook and its handshake, done once: when it fails, every case of the
/// file that calls the hook gets that failure, without a new try each.
struct RpcServer {
    rpc: RpcHook,
    started: OnceCell<Result<(), HookReport>>,
}

impl RpcServer {
    async fn call(&self, intercept: crate::config::Intercept, params: &Json) -> HookReport {
        match self.started.get_or_init(|| start_rpc(&self.rpc)).await {
            Ok(()) => call_rpc(&self.rpc, intercept, params.clone()).await,
            Err(failed) => failed.clone(),
        }
    }
}

impl Extensions {
    /// Nothing starts here: a server starts on its first call.
    fn for_cases(cases: &[PlannedCase]) -> Self {
        let mut extensions = Self {
            tools: HashMap::new(),
            mcp_servers: HashMap::new(),
            exec_hooks: HashMap::new(),
            rpc_hooks: HashMap::new(),
        };
        for case in cases {
            match &case.call {
                PlannedCall::Tool(call) => {
                    let caller = match &call.target {
                        ToolTarget::Exec(spec) => ToolCaller::new(&call.tool, spec),
                        ToolTarget::Mcp { server, tool } => {
                            let client = extensions
                                .mcp_servers
                                .entry(server.name.clone())
                                .or_insert_with(|| Arc::new(McpClient::new(server)));
                            ToolCaller::mcp(&call.tool, tool, client)
                        }
                    };
                    extensions.tools.entry(call.tool.clone()).or_insert(caller);
                }
                PlannedCall::Hook(call) => match call.point {
                    HookPoint::Exec(_) => {
                        extensions
                            .exec_hooks
                            .entry(call.hook.name.clone())
                            .or_insert_with(|| ExecHook::new(call.hook.clone()));
                    }
                    HookPoint::Rpc(_) => {
                        if let Some(rpc) = RpcHook::new(&call.hook) {
                            extensions
                                .rpc_hooks
                                .entry(call.hook.name.clone())
                                .or_insert(RpcServer {
                                    rpc,
                                    started: OnceCell::new(),
                                });
                        }
                    }
                },
            }
        }
        extensions
    }

    /// Stops every process the file started, all at once.
    async fn shutdown(&self) {
        let tools = self.tools.values().map(|t| t.shutdown());
        let mcp_servers = self.mcp_servers.values().map(|s| s.shutdown());
        let hooks = self.exec_hooks.values().map(|h| h.shutdown());
        let servers = self.rpc_hooks.values().map(|s| s.rpc.shutdown());
        futures::future::join4(
            futures::future::join_all(tools),
            futures::future::join_all(mcp_servers),
            futures::future::join_all(hooks),
            futures::future::join_all(servers),
        )
        .await;
    }
}

/// How `args` break the schema of the MCP server's tool `tool`; the report of a call
/// that cannot be made when the server does not come up or does not offer the tool.
async fn mcp_violations(
    client: &McpClient,
    tool: &str,
    reported_as: &str,
    args: &Json,
) -> Result<Vec<String>, ToolReport> {
    let failed = |reason: String| {
        let mut report = ToolReport::new(reported_as, ToolMode::Mcp);
        report.settle(Outcome::ServerFailed { reason });
        report
    };
    let listing = client.tools().await.map_err(|failure| {
        let mut report = failed(failure.to_string());
        report.stderr_tail = failure.stderr_tail().to_string();
        report
    })?;
    let found = listing.lookup(tool).map_err(|rejected| {
        failed(match rejected {
            Some(rejected) => rejected.why(client.name()),
            None => format!("MCP server `{}` offers no tool `{tool}`", client.name()),
        })
    })?;
    Ok(ArgsSchema::new(&found.input_schema)
        .check(args)
        .iter()
        .map(ToString::to_string)
        .collect())
}
