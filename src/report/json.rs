use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value as Json, json};

use crate::evals::eval_counts;
use crate::session::SessionEvent;

use super::{RunRecord, turn_outcome, warnings_json};

/// The `--format json` document: the whole run, with the parts scripts look for
/// pulled out of the event stream. It serializes straight from the record, each part
/// in one pass over the events, so writing it builds no copy of the run.
pub struct JsonReport<'a>(pub &'a RunRecord);

/// The events one predicate picks, as a list.
struct Picked<'a>(&'a [SessionEvent], fn(&SessionEvent) -> bool);

impl Serialize for Picked<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().filter(|e| (self.1)(e)))
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
        let events = record.events.as_slice();
        let evals = record.evals();
        let tool_calls = record.count(is_tool_call);
        let tool_errors =
            record.count(|e| matches!(e, SessionEvent::ToolCall { status, .. } if !status.is_ok()));
        let totals = json!({
            "turns": record.turns.len(),
            "model_calls": record.count(|e| matches!(e, SessionEvent::ModelCall { .. })),
            "tool_calls": tool_calls,
            "tool_errors": tool_errors,
            "hook_decisions": record.count(is_hook),
            "extension_failures": record.failures().count(),
            "evals": eval_counts(&evals).to_json(),
            "dropped_events": record.dropped_events,
            "duration_ms": record.duration_ms,
        });
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("prompt", &record.prompt)?;
        map.serialize_entry("scenario", &record.scenario)?;
        map.serialize_entry("variables", &record.variables)?;
        map.serialize_entry("system_prompt", &record.system_prompt)?;
        map.serialize_entry("messages", &record.messages)?;
        map.serialize_entry("turns", &Outcomes(record))?;
        map.serialize_entry("tool_calls", &Picked(events, is_tool_call))?;
        map.serialize_entry("hook_decisions", &Picked(events, is_hook))?;
        map.serialize_entry("hooks_ran", &Picked(events, is_hooks_ran))?;
        map.serialize_entry("decisions", &Picked(events, is_decision))?;
        map.serialize_entry("extension_failures", &Picked(events, is_failure))?;
        map.serialize_entry("evals", &evals)?;
        map.serialize_entry("totals", &totals)?;
        map.serialize_entry("events", events)?;
        map.serialize_entry("warnings", &warnings_json(&record.warnings))?;
        map.serialize_entry("exit_code", &record.exit_code)?;
        map.end()
    }
}

/// The same document as a JSON value.
pub fn json_report(record: &RunRecord) -> Json {
    serde_json::to_value(JsonReport(record)).unwrap_or_default()
}
