//! The JSON-RPC envelope on both sides of the pipe: request lines written from
//! pre-serialised parts, and replies read once into an id and a result or error
//! kept as raw text, so a payload is never built into a tree just to be passed on.

use serde::Serialize;
use serde_json::Value as Json;

use super::Reply;
use crate::exec::RawJson;
use crate::exec::raw_json::RawObject;

/// One request (with an id) or notification (without), newline included. The key
/// order is the one promptexec has always written.
pub(super) fn request_line(id: Option<u64>, method: &str, params: &impl Serialize) -> Vec<u8> {
    let mut line = Vec::with_capacity(96);
    line.extend_from_slice(br#"{"jsonrpc":"2.0","#);
    if let Some(id) = id {
        line.extend_from_slice(br#""id":"#);
        // Writing a number into a Vec cannot fail; serde_json writes it without
        // the formatting machinery `write!` goes through.
        let _ = serde_json::to_writer(&mut line, &id);
        line.push(b',');
    }
    line.extend_from_slice(br#""method":"#);
    let _ = serde_json::to_writer(&mut line, method);
    line.extend_from_slice(br#","params":"#);
    let start = line.len();
    if let Err(err) = serde_json::to_writer(&mut line, params) {
        tracing::warn!("the params of `{method}` could not be written ({err}); sending null");
        line.truncate(start);
        line.extend_from_slice(b"null");
    }
    line.extend_from_slice(b"}\n");
    line
}

/// JSON-RPC's code for a message that does not parse.
const PARSE_ERROR: i64 = -32700;

/// What one line from the server amounts to.
#[derive(Debug, PartialEq)]
pub(super) enum Incoming {
    /// A reply to request `id`.
    Reply(u64, Reply<RawJson>),
    /// Not a JSON object.
    NotAnObject,
    /// No numeric id: a notification, or a reply promptexec cannot place.
    NoId,
    /// An id, but neither a result nor an error.
    Empty(u64),
}

/// Reads one line. A null or empty `error` beside a result is no error, as
/// PromptKit reads it; when a key appears twice the last one counts.
pub(super) fn read_line(text: &[u8]) -> Incoming {
    let Some(object) = std::str::from_utf8(text).ok().and_then(RawObject::read) else {
        return Incoming::NotAnObject;
    };
    let [id, result, error] = object.members(["id", "result", "error"]);
    let Some(id) = id.and_then(|id| object.member(&id).parse::<u64>().ok()) else {
        return Incoming::NoId;
    };
    let error = error.filter(|e| !matches!(object.member(e), "null" | r#""""#));
    let reply = match (result, error) {
        (_, Some(error)) => error_reply(object.member(&error)),
        (Some(result), None) => match object.take(&result) {
            Ok(result) => Reply::Result(result),
            Err(err) => Reply::Error {
                code: PARSE_ERROR,
                message: format!("the result is not JSON promptexec can read: {err}"),
            },
        },
        (None, None) => return Incoming::Empty(id),
    };
    Incoming::Reply(id, reply)
}

fn error_reply(error: &str) -> Reply<RawJson> {
    let error: Json = serde_json::from_str(error).unwrap_or(Json::Null);
    Reply::Error {
        code: error.get("code").and_then(Json::as_i64).unwrap_or(0),
        message: error
            .get("message")
            .and_then(Json::as_str)
            .map_or_else(|| error.to_string(), str::to_string),
    }
}

/// The id of a message from the first bytes of its line: the value of an `"id"`
/// member of the outer object, when it comes before anything too long to scan.
/// Used for replies too long to read whole.
pub(super) fn id_at_start(head: &[u8]) -> Option<u64> {
    let mut depth = 0usize;
    let mut at = 0;
    // Whether the last string closed at depth 1 was the key `id`.
    let mut key_is_id = false;
    while at < head.len() {
        match head[at] {
            b'"' => {
                let start = at + 1;
                let end = string_end(head, start)?;
                key_is_id = depth == 1 && &head[start..end] == b"id";
                at = end + 1;
                continue;
            }
            b':' if depth == 1 && key_is_id => {
                let digits: &[u8] = {
                    let rest = &head[at + 1..];
                    let skip = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
                    let rest = &rest[skip..];
                    let len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                    // The number must end inside the head, or it may go on.
                    (len < rest.len()).then(|| &rest[..len])?
                };
                return std::str::from_utf8(digits).ok()?.parse().ok();
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        key_is_id = false;
        at += 1;
    }
    None
}

/// Where the string starting at `start` (after its quote) closes, inside `head`.
fn string_end(head: &[u8], mut at: usize) -> Option<usize> {
    while at < head.len() {
        match head[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_line_is_what_a_tree_would_print() {
        let params = json!({"args": {"x": [1, "é"]}});
        let line = request_line(Some(7), "execute", &params);
        let tree = json!({"jsonrpc": "2.0", "id": 7, "method": "execute", "params": params});
        assert_eq!(line, format!("{tree}\n").into_bytes());
        let note = request_line(None, "hook.event", &json!(null));
        assert_eq!(
            note,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"hook.event\",\"params\":null}\n"
        );
    }

    fn result_of(line: &str) -> Option<(u64, String)> {
        match read_line(line.as_bytes()) {
            Incoming::Reply(id, Reply::Result(raw)) => Some((id, raw.get().to_string())),
            _ => None,
        }
    }

    #[test]
    fn replies_are_read_by_the_rules_of_the_envelope() {
        let got = result_of(r#"{"jsonrpc":"2.0","result":{"a": [1]},"id":3}"#);
        assert_eq!(got, Some((3, r#"{"a": [1]}"#.to_string())));
        let got = result_of(r#"{"id":4,"result":null,"error":null}"#);
        assert_eq!(got, Some((4, "null".to_string())));
        let got = result_of(r#"{"id":5,"result":1,"error":""}"#);
        assert_eq!(got, Some((5, "1".to_string())));
        let got = result_of(r#"{"id":6,"result":1,"result":2}"#);
        assert_eq!(got, Some((6, "2".to_string())));
        assert_eq!(
            read_line(br#"{"id":8,"error":{"code":-3,"message":"no"}}"#),
            Incoming::Reply(
                8,
                Reply::Error {
                    code: -3,
                    message: "no".into()
                }
            )
        );
        assert_eq!(
            read_line(br#"{"id":9,"error":"plain"}"#),
            Incoming::Reply(
                9,
                Reply::Error {
                    code: 0,
                    message: "\"plain\"".into()
                }
            )
        );
    }

    #[test]
    fn a_result_no_tree_could_hold_fails_its_call() {
        let Incoming::Reply(7, Reply::Error { code, message }) =
            read_line(br#"{"jsonrpc":"2.0","id":7,"result":{"n":1e999}}"#)
        else {
            panic!("a reply to 7 that fails");
        };
        assert_eq!(code, PARSE_ERROR);
        assert!(message.contains("number out of range"), "{message}");
    }

    #[test]
    fn lines_that_are_no_reply_say_why() {
        assert_eq!(read_line(b"[1,2]"), Incoming::NotAnObject);
        assert_eq!(read_line(b"starting up"), Incoming::NotAnObject);
        assert_eq!(read_line(br#"{"id":1} trailing"#), Incoming::NotAnObject);
        assert_eq!(read_line(br#"{"method":"note"}"#), Incoming::NoId);
        assert_eq!(read_line(br#"{"id":"1","result":1}"#), Incoming::NoId);
        assert_eq!(read_line(br#"{"id":1.0,"result":1}"#), Incoming::NoId);
        assert_eq!(read_line(br#"{"id":2}"#), Incoming::Empty(2));
    }

    #[test]
    fn an_id_before_the_payload_is_found_in_the_head() {
        assert_eq!(
            id_at_start(br#"{"jsonrpc":"2.0","id": 42,"result":"xxxx"#),
            Some(42)
        );
        assert_eq!(id_at_start(br#"{"id\"":1,"id":5,"result":[{"#), Some(5));
        // An id inside the payload is not the message's.
        assert_eq!(id_at_start(br#"{"result":{"id":3,"data":"xxx"#), None);
        assert_eq!(id_at_start(br#"{"result":"x\"id\":3,"#), None);
        // A number cut off by the end of the head may go on.
        assert_eq!(id_at_start(br#"{"id":12"#), None);
    }
}
