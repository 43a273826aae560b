//! How a request made differs from the recorded one, for people reading a failed
//! replay: one line per difference, naming the message by index and role and the
//! field, long texts cut down to the neighbourhood of their first difference.

use serde_json::Value as Json;

use crate::diff::text::{Excerpt, first_difference};

use super::{NormalizedMessage, NormalizedToolCall, NormalizedToolResult, RequestMatch};

/// How many differences are shown before the rest are only counted.
pub const MAX_LINES: usize = 8;

/// A text up to this many characters is shown whole.
const SHORT: usize = 60;
/// Around the first difference of a longer text: characters shown before and from it.
const BEFORE: usize = 20;
const FROM: usize = 40;

/// Every difference between the recorded request and the one made. Only the parts the
/// recording holds are compared.
pub fn differences(recorded: &RequestMatch, made: &RequestMatch) -> Vec<String> {
    let mut lines = Vec::new();
    if let (Some(recorded), Some(made)) = (&recorded.system, &made.system) {
        lines.extend(text_line("system prompt", recorded, made));
    }
    if let (Some(recorded), Some(made)) = (&recorded.tools, &made.tools)
        && recorded != made
    {
        lines.push(format!(
            "tools: recorded {}, made {}",
            list(recorded),
            list(made)
        ));
    }
    if let (Some(recorded_messages), Some(made_messages)) = (&recorded.messages, &made.messages) {
        message_differences(
            (recorded.from, recorded_messages),
            (made.from, made_messages),
            &mut lines,
        );
    }
    lines
}

/// The lines, indented, at most [`MAX_LINES`] of them and then how many more there are.
pub fn render(lines: &[String]) -> String {
    let mut shown: Vec<String> = lines
        .iter()
        .take(MAX_LINES)
        .map(|line| format!("  {line}"))
        .collect();
    if lines.len() > MAX_LINES {
        shown.push(format!("  and {} more", lines.len() - MAX_LINES));
    }
    shown.join("\n")
}

/// `label: recorded "…" — made "…"` when the texts differ; a long text is cut down
/// to where they first differ, which is then named.
pub fn text_line(label: &str, recorded: &str, made: &str) -> Option<String> {
    texts_line(label, recorded, made, true)
}

fn texts_line(label: &str, recorded: &str, made: &str, quoted: bool) -> Option<String> {
    if recorded == made {
        return None;
    }
    let at = first_difference(recorded, made);
    let long = recorded.chars().count() > SHORT || made.chars().count() > SHORT;
    let shown = |text: &str| {
        let excerpt = if long {
            excerpt(text, at)
        } else {
            Excerpt::whole(text)
        };
        show(&excerpt, quoted)
    };
    let (recorded, made) = (shown(recorded), shown(made));
    Some(if long {
        format!(
            "{label} differs at character {}: recorded {recorded} — made {made}",
            at + 1
        )
    } else {
        format!("{label}: recorded {recorded} — made {made}")
    })
}

/// An excerpt as shown: `…` where it was cut, quoted and escaped as a JSON string
/// when `quoted`.
fn show(excerpt: &Excerpt, quoted: bool) -> String {
    let body = if quoted {
        let json = Json::String(excerpt.text.clone()).to_string();
        json[1..json.len() - 1].to_string()
    } else {
        excerpt.text.clone()
    };
    let before = if excerpt.cut_before { "…" } else { "" };
    let after = if excerpt.cut_after { "…" } else { "" };
    let quote = if quoted { "\"" } else { "" };
    format!("{quote}{before}{body}{after}{quote}")
}

/// A text quoted, only its start when it is long.
pub fn quoted(text: &str) -> String {
    if text.chars().count() <= SHORT {
        return show(&Excerpt::whole(text), true);
    }
    show(&excerpt(text, 0), true)
}

/// The characters of `text` around character `at`.
fn excerpt(text: &str, at: usize) -> Excerpt {
    Excerpt::around(text, at, BEFORE, FROM)
}

fn list(names: &[String]) -> String {
    format!("[{}]", names.join(", "))
}

/// Each side is where its messages start in the conversation, and the messages; a
/// message is named by its place in the whole conversation.
fn message_differences(
    (from, recorded): (usize, &[NormalizedMessage]),
    (made_from, made): (usize, &[NormalizedMessage]),
    lines: &mut Vec<String>,
) {
    let (recorded_total, made_total) = (from + recorded.len(), made_from + made.len());
    if recorded_total != made_total {
        lines.push(format!(
            "messages: recorded {recorded_total}, made {made_total}"
        ));
    }
    if from != made_from {
        // Not compared from the same place: the counts above say enough.
        return;
    }
    for (i, (recorded, made)) in recorded.iter().zip(made).enumerate() {
        one_message(
            &format!("messages[{}] ({})", from + i, recorded.role),
            recorded,
            made,
            lines,
        );
    }
    let common = recorded.len().min(made.len());
    for (i, message) in recorded.iter().enumerate().skip(common) {
        lines.push(format!(
            "messages[{}] ({}) is only in the recording{}",
            from + i,
            message.role,
            gist(message)
        ));
    }
    for (i, message) in made.iter().enumerate().skip(common) {
        lines.push(format!(
            "messages[{}] ({}) is only in the request made{}",
            from + i,
            message.role,
            gist(message)
        ));
    }
}

/// What a message says, shortly, after a colon; nothing when it says nothing.
fn gist(message: &NormalizedMessage) -> String {
    if !message.content.is_empty() {
        return format!(": {}", quoted(&message.content));
    }
    if !message.tool_calls.is_empty() {
        return format!(": calls {}", list(&call_names(&message.tool_calls)));
    }
    String::new()
}

fn call_names(calls: &[NormalizedToolCall]) -> Vec<String> {
    calls.iter().map(|c| c.name.clone()).collect()
}

fn one_message(
    name: &str,
    recorded: &NormalizedMessage,
    made: &NormalizedMessage,
    lines: &mut Vec<String>,
) {
    if recorded.role != made.role {
        lines.push(format!(
            "{name}.role: recorded {}, made {}",
            recorded.role, made.role
        ));
    }
    lines.extend(text_line(
        &format!("{name}.content"),
        &recorded.content,
        &made.content,
    ));
    if recorded.tool_calls.len() != made.tool_calls.len() {
        lines.push(format!(
            "{name}.tool_calls: recorded {}, made {}",
            list(&call_names(&recorded.tool_calls)),
            list(&call_names(&made.tool_calls))
        ));
    } else {
        for (j, (recorded, made)) in recorded.tool_calls.iter().zip(&made.tool_calls).enumerate() {
            let call = format!("{name}.tool_calls[{j}]");
            if recorded.name != made.name {
                lines.push(format!(
                    "{call}.name: recorded {}, made {}",
                    recorded.name, made.name
                ));
            }
            if recorded.args != made.args {
                lines.extend(texts_line(
                    &format!("{call}.args"),
                    &recorded.args.to_string(),
                    &made.args.to_string(),
                    false,
                ));
            }
        }
    }
    match (&recorded.tool_result, &made.tool_result) {
        (Some(recorded), Some(made)) => tool_result(name, recorded, made, lines),
        (Some(recorded), None) => lines.push(format!(
            "{name}.tool_result: recorded one from {}, made none",
            recorded.name
        )),
        (None, Some(made)) => lines.push(format!(
            "{name}.tool_result: recorded none, made one from {}",
            made.name
        )),
        (None, None) => {}
    }
}

fn tool_result(
    name: &str,
    recorded: &NormalizedToolResult,
    made: &NormalizedToolResult,
    lines: &mut Vec<String>,
) {
    if recorded.name != made.name {
        lines.push(format!(
            "{name}.tool_result.name: recorded {}, made {}",
            recorded.name, made.name
        ));
    }
    lines.extend(text_line(
        &format!("{name}.tool_result.content"),
        &recorded.content,
        &made.content,
    ));
    match (&recorded.error, &made.error) {
        (Some(recorded), Some(made)) => {
            lines.extend(text_line(
                &format!("{name}.tool_result.error"),
                recorded,
                made,
            ));
        }
        (Some(recorded), None) => lines.push(format!(
            "{name}.tool_result.error: recorded {}, made none",
            quoted(recorded)
        )),
        (None, Some(made)) => lines.push(format!(
            "{name}.tool_result.error: recorded none, made {}",
            quoted(made)
        )),
        (None, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(role: &str, content: &str) -> NormalizedMessage {
        NormalizedMessage {
            role: role.into(),
            content: content.into(),
            ..NormalizedMessage::default()
        }
    }

    fn request(messages: Vec<NormalizedMessage>) -> RequestMatch {
        RequestMatch {
            from: 0,
            system: Some("Be brief.".into()),
            messages: Some(messages),
            tools: Some(vec!["lookup_order".into()]),
        }
    }

    #[test]
    fn equal_requests_have_no_differences() {
        let a = request(vec![msg("user", "hi")]);
        assert!(differences(&a, &a.clone()).is_empty());
    }

    #[test]
    fn an_edited_message_is_named_by_index_role_and_field() {
        let recorded = request(vec![
            msg("user", "hi"),
            msg("assistant", "hello"),
            msg("user", "Where is A-1002?"),
        ]);
        let mut made = recorded.clone();
        if let Some(messages) = &mut made.messages {
            messages[2].content = "Where is A-1003?".into();
        }
        assert_eq!(
            differences(&recorded, &made),
            [
                r#"messages[2] (user).content: recorded "Where is A-1002?" — made "Where is A-1003?""#
            ]
        );
    }

    #[test]
    fn counts_tools_and_prompts_are_compared() {
        let recorded = RequestMatch {
            from: 0,
            system: Some(format!("{}You answer in French.", "x".repeat(40))),
            messages: Some(vec![msg("user", "hi"), msg("assistant", "hello")]),
            tools: Some(vec!["a".into(), "b".into()]),
        };
        let made = RequestMatch {
            from: 0,
            system: Some(format!("{}You answer in German.", "x".repeat(40))),
            messages: Some(vec![msg("user", "hi")]),
            tools: Some(vec!["a".into()]),
        };
        assert_eq!(
            differences(&recorded, &made),
            [
                r#"system prompt differs at character 55: recorded "…xxxxxxYou answer in French." — made "…xxxxxxYou answer in German.""#,
                "tools: recorded [a, b], made [a]",
                "messages: recorded 2, made 1",
                r#"messages[1] (assistant) is only in the recording: "hello""#,
            ]
        );
    }

    #[test]
    fn parts_the_recording_lacks_are_not_compared() {
        let recorded = RequestMatch {
            from: 0,
            messages: Some(vec![msg("user", "hi")]),
            ..RequestMatch::default()
        };
        let made = request(vec![msg("user", "hi")]);
        assert!(differences(&recorded, &made).is_empty());
    }

    #[test]
    fn long_texts_are_cut_around_the_first_difference() {
        let recorded = format!("{}A-1002{}", "a".repeat(100), "z".repeat(100));
        let made = format!("{}A-1003{}", "a".repeat(100), "z".repeat(100));
        let line = text_line("m.content", &recorded, &made).expect("differs");
        assert_eq!(
            line,
            format!(
                "m.content differs at character 106: recorded \"…{a}A-1002{z}…\" — made \"…{a}A-1003{z}…\"",
                a = "a".repeat(15),
                z = "z".repeat(39)
            )
        );
    }

    #[test]
    fn tool_calls_and_results_are_compared_field_by_field() {
        let call = |name: &str, args: Json| NormalizedToolCall {
            name: name.into(),
            args,
        };
        let recorded = request(vec![
            NormalizedMessage {
                role: "assistant".into(),
                tool_calls: vec![call("lookup_order", json!({"order_id": "A-1002"}))],
                ..NormalizedMessage::default()
            },
            NormalizedMessage {
                role: "tool".into(),
                content: "shipped".into(),
                tool_result: Some(NormalizedToolResult {
                    name: "lookup_order".into(),
                    content: "shipped".into(),
                    error: None,
                }),
                ..NormalizedMessage::default()
            },
        ]);
        let mut made = recorded.clone();
        if let Some(messages) = &mut made.messages {
            messages[0].tool_calls[0].args = json!({"order_id": "A-1003"});
            messages[1].tool_result = Some(NormalizedToolResult {
                name: "lookup_order".into(),
                content: "shipped".into(),
                error: Some("timeout".into()),
            });
        }
        assert_eq!(
            differences(&recorded, &made),
            [
                r#"messages[0] (assistant).tool_calls[0].args: recorded {"order_id":"A-1002"} — made {"order_id":"A-1003"}"#,
                r#"messages[1] (tool).tool_result.error: recorded none, made "timeout""#,
            ]
        );
    }

    #[test]
    fn rendering_stops_after_the_cap_and_counts_the_rest() {
        let lines: Vec<String> = (1..=11).map(|i| format!("difference {i}")).collect();
        let shown = render(&lines);
        assert_eq!(shown.lines().count(), MAX_LINES + 1);
        assert!(shown.starts_with("  difference 1\n"), "{shown}");
        assert!(shown.ends_with("  difference 8\n  and 3 more"), "{shown}");
        assert_eq!(render(&lines[..2]), "  difference 1\n  difference 2");
    }
}
