use serde_json::{Value as Json, json};

use crate::evals::eval_counts;
use crate::session::SessionEvent;

use super::{RunRecord, turn_outcome, warnings_json};

/// The `--format json` document: the whole run, with the parts scripts look for
/// pulled out of the event stream.
pub fn json_report(record: &RunRecord) -> Json {
    let pick = |kinds: &[&str]| -> Vec<Json> {
        record
            .events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap_or_default())
            .filter(|e| kinds.contains(&e["event"].as_str().unwrap_or_default()))
            .collect()
    };
    let evals = record.evals();
    let tool_calls = pick(&["tool_call"]);
    let tool_errors =
        record.count(|e| matches!(e, SessionEvent::ToolCall { status, .. } if !status.is_ok()));
    json!({
        "prompt": record.prompt,
        "scenario": record.scenario,
        "variables": record.variables,
        "system_prompt": record.system_prompt,
        "messages": record.messages,
        "turns": record.turns.iter().enumerate().map(|(i, end)| turn_outcome(i, end)).collect::<Vec<_>>(),
        "tool_calls": tool_calls,
        "hook_decisions": pick(&["hook"]),
        "hooks_ran": pick(&["hooks_ran"]),
        "decisions": pick(&["pending", "decision"]),
        "extension_failures": pick(&["extension_failed"]),
        "evals": evals,
        "totals": {
            "turns": record.turns.len(),
            "model_calls": record.count(|e| matches!(e, SessionEvent::ModelCall { .. })),
            "tool_calls": tool_calls.len(),
            "tool_errors": tool_errors,
            "hook_decisions": record.count(|e| matches!(e, SessionEvent::Hook { .. })),
            "extension_failures": record.failures().count(),
            "evals": eval_counts(&evals).to_json(),
            "dropped_events": record.dropped_events,
            "duration_ms": record.duration_ms,
        },
        "events": record.events,
        "warnings": warnings_json(&record.warnings),
        "exit_code": record.exit_code,
    })
}
