//! Server-mode tools: one long-running JSON-RPC process per tool, started on first
//! use, shared by every caller, and supervised ([`Supervisor`] holds the restart
//! policy). At most `max_in_flight` calls (default 64) wait on the process at once;
//! more wait their turn.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value as Json;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::config::ExecSpec;
use crate::exec::CallKind;
use crate::exec::rpc::{NoReply, Reply, RestartPolicy, Supervisor};

use super::{ToolReport, tool_request};

const DEFAULT_MAX_IN_FLIGHT: usize = 64;

pub struct ToolServer {
    name: String,
    spec: ExecSpec,
    slots: Semaphore,
    process: Supervisor,
}

impl ToolServer {
    pub fn new(name: &str, spec: &ExecSpec) -> Self {
        Self::with_policy(name, spec, RestartPolicy::default())
    }

    pub fn with_policy(name: &str, spec: &ExecSpec, policy: RestartPolicy) -> Self {
        let slots = spec
            .max_in_flight
            .map_or(DEFAULT_MAX_IN_FLIGHT, |n| n as usize);
        Self {
            name: name.to_string(),
            spec: spec.clone(),
            slots: Semaphore::new(slots),
            process: Supervisor::new(name, CallKind::Tool, spec, policy, None),
        }
    }

    /// Calls `execute` with `args`.
    pub async fn call(&self, args: &Json, timeout: Option<Duration>) -> ToolReport {
        self.execute(&tool_request(args, None), timeout).await
    }

    /// Calls `execute` with the whole request (`args`, and `resolution` when given).
    pub async fn execute(&self, request: &impl Serialize, timeout: Option<Duration>) -> ToolReport {
        let started = Instant::now();
        // The deadline counts from when a slot is free: at once, most of the time.
        // The wait for one is boxed, so that every call does not carry room for it.
        let (_slot, slotted) = match self.slots.try_acquire() {
            Ok(slot) => (Ok(slot), started),
            Err(_) => (Box::pin(self.slots.acquire()).await, Instant::now()),
        };
        let timeout = timeout
            .or(self.spec.timeout)
            .unwrap_or_else(|| CallKind::Tool.default_timeout());
        let reply = self
            .process
            .exchange_raw_by("execute", request, slotted + timeout, timeout)
            .await;
        let reply = reply.map_err(|missed| NoReply::of(missed, timeout));
        let mut report = ToolReport::new(&self.name, self.spec.runtime.into());
        report.duration_ms = started.elapsed().as_millis() as u64;
        match reply {
            Ok(Reply::Result(answer)) => report.answered(answer),
            Ok(Reply::Error { code, message }) => {
                report.answered_error(format!("{message} (JSON-RPC error {code})"));
            }
            Err(NoReply {
                outcome,
                stderr_tail,
            }) => {
                report.settle(outcome);
                report.stderr_tail = stderr_tail;
            }
        }
        report
    }

    /// Kills the process now, without waiting; calls on it fail.
    pub fn kill(&self) {
        self.process.kill();
    }

    /// Stops the process gracefully: stdin closed, the grace period, then SIGKILL.
    pub async fn shutdown(&self) {
        self.process.shutdown().await;
    }
}
