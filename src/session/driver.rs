//! The turn driver: one conversation, played a user message at a time.
//!
//! A turn runs in this order. The user message is recorded, and the prompt's input
//! guardrails judge it (`guard.rs`): one that fires answers in the model's place.
//! Then, up to `max_rounds` times: the `before_call` hooks see the request (and may
//! answer in the model's place or end the turn), the provider answers, the
//! `after_call` hooks and the output guardrails see the answer; each tool call in it
//! passes the prompt's policy and the schema, then the `before_execution` hooks, the
//! tool itself (with a decision when it answers `pending`) and the
//! `after_execution` hooks (`tool_call.rs`), and its result goes back to the model
//! for the next round. An answer without tool calls ends the turn; its evals run
//! (`evaluate.rs`) and session hooks hear of it.
//! Before the first turn JSON-RPC hooks shake hands and `session_start` runs;
//! [`Session::end`] runs the session's evals and `session_end`.
//!
//! Everything that happens is a [`SessionEvent`], appended to the `events` log and
//! handed to the sink as it happens. The driver never prints: the human stream, the JSON and
//! JUnit reports and the transcript are all made from the same events, and
//! `eval --transcript` can replay them. How verdicts fold and how a child ended are
//! decided by pure functions in `hooks` and `exec`; the driver only puts them in
//! order.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::config::{HookPhase, RuntimeConfig};
use crate::conversation::{History, ToolChoice, message};
use crate::evals::{Evaluator, Point};
use crate::hooks::HookDispatcher;
use crate::mcp::McpToolSet;
use crate::pack::{Pack, Prompt};
use crate::provider::Provider;
use crate::tool_caller::ToolCaller;

use super::workflow::{WorkflowRecorder, WorkflowRun};
use super::{
    Approvals, Chaos, EventLog, ExtensionKind, Guardrails, HookAction, Phase, SessionEvent,
    TurnEndReason,
};

mod answer;
mod evaluate;
mod guard;
mod hook_gates;
mod round;
mod startup;
mod tool_call;
mod workflow;

/// The id sessions report to hooks and evals; the same on every run, so sampled
/// evals pick the same turns.
const SESSION_ID: &str = "sess_1";

/// The finish reason of an answer a hook's policy decided.
const SAFETY: &str = "safety";

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The model answered without calling tools.
    Answered,
    /// `max_rounds` model calls were made without a final answer.
    RoundLimit,
    /// A hook ended the turn.
    Aborted { hook: String, reason: String },
    /// A hook stopped the whole run.
    HardAborted { hook: String, reason: String },
    /// A tool is waiting on a person's decision and none was given.
    Pending {
        tool: String,
        call_id: String,
        message: String,
    },
    /// An extension the run depends on failed before the turn could start.
    Failed { reason: String },
}

impl TurnEnd {
    /// Whether the run goes on to the next message after this turn.
    pub fn run_continues(&self) -> bool {
        matches!(
            self,
            TurnEnd::Answered | TurnEnd::RoundLimit | TurnEnd::Aborted { .. }
        )
    }
}

/// The tools the conversation may come to offer: its prompt's, and under a workflow
/// those of every state's prompt, each once, in order.
fn tool_entries<'p>(
    pack: &'p Pack,
    prompt: &'p Prompt,
    workflow: Option<&WorkflowRun<'p>>,
) -> Vec<&'p str> {
    let mut names: Vec<&str> = prompt.tools.iter().map(|(n, _)| n.as_str()).collect();
    let Some(run) = workflow else {
        return names;
    };
    for task in run.spec().prompts() {
        for (name, _) in pack.prompts.get(task).map_or(&[][..], |p| &p.tools[..]) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    names
}

/// Receives every event as it happens.
pub(super) type EventSink<'a> = Box<dyn FnMut(&SessionEvent) + 'a>;

/// One conversation: the rendered system prompt, the messages so far, and everything
/// that runs for it.
pub struct Session<'a> {
    prompt: &'a Prompt,
    pack: &'a Pack,
    provider: Box<dyn Provider + 'a>,
    hooks: HookDispatcher,
    tools: HashMap<String, ToolCaller>,
    /// The MCP servers the prompt's `mcp__…` entries name, and the tools they gave.
    mcp: McpToolSet,
    evaluator: Option<Evaluator>,
    guardrails: Guardrails,
    system_prompt: String,
    /// What hook payloads name as the provider and model: the config's.
    provider_id: String,
    model: String,
    sink: Option<EventSink<'a>>,
    /// The template variables, for evals.
    pub variables: Json,
    pub messages: History,
    /// Every event so far, on disk: a long run keeps none of them in memory.
    pub events: EventLog,
    /// The answers and tool calls of the turn in progress, for its evals (kept only
    /// when there are evals).
    turn_events: Vec<SessionEvent>,
    /// Where the messages of the turn in progress begin.
    turn_messages: usize,
    turn: u32,
    started: bool,
    session_started: Instant,
    turn_started: Instant,
    /// How long the last turn took, for `latency_budget`.
    turn_ms: u64,
    /// The tokens and money the model calls so far reported, when any did.
    spent: Option<crate::provider::Usage>,
    /// Tools the model may call this round: the prompt's, minus the blocklist, plus
    /// any a hook added.
    offered: Vec<String>,
    calls_this_turn: u64,
    calls_in_session: u64,
    /// How often each tool was called with each arguments this turn (kept only
    /// under a `max_identical_tool_calls` policy).
    identical_calls: HashMap<(String, String), u64>,
    /// Tool failures to inject; the driver of the session sets each turn's rules.
    pub chaos: Chaos,
    /// Overrides the prompt's `tool_policy.max_rounds`.
    pub max_rounds: Option<u64>,
    pub approvals: Approvals,
    /// Ask HTTP providers for streamed answers.
    pub stream: bool,
    cancel: CancellationToken,
    /// The workflow being played, when the pack has one and the prompt speaks in
    /// one of its states.
    workflow: Option<WorkflowRun<'a>>,
    /// What evals see of the workflow, from the events so far.
    workflow_seen: WorkflowRecorder,
}

impl<'a> Session<'a> {
    pub fn new(
        config: &RuntimeConfig,
        pack: &'a Pack,
        prompt: &'a Prompt,
        system_prompt: String,
        provider: impl Provider + 'a,
        cancel: CancellationToken,
    ) -> Self {
        // The config's default provider, unless the session is told who plays.
        let (provider_id, model) = crate::config::Provider::hook_names(config.default_provider());
        let workflow = pack
            .workflow
            .as_ref()
            .and_then(|w| WorkflowRun::start(w, &prompt.id));
        // Under a workflow, every state's prompt may come to speak: its tools too.
        let entries = tool_entries(pack, prompt, workflow.as_ref());
        // And every other tool of the pack: PromptKit runs a call of any tool it has
        // registered, offered or not.
        let rest = pack.tools.keys().map(String::as_str);
        // One conversation's runtime tools: its own memories and active skills
        // (checked when the project was read).
        let runtime = config.runtime_tools.as_ref().and_then(|spec| {
            let tools = spec.start().ok()?;
            Some((spec, std::sync::Arc::new(tools)))
        });
        let tools = entries
            .iter()
            .copied()
            .chain(rest.filter(|name| !entries.contains(name)))
            .filter_map(|name| {
                // The runtime's own tools (agents, memory, skills) answer first.
                if let Some((spec, runtime)) = &runtime
                    && spec.offers(name)
                {
                    return Some((name.to_string(), ToolCaller::runtime(name, runtime)));
                }
                let caller = ToolCaller::for_binding(config.tools.get(name)?).ok()?;
                Some((name.to_string(), caller))
            })
            .collect();
        let mcp = McpToolSet::for_entries(config, entries.iter().copied());
        Self {
            prompt,
            pack,
            provider: Box::new(provider),
            hooks: HookDispatcher::new(config.hooks.values().cloned(), cancel.clone()),
            tools,
            mcp,
            evaluator: None,
            guardrails: Guardrails::of(prompt),
            system_prompt,
            provider_id,
            model,
            sink: None,
            variables: json!({}),
            messages: History::default(),
            events: EventLog::new(),
            turn_events: Vec::new(),
            turn_messages: 0,
            turn: 0,
            started: false,
            session_started: Instant::now(),
            turn_started: Instant::now(),
            turn_ms: 0,
            spent: None,
            offered: Vec::new(),
            calls_this_turn: 0,
            calls_in_session: 0,
            identical_calls: HashMap::new(),
            chaos: Chaos::default(),
            max_rounds: None,
            approvals: Approvals::default(),
            stream: false,
            cancel,
            workflow,
            workflow_seen: WorkflowRecorder::default(),
        }
    }

    /// Names the provider and model in hook payloads (the config's mock, or `mock`,
    /// unless said otherwise).
    pub fn played_by(mut self, provider_id: String, model: String) -> Self {
        self.provider_id = provider_id;
        self.model = model;
        self
    }

    /// Runs these evals at their triggers.
    pub fn with_evals(mut self, evaluator: Evaluator) -> Self {
        self.evaluator = Some(evaluator);
        self
    }

    /// Hands every event to `sink` as it happens.
    pub fn on_event(mut self, sink: impl FnMut(&SessionEvent) + 'a) -> Self {
        self.sink = Some(Box::new(sink));
        self
    }

    fn emit(&mut self, event: SessionEvent) {
        if let SessionEvent::ExtensionFailed {
            kind, name, reason, ..
        } = &event
        {
            self.hooks.event(
                "error",
                &json!({"Kind": kind.as_str(), "Name": name, "Error": reason}),
            );
        }
        if let Some(sink) = &mut self.sink {
            sink(&event);
        }
        self.workflow_seen.observe(&event);
        self.events.push(&event);
        let judged = matches!(
            event,
            SessionEvent::Assistant { .. }
                | SessionEvent::ToolCall { .. }
                | SessionEvent::Hook { .. }
                | SessionEvent::HooksRan { .. }
                | SessionEvent::Guardrail { .. }
        );
        if judged && self.evaluator.is_some() {
            self.turn_events.push(event);
        }
    }

    /// The prompt's tools as the model sees them, minus the blocklist; none under
    /// `tool_choice: none`. An `mcp__…` entry stands for the MCP tools it matches.
    fn prompt_tools(&self) -> Vec<Json> {
        if self.prompt.tool_policy.tool_choice == ToolChoice::None {
            return Vec::new();
        }
        let function = |name: &str, description: &str, parameters: &Json| json!({"type": "function", "function": {"name": name, "description": description, "parameters": parameters}});
        let blocked = |name: &str| self.prompt.tool_policy.blocklist.iter().any(|b| b == name);
        // An MCP tool that two entries match (a name and a glob) is offered once.
        let mut names: Vec<&str> = Vec::new();
        let mut offered = Vec::new();
        for (name, _) in &self.prompt.tools {
            if let Some(t) = self.pack.tools.get(name) {
                if !blocked(name) {
                    offered.push(function(&t.name, &t.description, &t.parameters));
                }
                continue;
            }
            for t in self.mcp.matching(name) {
                if !blocked(&t.name) && !names.contains(&t.name.as_str()) {
                    names.push(&t.name);
                    offered.push(function(&t.name, &t.description, &t.input_schema));
                }
            }
        }
        if let Some(run) = &self.workflow {
            offered.extend(run.tool());
            offered.extend(run.artifact_tool());
        }
        offered
    }

    /// The JSON Schema of tool `name`'s arguments: the pack's, or its MCP server's.
    pub(super) fn tool_schema(&self, name: &str) -> Option<&Json> {
        if let Some(schema) = self.workflow.as_ref().and_then(|run| run.schema(name)) {
            return Some(schema);
        }
        match self.pack.tools.get(name) {
            Some(tool) => Some(&tool.parameters),
            None => self.mcp.get(name).map(|t| &t.input_schema),
        }
    }

    /// Plays one user turn to its end. Before the first, the session starts: the
    /// JSON-RPC hooks shake hands and session hooks hear of it. After a turn the
    /// model answered, its evals run; session hooks hear of every turn.
    pub async fn turn(&mut self, user_text: &str) -> TurnEnd {
        if let Some(end) = self.cancelled() {
            return end;
        }
        if !self.started {
            self.started = true;
            self.session_started = Instant::now();
            self.emit(SessionEvent::SessionStart {
                session_id: SESSION_ID.into(),
                prompt: self.prompt.id.clone(),
                system_prompt: self.system_prompt.clone(),
                variables: self.variables.clone(),
            });
            self.workflow_started();
            if let Err(reason) = self.hooks.start().await {
                return TurnEnd::Failed {
                    reason: reason.to_string(),
                };
            }
            if let Some(end) = self.cancelled() {
                return end;
            }
            if let Err(end) = self.start_mcp().await {
                return end;
            }
            let notified = self
                .hooks
                .session(HookPhase::SessionStart, &self.session_info())
                .await;
            self.hooks_ran(HookPhase::SessionStart, notified);
        }
        let end = self.play_turn(user_text).await;
        if let Some(end) = self.cancelled() {
            return end;
        }
        if matches!(end, TurnEnd::Answered | TurnEnd::RoundLimit) {
            self.evaluate(Point::TurnEnd(self.turn)).await;
        }
        let notified = self
            .hooks
            .session(HookPhase::SessionUpdate, &self.session_info())
            .await;
        self.hooks_ran(HookPhase::SessionUpdate, notified);
        end
    }

    async fn play_turn(&mut self, user_text: &str) -> TurnEnd {
        let turn = self.start_turn(user_text);
        if let Some(blocked) = self.guardrails.check_input(user_text) {
            return self.block_input(turn, blocked);
        }
        let max_rounds = self
            .max_rounds
            .unwrap_or(self.prompt.tool_policy.max_rounds);
        let max_rounds = u32::try_from(max_rounds).unwrap_or(u32::MAX);
        for round in 1..=max_rounds {
            if let Some(end) = self.play_round(turn, round).await {
                return end;
            }
        }
        self.end_turn(turn, TurnEndReason::RoundLimit);
        TurnEnd::RoundLimit
    }

    /// Clears what a turn counts, records the user's message and says the turn
    /// started; the turn's number.
    fn start_turn(&mut self, user_text: &str) -> u32 {
        self.turn += 1;
        self.hooks.set_turn(self.turn);
        self.calls_this_turn = 0;
        self.identical_calls.clear();
        self.turn_started = Instant::now();
        self.turn_events.clear();
        self.turn_messages = self.messages.len();
        let turn = self.turn;
        self.emit(SessionEvent::User {
            turn,
            content: user_text.to_string(),
        });
        self.messages.push(message("user", user_text));
        self.hooks
            .event("turn_start", &json!({"turn": turn, "user": user_text}));
        turn
    }

    fn end_turn(&mut self, turn: u32, reason: TurnEndReason) {
        self.turn_ms = self.turn_started.elapsed().as_millis() as u64;
        self.emit(SessionEvent::TurnEnd { turn, reason });
        self.hooks
            .event("turn_end", &json!({"turn": turn, "reason": reason}));
    }

    /// Ends a conversation that ran its course: its session-level evals run and
    /// session hooks hear `session_end`.
    pub async fn end(&mut self) {
        if self.turn == 0 || self.cancel.is_cancelled() {
            return;
        }
        self.evaluate(Point::SessionEnd).await;
        if let Some(err) = self.provider.leftover() {
            self.emit(SessionEvent::ExtensionFailed {
                turn: self.turn,
                kind: ExtensionKind::Model,
                name: self.provider_id.clone(),
                phase: Phase::MODEL,
                reason: err.to_string(),
                stderr_tail: String::new(),
            });
        }
        let notified = self
            .hooks
            .session(HookPhase::SessionEnd, &self.session_info())
            .await;
        self.hooks_ran(HookPhase::SessionEnd, notified);
        self.emit(SessionEvent::SessionEnd { turns: self.turn });
    }

    /// Waits for observers, then stops servers and JSON-RPC hooks. Returns how many
    /// events JSON-RPC hooks could not be sent.
    pub async fn finish(&mut self) -> u64 {
        let dropped = self.hooks.finish().await;
        self.hook_failures();
        for caller in self.tools.values() {
            caller.shutdown().await;
        }
        self.mcp.shutdown().await;
        if let Some(evaluator) = &self.evaluator {
            evaluator.shutdown().await;
        }
        dropped
    }
}
