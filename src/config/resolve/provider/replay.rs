//! A `replay` provider (PromptKit's replay provider): its `additional_config` names
//! the session recording that answers the model calls, and how a call finds its
//! answer.
//!
//! - `recording` (required): the recording, resolved against the config's directory.
//! - `match`: `turn` (the default), the next recorded call; `content`, the call
//!   recorded after the same last user message. Another value is a warning, and
//!   `turn` is used, as PromptKit does.
//! - `timing` and `speed`: promptexec answers replayed calls at once, so `realtime`
//!   and `accelerated` are warnings; `instant` is what it does.
//! - `arena_output` (PromptKit's replay of an Arena run's output): not read; a
//!   warning beside `recording`, an error without it.
//! - Any other key is PromptKit's free-form space, and left alone.

use std::path::PathBuf;

use crate::doc::{Fields, Node, Pos, Value, suggest};

use super::super::document::{Resolver, join_clean};

/// What a `replay` provider replays, and how.
#[derive(Default)]
pub(super) struct Replay {
    pub recording: Option<(PathBuf, Pos)>,
    pub match_content: bool,
}

const MATCH_MODES: [&str; 2] = ["turn", "content"];
const TIMINGS: [&str; 3] = ["instant", "realtime", "accelerated"];

impl Resolver<'_> {
    /// The replay settings of the `additional_config` `extra` of provider `what`,
    /// which starts at `at`.
    pub(super) fn replay(&mut self, extra: Option<&Node>, at: Pos, what: &str) -> Replay {
        let what = format!("{what}.additional_config");
        let mut f = match extra.map(|n| &n.value) {
            Some(Value::Map(entries)) => Fields::new(entries),
            // Reported where `additional_config` is read.
            Some(_) => return Replay::default(),
            None => Fields::new(&[]),
        };
        let arena_output = f.entry("arena_output").map(|(key, _)| key.pos);
        let recording = match f.get("recording") {
            Some(node) => self.recording(node, &what),
            None => {
                let (pos, hint) = match (extra, arena_output) {
                    (_, Some(pos)) => (
                        pos,
                        "; `arena_output` (a replay of an Arena run's output) is not read by promptexec".to_string(),
                    ),
                    (Some(extra), None) => (
                        extra.pos,
                        suggest("recording", f.unknown().map(|key| key.name.as_str())),
                    ),
                    (None, None) => (at, String::new()),
                };
                self.cx.error(
                    pos,
                    format!("{what}: a `replay` provider needs `recording`, the session recording it answers from{hint}"),
                );
                None
            }
        };
        if let (Some(pos), Some(_)) = (arena_output, &recording) {
            self.cx.warning(
                pos,
                format!("{what}.arena_output: a replay of an Arena run's output is not read by promptexec; it replays `recording`"),
            );
        }
        let match_content = f
            .get("match")
            .is_some_and(|node| self.match_mode(node, &what));
        if let Some(node) = f.get("timing") {
            self.timing(node, &what);
        }
        Replay {
            recording,
            match_content,
        }
    }

    fn recording(&mut self, node: &Node, what: &str) -> Option<(PathBuf, Pos)> {
        let name = self
            .cx
            .nonempty_string(node, &format!("{what}.recording"))?;
        let path = join_clean(self.base_dir, &name);
        if self.check_files && !path.is_file() {
            self.cx.error(
                node.pos,
                format!("{what}.recording: file `{}` does not exist", path.display()),
            );
        }
        Some((path, node.pos))
    }

    /// Whether calls are matched by content.
    fn match_mode(&mut self, node: &Node, what: &str) -> bool {
        let what = format!("{what}.match");
        let Some(mode) = self.cx.string(node, &what) else {
            return false;
        };
        if !MATCH_MODES.contains(&mode.as_str()) {
            self.cx.warning(
                node.pos,
                format!(
                    "{what}: `{mode}` is not a match mode (`turn` or `content`); calls are matched by turn, as PromptKit does{}",
                    suggest(&mode, MATCH_MODES)
                ),
            );
        }
        mode == "content"
    }

    fn timing(&mut self, node: &Node, what: &str) {
        let what = format!("{what}.timing");
        let Some(timing) = self.cx.string(node, &what) else {
            return;
        };
        let (problem, hint) = match timing.as_str() {
            "instant" => return,
            "realtime" | "accelerated" => ("is not applied".to_string(), String::new()),
            other => (
                format!("is not a timing mode ({})", crate::doc::one_of(&TIMINGS)),
                suggest(other, TIMINGS),
            ),
        };
        self.cx.warning(
            node.pos,
            format!(
                "{what}: `{timing}` {problem}; promptexec answers replayed calls at once{hint}"
            ),
        );
    }
}
