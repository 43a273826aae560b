//! Reading a recording, in either format: promptexec's own (an object with
//! `promptexec_recording`) or a PromptKit session recording (an object with `events`,
//! whose keys are read in any letter case). A problem is reported as
//! `FILE:LINE:COL: message`.

use std::path::Path;

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

use super::json_position::diagnostic;
use super::{Recording, promptkit};
use crate::doc::{Diagnostic, Diagnostics, Pos};

/// Just enough of the document to tell the formats apart: which of the two keys
/// its top-level object has.
#[derive(Default)]
struct Probe {
    promptexec_recording: bool,
    events: bool,
}

impl<'de> Deserialize<'de> for Probe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ProbeVisitor)
    }
}

/// Takes only an object: a derived struct would also take an array.
struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = Probe;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a recording (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Probe, A::Error> {
        let mut probe = Probe::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            // PromptKit's decoder takes `events` in any letter case; promptexec's own
            // format is read as written.
            match key.as_ref() {
                "promptexec_recording" => probe.promptexec_recording = true,
                key if key.eq_ignore_ascii_case("events") => probe.events = true,
                _ => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(probe)
    }
}

impl Recording {
    /// Reads the recording at `path`, in either format.
    pub fn load(path: &Path) -> Result<Recording, Diagnostics> {
        let text = std::fs::read_to_string(path).map_err(|err| {
            Diagnostics::from(Diagnostic::whole_file(
                path,
                format!("cannot read file: {err}"),
            ))
        })?;
        Recording::parse(path, &text).map_err(Diagnostics::from)
    }

    /// Reads `text`, a recording from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Recording, Diagnostic> {
        let probe: Probe = serde_json::from_str(text).map_err(|err| diagnostic(path, &err, ""))?;
        if probe.promptexec_recording {
            return serde_json::from_str(text).map_err(|err| diagnostic(path, &err, ""));
        }
        if probe.events {
            return promptkit::read(path, text);
        }
        Err(Diagnostic::error(
            path,
            Pos::START,
            "not a recording: expected `promptexec_recording` (promptexec's format) or `events` (a PromptKit session recording)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> String {
        Recording::parse(Path::new("rec.json"), text)
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn broken_json_is_placed_by_line_and_column() {
        assert_eq!(
            problem("{\n  \"promptexec_recording\": 1,\n  \"sessions\": [,]\n}"),
            "rec.json:3:16: expected value"
        );
    }

    #[test]
    fn a_wrong_shape_names_what_was_expected() {
        assert_eq!(
            problem("[1, 2]"),
            "rec.json:1:1: invalid type: sequence, expected a recording (a JSON object)"
        );
        assert_eq!(
            problem(
                r#"{"promptexec_recording": 1, "provider": {"name": "p", "type": "mock"}, "recorded_at": "", "sessions": [{"exchanges": [7]}]}"#
            ),
            "rec.json:1:119: invalid type: integer `7`, expected an exchange object"
        );
        assert_eq!(
            problem(
                r#"{"promptexec_recording": 1, "provider": {"name": "p", "type": "mock", "key": "x"}}"#
            ),
            "rec.json:1:75: unknown field `key`, expected one of `name`, `type`, `model`"
        );
        assert_eq!(
            problem(r#"{"recording": 1}"#),
            "rec.json:1:1: not a recording: expected `promptexec_recording` (promptexec's format) or `events` (a PromptKit session recording)"
        );
    }

    #[test]
    fn an_unknown_version_is_refused_where_it_is_written() {
        assert_eq!(
            problem("{\n  \"promptexec_recording\": 2,\n  \"sessions\": []\n}"),
            "rec.json:2:27: recording format version 2 is not one this promptexec reads (it reads version 1)"
        );
    }

    #[test]
    fn an_unreadable_file_says_so() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("missing.json");
        let Err(diagnostics) = Recording::load(&path) else {
            panic!("a missing file is refused")
        };
        let shown: Vec<String> = diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(shown.len(), 1);
        assert!(
            shown[0].starts_with(&format!("{}: cannot read file: ", path.display())),
            "{shown:?}"
        );
    }

    #[test]
    fn a_broken_file_is_named_with_the_place_of_its_problem() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("broken.json");
        std::fs::write(&path, "{\n  \"events\": [\n    {\"type\": }\n  ]\n}\n").expect("writes");
        let Err(diagnostics) = Recording::load(&path) else {
            panic!("a broken file is refused")
        };
        let shown: Vec<String> = diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(shown, [format!("{}:3:14: expected value", path.display())]);
    }

    #[test]
    fn a_promptkit_recording_is_told_by_its_events_in_any_letter_case() {
        let text = r#"{"Events": [{"Type": "message.created", "Data": {"role": "assistant", "content": "hi"}}]}"#;
        let recording = Recording::parse(Path::new("rec.json"), text).expect("reads");
        assert_eq!(recording.sessions[0].exchanges[0].answer.content, "hi");
    }

    #[test]
    fn the_promptkit_fixture_is_read_as_one_session() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recordings/promptkit-session.json");
        let recording = Recording::load(&path).expect("reads");
        assert_eq!(recording.sessions.len(), 1);
        assert_eq!(recording.sessions[0].exchanges.len(), 3);
    }
}
