//! What a step's slot is bound to: a literal value, or text with references to the
//! chain's inputs (`{{inputs.NAME}}`) and to earlier outputs (`{{steps.ID.output}}`,
//! `{{steps.ID.output/json/pointer}}`). A value is inserted as it is, never read
//! again as a reference.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::Value as Json;

/// A slot's binding.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bound {
    /// A value that is not a string, passed as it is.
    Literal(Json),
    /// A string; when it is one reference and nothing else, the value referred to is
    /// passed as it is (a JSON value from a pointer stays one).
    Text(Vec<Piece>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Ref(Ref),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ref {
    Input(String),
    Output {
        step: String,
        /// A JSON pointer into the output read as JSON.
        pointer: Option<String>,
    },
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ref::Input(name) => write!(f, "{{{{inputs.{name}}}}}"),
            Ref::Output { step, pointer } => {
                write!(
                    f,
                    "{{{{steps.{step}.output{}}}}}",
                    pointer.as_deref().unwrap_or("")
                )
            }
        }
    }
}

/// Why a binding's text does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RefError {
    #[error("`{{{{` is never closed by `}}}}`")]
    Unclosed,
    #[error(
        "`{{{{{0}}}}}` is not a reference: write `{{{{inputs.NAME}}}}`, `{{{{steps.ID.output}}}}` or `{{{{steps.ID.output/POINTER}}}}`"
    )]
    NotARef(String),
    #[error("`{0}` is not a JSON pointer: `~` must be followed by 0 or 1")]
    BadPointer(String),
}

/// Reads a binding's text into literal pieces and references.
pub(crate) fn parse_text(text: &str) -> Result<Vec<Piece>, RefError> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            pieces.push(Piece::Text(rest[..start].to_string()));
        }
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or(RefError::Unclosed)?;
        pieces.push(Piece::Ref(parse_ref(after[..end].trim())?));
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    Ok(pieces)
}

fn parse_ref(expr: &str) -> Result<Ref, RefError> {
    let not_a_ref = || RefError::NotARef(expr.to_string());
    let plain = |name: &str| {
        !name.is_empty()
            && !name
                .chars()
                .any(|c| c.is_whitespace() || c == '.' || c == '/')
    };
    if let Some(name) = expr.strip_prefix("inputs.") {
        return if plain(name) {
            Ok(Ref::Input(name.to_string()))
        } else {
            Err(not_a_ref())
        };
    }
    let rest = expr.strip_prefix("steps.").ok_or_else(not_a_ref)?;
    let (step, tail) = rest.split_once(".output").ok_or_else(not_a_ref)?;
    if !plain(step) {
        return Err(not_a_ref());
    }
    let pointer = match tail {
        "" => None,
        p if p.starts_with('/') => {
            check_pointer(p)?;
            Some(p.to_string())
        }
        _ => return Err(not_a_ref()),
    };
    Ok(Ref::Output {
        step: step.to_string(),
        pointer,
    })
}

/// A JSON pointer's `~` escapes are `~0` and `~1` only.
pub(crate) fn check_pointer(pointer: &str) -> Result<(), RefError> {
    let mut chars = pointer.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return Err(RefError::BadPointer(pointer.to_string()));
        }
    }
    Ok(())
}

impl Bound {
    /// The references the binding makes, in order.
    pub(crate) fn refs(&self) -> impl Iterator<Item = &Ref> {
        let pieces = match self {
            Bound::Text(pieces) => pieces.as_slice(),
            Bound::Literal(_) => &[],
        };
        pieces.iter().filter_map(|p| match p {
            Piece::Ref(r) => Some(r),
            Piece::Text(_) => None,
        })
    }

    /// The value the slot gets, from the inputs and the outputs so far.
    pub(crate) fn resolve(
        &self,
        inputs: &IndexMap<String, Json>,
        outputs: &HashMap<String, String>,
    ) -> Result<Json, ResolveError> {
        let pieces = match self {
            Bound::Literal(value) => return Ok(value.clone()),
            Bound::Text(pieces) => pieces,
        };
        if let [Piece::Ref(one)] = pieces.as_slice() {
            return value_of(one, inputs, outputs);
        }
        let mut text = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => text.push_str(t),
                Piece::Ref(r) => text.push_str(&plain_text(&value_of(r, inputs, outputs)?)),
            }
        }
        Ok(Json::String(text))
    }
}

/// A reference that has no value when the step runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ResolveError {
    #[error("{reference}: the output of step `{step}` is not JSON")]
    NotJson { reference: String, step: String },
    #[error("{reference}: the output of step `{step}` has nothing at `{pointer}`")]
    Nothing {
        reference: String,
        step: String,
        pointer: String,
    },
    /// Loading makes sure it cannot happen; said rather than assumed.
    #[error("{0}: no value")]
    Missing(String),
}

fn value_of(
    r: &Ref,
    inputs: &IndexMap<String, Json>,
    outputs: &HashMap<String, String>,
) -> Result<Json, ResolveError> {
    match r {
        Ref::Input(name) => inputs
            .get(name)
            .cloned()
            .ok_or_else(|| ResolveError::Missing(r.to_string())),
        Ref::Output { step, pointer } => {
            let output = outputs
                .get(step)
                .ok_or_else(|| ResolveError::Missing(r.to_string()))?;
            let Some(pointer) = pointer else {
                return Ok(Json::String(output.clone()));
            };
            let json = output_json(output).ok_or_else(|| ResolveError::NotJson {
                reference: r.to_string(),
                step: step.clone(),
            })?;
            json.pointer(pointer)
                .cloned()
                .ok_or_else(|| ResolveError::Nothing {
                    reference: r.to_string(),
                    step: step.clone(),
                    pointer: pointer.clone(),
                })
        }
    }
}

/// A value as the text that goes into other text: a string as it is, anything else
/// as compact JSON.
pub(crate) fn plain_text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A model's output read as JSON: the whole text, or the one fenced block (```` ```json
/// … ``` ````) it is wrapped in.
pub(crate) fn output_json(output: &str) -> Option<Json> {
    let trimmed = output.trim();
    if let Ok(json) = serde_json::from_str(trimmed) {
        return Some(json);
    }
    let inner = trimmed.strip_prefix("```")?.strip_suffix("```")?;
    let (_, body) = inner.split_once('\n')?;
    serde_json::from_str(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_reads_into_pieces_and_references() {
        let pieces =
            parse_text("Ticket: {{ inputs.ticket }} ({{steps.a.output/x~1y}})").expect("reads");
        assert_eq!(
            pieces,
            [
                Piece::Text("Ticket: ".into()),
                Piece::Ref(Ref::Input("ticket".into())),
                Piece::Text(" (".into()),
                Piece::Ref(Ref::Output {
                    step: "a".into(),
                    pointer: Some("/x~1y".into())
                }),
                Piece::Text(")".into()),
            ]
        );
        assert_eq!(parse_text("{{inputs.x"), Err(RefError::Unclosed));
        assert!(matches!(
            parse_text("{{input.x}}"),
            Err(RefError::NotARef(e)) if e == "input.x"
        ));
        assert!(matches!(
            parse_text("{{steps.a.outputs}}"),
            Err(RefError::NotARef(_))
        ));
        assert!(matches!(
            parse_text("{{steps.a.output/~2}}"),
            Err(RefError::BadPointer(_))
        ));
    }

    #[test]
    fn one_reference_passes_its_value_and_text_is_joined() {
        let inputs: IndexMap<String, Json> = [("n".to_string(), json!(3))].into_iter().collect();
        let outputs: HashMap<String, String> = [(
            "a".to_string(),
            "```json\n{\"tags\": [\"x\"], \"t\": \"{{inputs.n}}\"}\n```".to_string(),
        )]
        .into_iter()
        .collect();
        let bound = |text: &str| Bound::Text(parse_text(text).expect("reads"));
        let got = |text: &str| bound(text).resolve(&inputs, &outputs);
        assert_eq!(got("{{inputs.n}}"), Ok(json!(3)));
        assert_eq!(got("{{steps.a.output/tags}}"), Ok(json!(["x"])));
        // A value that looks like a reference is inserted as it is.
        assert_eq!(
            got("n={{inputs.n}} t={{steps.a.output/t}}"),
            Ok(json!("n=3 t={{inputs.n}}"))
        );
        assert!(matches!(
            got("{{steps.a.output/missing}}"),
            Err(ResolveError::Nothing { .. })
        ));
        let not_json: HashMap<String, String> = [("a".to_string(), "plain".to_string())]
            .into_iter()
            .collect();
        assert!(matches!(
            bound("{{steps.a.output/x}}").resolve(&inputs, &not_json),
            Err(ResolveError::NotJson { .. })
        ));
    }
}
