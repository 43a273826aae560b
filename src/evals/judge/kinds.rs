//! The judge-based eval types, what each shows its judge, and the words it uses
//! when the params give none. Each type is PromptKit's: `llm_judge` judges the
//! answer, `llm_judge_session` (also `llm_judge_conversation`) the whole
//! conversation, `llm_judge_tool_calls` the tool calls, the RAG family the answer
//! against retrieved chunks, and `bias` / `toxicity` the answer for one concern.

/// A judge-based eval type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JudgeKind {
    Answer,
    Session,
    ToolCalls,
    Faithfulness,
    AnswerRelevancy,
    ContextualPrecision,
    ContextualRecall,
    ContextualRelevancy,
    Hallucination,
    Bias,
    Toxicity,
}

/// Every judge type's names (the first is its own, then aliases) and kind.
const KINDS: &[(&[&str], JudgeKind)] = &[
    (&["llm_judge"], JudgeKind::Answer),
    (
        &["llm_judge_session", "llm_judge_conversation"],
        JudgeKind::Session,
    ),
    (&["llm_judge_tool_calls"], JudgeKind::ToolCalls),
    (&["faithfulness"], JudgeKind::Faithfulness),
    (&["answer_relevancy"], JudgeKind::AnswerRelevancy),
    (&["contextual_precision"], JudgeKind::ContextualPrecision),
    (&["contextual_recall"], JudgeKind::ContextualRecall),
    (&["contextual_relevancy"], JudgeKind::ContextualRelevancy),
    (&["hallucination"], JudgeKind::Hallucination),
    (&["bias"], JudgeKind::Bias),
    (&["toxicity"], JudgeKind::Toxicity),
];

impl JudgeKind {
    /// The kind an eval type names, if it is judge-based.
    pub(crate) fn of(eval_type: &str) -> Option<JudgeKind> {
        KINDS
            .iter()
            .find(|(names, _)| names.contains(&eval_type))
            .map(|(_, kind)| *kind)
    }

    /// Reads retrieved chunks (`contexts`, `context` or `context_field`).
    pub(crate) fn reads_contexts(self) -> bool {
        matches!(
            self,
            JudgeKind::Faithfulness
                | JudgeKind::Hallucination
                | JudgeKind::ContextualPrecision
                | JudgeKind::ContextualRecall
                | JudgeKind::ContextualRelevancy
        )
    }

    /// Reads the question (`question`, else the last user message).
    pub(crate) fn reads_question(self) -> bool {
        matches!(
            self,
            JudgeKind::AnswerRelevancy
                | JudgeKind::ContextualPrecision
                | JudgeKind::ContextualRecall
                | JudgeKind::ContextualRelevancy
        )
    }

    /// The system prompt and criteria the judge gets when the params give none;
    /// `None` for the plain judges, which use the general system prompt and the
    /// criteria they are given.
    pub(crate) fn defaults(self) -> Option<(&'static str, &'static str)> {
        use super::prompts::*;
        Some(match self {
            JudgeKind::Answer | JudgeKind::Session | JudgeKind::ToolCalls => return None,
            JudgeKind::Faithfulness => (FAITHFULNESS, FAITHFULNESS_CRITERIA),
            JudgeKind::AnswerRelevancy => (ANSWER_RELEVANCY, ANSWER_RELEVANCY_CRITERIA),
            JudgeKind::ContextualPrecision => (CONTEXTUAL_PRECISION, CONTEXTUAL_PRECISION_CRITERIA),
            JudgeKind::ContextualRecall => (CONTEXTUAL_RECALL, CONTEXTUAL_RECALL_CRITERIA),
            JudgeKind::ContextualRelevancy => (CONTEXTUAL_RELEVANCY, CONTEXTUAL_RELEVANCY_CRITERIA),
            JudgeKind::Hallucination => (HALLUCINATION, HALLUCINATION_CRITERIA),
            JudgeKind::Bias => (BIAS, BIAS_CRITERIA),
            JudgeKind::Toxicity => (TOXICITY, TOXICITY_CRITERIA),
        })
    }
}

/// Whether `eval_type` is judged by a model.
pub(crate) fn is_judge_type(eval_type: &str) -> bool {
    JudgeKind::of(eval_type).is_some()
}

/// Every name a judge type answers to.
pub(crate) fn judge_type_names() -> impl Iterator<Item = &'static str> {
    KINDS.iter().flat_map(|(names, _)| names.iter().copied())
}
