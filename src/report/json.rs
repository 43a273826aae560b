use serde::ser::{Error as _, Serialize, SerializeMap, Serializer};
use serde_json::json;

use crate::evals::EvalCounts;
use crate::session::{EventLog, SessionEvent};

use super::{ModelTotals, RunRecord, turn_outcome, warnings_json};

/// The `--format json` document: the whole run, with the parts scripts look for
/// pulled out of the event stream. It serializes straight from the record, each part
/// in one pass over the event log, so writing it builds no copy of the run.
pub(crate) struct JsonReport<'a>(pub &'a RunRecord);

/// The events one predicate picks, as a list.
struct Picked<'a>(&'a EventLog, fn(&SessionEvent) -> bool);

impl Serialize for Picked<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().filter(|e| (self.1)(e)))
    }
}

/// The eval results, read as they are written.
struct Evals<'a>(&'a RunRecord);

impl Serialize for Evals<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.evals())
    }
}

/// Every event, in order.
struct All<'a>(&'a EventLog);

impl Serialize for All<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// The counts of the `totals` object, gathered in one pass over the events.
#[derive(Default)]
struct Counts {
    model_calls: usize,
    tool_calls: usize,
    tool_errors: usize,
    hook_decisions: usize,
    failures: usize,
    evals: EvalCounts,
}

impl Counts {
    fn of(events: &EventLog) -> Self {
        let mut counts = Self::default();
        for event in events.iter() {
            match event {
                SessionEvent::ModelCall { .. } => counts.model_calls += 1,
                SessionEvent::ToolCall { status, .. } => {
                    counts.tool_calls += 1;
                    counts.tool_errors += usize::from(!status.is_ok());
                }
                SessionEvent::Hook { .. } => counts.hook_decisions += 1,
                SessionEvent::ExtensionFailed { .. } => counts.failures += 1,
                SessionEvent::Eval(result) => counts.evals.add(result.status),
                _ => {}
            }
        }
        counts
    }
}

/// The turns' outcomes, made one at a time as they are written.
struct Outcomes<'a>(&'a RunRecord);

impl Serialize for Outcomes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .turns
                .iter()
                .enumerate()
                .map(|(i, end)| turn_outcome(i, end)),
        )
    }
}

fn is_tool_call(e: &SessionEvent) -> bool {
    matches!(e, SessionEvent::ToolCall { .. })
}

fn is_hook(e: &SessionEvent) -> bool {
    matches!(e, SessionEvent::Hook { .. })
}

fn is_hooks_ran(e: &SessionEvent) -> bool {
    matches!(e, SessionEvent::HooksRan { .. })
}

fn is_decision(e: &SessionEvent) -> bool {
    matches!(
        e,
        SessionEvent::Pending { .. } | SessionEvent::Decision { .. }
    )
}

fn is_failure(e: &SessionEvent) -> bool {
    matches!(e, SessionEvent::ExtensionFailed { .. })
}

impl Serialize for JsonReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let record = self.0;
        let events = &record.events;
        let counts = Counts::of(events);
        let model = ModelTotals::of(events.iter());
        let totals = json!({
            "turns": record.turns.len(),
            "model_calls": counts.model_calls,
            "tool_calls": counts.tool_calls,
            "tool_errors": counts.tool_errors,
            "hook_decisions": counts.hook_decisions,
            "extension_failures": counts.failures,
            "evals": counts.evals.to_json(),
            "dropped_events": record.dropped_events,
            "duration_ms": record.duration_ms,
            "model": model,
        });
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("prompt", &record.prompt)?;
        if let Some(used) = &record.library_prompt {
            map.serialize_entry("library_prompt", used)?;
        }
        map.serialize_entry("scenario", &record.scenario)?;
        map.serialize_entry("variables", &record.variables)?;
        map.serialize_entry("system_prompt", &record.system_prompt)?;
        map.serialize_entry("messages", &record.messages)?;
        map.serialize_entry("turns", &Outcomes(record))?;
        map.serialize_entry("tool_calls", &Picked(events, is_tool_call))?;
        if let Some(workflow) = crate::session::workflow_of(events.iter()) {
            map.serialize_entry("workflow", &workflow)?;
        }
        map.serialize_entry("hook_decisions", &Picked(events, is_hook))?;
        map.serialize_entry("hooks_ran", &Picked(events, is_hooks_ran))?;
        map.serialize_entry("decisions", &Picked(events, is_decision))?;
        map.serialize_entry("extension_failures", &Picked(events, is_failure))?;
        map.serialize_entry("evals", &Evals(record))?;
        map.serialize_entry("totals", &totals)?;
        map.serialize_entry("events", &All(events))?;
        map.serialize_entry("warnings", &warnings_json(&record.warnings))?;
        map.serialize_entry("exit_code", &record.exit_code)?;
        // A pass the log cut short would leave lists silently incomplete.
        if let Some(err) = events.error() {
            return Err(S::Error::custom(format!("the event log: {err}")));
        }
        map.end()
    }
}
