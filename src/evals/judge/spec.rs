//! A judge eval's params, read once when the eval is prepared.

use serde_json::Value as Json;

use crate::pack::builtin::{ParamError, Params};

use super::JudgeKind;

/// What every judge type reads: PromptKit's judge params, the judge's name
/// (`judge`, or `provider`), and `prompt`, the name of a PromptArena judge prompt,
/// which is taken and not read (PromptKit's judges do not read it either).
const COMMON: &[&[&str]] = &[
    &["criteria"],
    &["rubric"],
    &["model"],
    &["system_prompt"],
    &["judge", "provider"],
    &["prompt"],
];
const CONTEXTS: &[&[&str]] = &[&["contexts"], &["context"], &["context_field"]];
const QUESTION: &[&[&str]] = &[&["question"]];
const REFERENCE: &[&[&str]] = &[&["reference", "expected_output"]];
const TOOLS: &[&[&str]] = &[&["tools"]];

/// Where the retrieved chunks come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Contexts {
    None,
    /// `contexts` (a list) or `context` (one chunk).
    Given(Vec<String>),
    /// `context_field`: a key of the input's metadata holding a list or a text.
    Field(String),
}

/// A judge eval ready to run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JudgeSpec {
    pub kind: JudgeKind,
    pub eval_type: String,
    pub criteria: Option<String>,
    pub rubric: Option<String>,
    /// The model asked of the judge's provider; `None` for its own.
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    /// The judge named; `None` for the run's default judge.
    pub judge: Option<String>,
    pub contexts: Contexts,
    pub question: Option<String>,
    pub reference: Option<String>,
    /// `llm_judge_tool_calls`: the tools whose calls are judged (empty: all).
    pub tools: Vec<String>,
}

/// Why a judge eval cannot be prepared from its params.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum JudgeParamError {
    #[error(
        "`{eval_type}` takes no `{key}`: a judge only scores; wrap it in `type: assertion` and put `min_score` / `max_score` there"
    )]
    Threshold { eval_type: String, key: String },
    #[error(transparent)]
    Param(#[from] ParamError),
}

/// The params `kind` reads.
pub(super) fn accepted(kind: JudgeKind) -> Vec<&'static [&'static str]> {
    let mut accepted: Vec<&[&str]> = COMMON.to_vec();
    if kind.reads_contexts() {
        accepted.extend_from_slice(CONTEXTS);
    }
    if kind.reads_question() {
        accepted.extend_from_slice(QUESTION);
    }
    if kind == JudgeKind::ContextualRecall {
        accepted.extend_from_slice(REFERENCE);
    }
    if kind == JudgeKind::ToolCalls {
        accepted.extend_from_slice(TOOLS);
    }
    accepted
}

impl JudgeSpec {
    /// The judge eval `eval_type` with `params`; `None` when it is no judge type.
    pub(crate) fn prepare(
        eval_type: &str,
        params: &Json,
    ) -> Option<Result<JudgeSpec, JudgeParamError>> {
        let kind = JudgeKind::of(eval_type)?;
        Some(Self::read(kind, eval_type, params))
    }

    fn read(kind: JudgeKind, eval_type: &str, params: &Json) -> Result<JudgeSpec, JudgeParamError> {
        for key in ["min_score", "max_score"] {
            if params.get(key).is_some() {
                return Err(JudgeParamError::Threshold {
                    eval_type: eval_type.to_string(),
                    key: key.to_string(),
                });
            }
        }
        let p = Params::new(eval_type, params, &accepted(kind))?;
        let contexts = if let Some(list) = p.strings(&["contexts"])?.filter(|l| !l.is_empty()) {
            Contexts::Given(list)
        } else if let Some(one) = p.string(&["context"])?.filter(|c| !c.is_empty()) {
            Contexts::Given(vec![one])
        } else if let Some(field) = p.string(&["context_field"])?.filter(|f| !f.is_empty()) {
            Contexts::Field(field)
        } else {
            Contexts::None
        };
        // Read to check its type; PromptKit's judges do not use it.
        p.string(&["prompt"])?;
        Ok(JudgeSpec {
            kind,
            eval_type: eval_type.to_string(),
            criteria: p.string(&["criteria"])?,
            rubric: p.string(&["rubric"])?,
            model: p.string(&["model"])?.filter(|m| !m.trim().is_empty()),
            system_prompt: p
                .string(&["system_prompt"])?
                .filter(|s| !s.trim().is_empty()),
            judge: p.string(&["judge", "provider"])?.filter(|j| !j.is_empty()),
            contexts,
            question: p.string(&["question"])?.filter(|q| !q.is_empty()),
            reference: p
                .string(&["reference", "expected_output"])?
                .filter(|r| !r.is_empty()),
            tools: p.strings(&["tools"])?.unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_are_read_with_their_aliases() {
        let spec = JudgeSpec::prepare(
            "contextual_recall",
            &json!({"context": "Paris is in France.", "expected_output": "Paris", "provider": "j"}),
        )
        .expect("a judge type")
        .expect("valid");
        assert_eq!(spec.kind, JudgeKind::ContextualRecall);
        assert_eq!(
            spec.contexts,
            Contexts::Given(vec!["Paris is in France.".into()])
        );
        assert_eq!(spec.reference.as_deref(), Some("Paris"));
        assert_eq!(spec.judge.as_deref(), Some("j"));
        assert!(JudgeSpec::prepare("contains", &json!({})).is_none());
    }

    #[test]
    fn a_threshold_or_a_param_of_another_type_is_refused() {
        let err = JudgeSpec::prepare("llm_judge", &json!({"criteria": "x", "min_score": 0.8}))
            .expect("a judge type")
            .expect_err("refused")
            .to_string();
        assert!(err.contains("wrap it in `type: assertion`"), "{err}");
        let err = JudgeSpec::prepare("llm_judge", &json!({"contexts": ["a"]}))
            .expect("a judge type")
            .expect_err("refused")
            .to_string();
        assert!(err.contains("takes no param `contexts`"), "{err}");
        let err = JudgeSpec::prepare("faithfulness", &json!({"contexts": 5}))
            .expect("a judge type")
            .expect_err("refused")
            .to_string();
        assert!(err.contains("`contexts`"), "{err}");
    }
}
