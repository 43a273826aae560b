//! Asking the person at the terminal to decide on a pending tool call.

use std::io::{BufRead, Write};

use crate::report::style;
use crate::secret;
use crate::session::{Asker, Decision, PendingCall};

/// An asker that prompts on stderr and reads the answer from stdin. The read runs on
/// a thread of its own, so an interrupt is never stuck behind it.
pub(super) fn person() -> Asker {
    Box::new(|call: PendingCall| {
        Box::pin(async move {
            let (send, receive) = tokio::sync::oneshot::channel();
            std::thread::spawn(move || {
                let _ = send.send(read_decision(&call));
            });
            receive.await.ok().flatten()
        })
    })
}

fn read_decision(call: &PendingCall) -> Option<Decision> {
    // The model chose the name and the arguments: no secret and no control
    // character of theirs reaches the terminal.
    let question = format!(
        "approve {} ({}) with {}? [y/N, then an optional note] ",
        style::peer(&call.tool, false),
        style::peer(&call.call_id, false),
        call.args
    );
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(secret::redact(&question).as_bytes());
    let _ = stderr.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).ok()? == 0 {
        return None;
    }
    Some(parse_answer(&line))
}

/// `y`/`yes` approves, anything else rejects; words after the first are the note.
fn parse_answer(line: &str) -> Decision {
    let line = line.trim();
    let (word, note) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let approved = matches!(word.to_ascii_lowercase().as_str(), "y" | "yes");
    let note = match note.trim() {
        "" if approved => "approved at the terminal".to_string(),
        "" => "rejected at the terminal".to_string(),
        note => note.to_string(),
    };
    Decision {
        approved,
        by: "person".into(),
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_approves_and_the_rest_of_the_line_is_the_note() {
        let d = parse_answer("y fine by me\n");
        assert!(d.approved);
        assert_eq!(d.note, "fine by me");
        let d = parse_answer("\n");
        assert!(!d.approved);
        assert_eq!(d.note, "rejected at the terminal");
        assert!(!parse_answer("no too much").approved);
    }
}
