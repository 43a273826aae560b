//! A chain played: each step's slots bound, its prompt rendered and sent as one model
//! call, its output judged by the branches, and its use of the prompt audited.

use std::collections::HashMap;
use std::time::Instant;

use futures::future::LocalBoxFuture;
use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::conversation::{History, ToolChoice, message};
use crate::dotprompt::Message;
use crate::library::{Library, LibraryError, PromptUse, StoredPrompt, render_prompt};
use crate::provider::{
    Answers, Completion, ModelCall, ModelError, ModelPlan, Provider, RecordedSession, Recorder,
};

use super::record::{Branch, ChainRecord, Outcome, PromptUsed, StepRecord};
use super::{Chain, Next, Target};

/// What answers the steps' model calls. The mock and HTTP providers answer the whole
/// chain, so the mock's turn N answers the N-th step played; a recording holds one
/// session a step, each replayed on its own.
pub(crate) struct Models {
    plan: ModelPlan,
    shared: Option<Box<dyn Provider>>,
    record: bool,
    /// One session a step played, when recording.
    pub recorded: Vec<RecordedSession>,
}

impl Models {
    pub(crate) fn new(plan: ModelPlan, record: bool) -> Models {
        Models {
            plan,
            shared: None,
            record,
            recorded: Vec::new(),
        }
    }

    /// Asks step `step` (from 1)'s model call, recording it when asked.
    async fn ask(&mut self, step: u32, call: ModelCall<'_>) -> Result<Completion, ModelError> {
        let setup = |err: crate::provider::SetupError| ModelError::Provider {
            provider: self.plan.info.name.clone(),
            detail: err.to_string(),
        };
        let replay = matches!(self.plan.answers, Answers::Replay { .. });
        let mut own: Box<dyn Provider + '_> = if replay {
            self.plan.for_trial(step).provider().map_err(setup)?
        } else {
            let shared = match &mut self.shared {
                Some(shared) => shared,
                slot @ None => slot.insert(self.plan.clone().provider().map_err(setup)?),
            };
            Box::new(Borrowed(shared.as_mut()))
        };
        if !self.record {
            let completion = own.complete(call).await?;
            // A step's recorded session holds one call: more is a recording of another chain.
            return match own.leftover() {
                Some(err) if replay => Err(err),
                _ => Ok(completion),
            };
        }
        let mut recorder = Recorder::new(own);
        let tape = recorder.tape();
        let completion = recorder.complete(call).await?;
        self.recorded.push(tape.take());
        Ok(completion)
    }
}

/// A provider lent for one step.
struct Borrowed<'a>(&'a mut dyn Provider);

impl Provider for Borrowed<'_> {
    fn complete<'b>(
        &'b mut self,
        call: ModelCall<'b>,
    ) -> LocalBoxFuture<'b, Result<Completion, ModelError>> {
        self.0.complete(call)
    }
}

/// The library could not record a step.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChainError {
    #[error(transparent)]
    Library(#[from] LibraryError),
}

/// What a chain is played with.
pub(crate) struct Run<'a> {
    pub chain: &'a Chain,
    /// Each step's prompt, in step order.
    pub prompts: &'a [StoredPrompt],
    pub inputs: &'a IndexMap<String, Json>,
    pub library: &'a mut Library,
    /// Who plays it, for the audit log.
    pub who: &'a str,
}

/// Plays the chain from its first step until a step goes to `end`, the step limit is
/// reached, no branch holds, or a step fails. Only the library failing to record a
/// step is an error; everything else is the record's outcome.
pub(crate) async fn play(mut run: Run<'_>, models: &mut Models) -> Result<ChainRecord, ChainError> {
    let chain = run.chain;
    let mut record = ChainRecord {
        chain: chain.name.clone(),
        file: chain.path.display().to_string(),
        outcome: Outcome::Done,
        max_steps: chain.max_steps,
        steps: Vec::new(),
        output: None,
        error: None,
    };
    let mut outputs: HashMap<String, String> = HashMap::new();
    let mut at = 0;
    loop {
        if record.steps.len() as u64 >= chain.max_steps {
            record.outcome = Outcome::StepLimit;
            record.error = Some(format!(
                "max_steps is {} and step `{}` would be step {}",
                chain.max_steps,
                chain.steps[at].id,
                record.steps.len() + 1
            ));
            return Ok(record);
        }
        let number = record.steps.len() as u32 + 1;
        let played = play_step(&run, at, number, &outputs, models).await;
        let (step_record, taken) = match played {
            Ok(done) => done,
            Err(stopped) => {
                if let Some(step) = stopped.step {
                    audit(&mut run, &step, Some(false))?;
                    record.steps.push(step);
                }
                record.outcome = stopped.outcome;
                record.error = Some(stopped.error);
                return Ok(record);
            }
        };
        audit(&mut run, &step_record, Some(true))?;
        outputs.insert(step_record.id.clone(), step_record.output.clone());
        let output = step_record.output.clone();
        record.steps.push(step_record);
        match taken {
            Target::End => {
                record.output = Some(output);
                return Ok(record);
            }
            Target::Step(next) => at = next,
        }
    }
}

/// Why a step stopped the chain; `step` holds what it did when it got an answer.
struct Stopped {
    outcome: Outcome,
    error: String,
    step: Option<StepRecord>,
}

impl Stopped {
    fn failed(id: &str, error: impl std::fmt::Display) -> Stopped {
        Stopped {
            outcome: Outcome::Failed,
            error: format!("step `{id}`: {error}"),
            step: None,
        }
    }
}

async fn play_step(
    run: &Run<'_>,
    at: usize,
    number: u32,
    outputs: &HashMap<String, String>,
    models: &mut Models,
) -> Result<(StepRecord, Target), Stopped> {
    let started = Instant::now();
    let step = &run.chain.steps[at];
    let stored = &run.prompts[at];
    let mut values = IndexMap::new();
    for binding in &step.with {
        let value = binding
            .value
            .resolve(run.inputs, outputs)
            .map_err(|err| Stopped::failed(&step.id, format!("slot `{}`: {err}", binding.slot)))?;
        values.insert(binding.slot.clone(), value);
    }
    let rendered = render_prompt(run.library, &stored.id, Some(stored.version), &values)
        .map_err(|err| Stopped::failed(&step.id, super::prepare::failure(&err)))?;
    let (system, history) = conversation(&rendered.messages);
    let model = models.plan.hook_names.1.clone();
    let call = ModelCall {
        turn: number,
        round: 1,
        system_prompt: &system,
        model: &model,
        tool_choice: ToolChoice::None,
        messages: &history,
        tools: &[],
        stream: models.plan.stream,
    };
    let completion = models.ask(number, call).await.map_err(|err| Stopped {
        outcome: Outcome::ProviderFailed,
        error: format!("step `{}`: {err}", step.id),
        step: None,
    })?;
    let output = completion.message.content;
    let variables = Json::Object(values.clone().into_iter().collect());
    let mut record = StepRecord {
        id: step.id.clone(),
        prompt: PromptUsed {
            id: rendered.id,
            version: rendered.version,
            content_hash: rendered.content_hash,
        },
        inputs: variables.clone(),
        rendered: rendered.messages,
        output,
        answered_by: completion.answered_by,
        branch: None,
        duration_ms: 0,
        audited: rendered.variables,
    };
    let chosen = choose(run.chain, at, &record.output, &history, &variables);
    record.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match chosen {
        Ok(Some(branch)) => {
            let target = branch.1;
            record.branch = Some(branch.0);
            Ok((record, target))
        }
        Ok(None) => Err(Stopped {
            outcome: Outcome::NoBranch,
            error: format!("step `{}`: no branch of `next` held", step.id),
            step: Some(record),
        }),
        Err(err) => Err(Stopped {
            step: Some(record),
            ..Stopped::failed(&step.id, err)
        }),
    }
}

/// The rendered messages as a model call takes them: the system messages joined
/// into its system prompt, the others its conversation (dotprompt's `model` is the
/// assistant).
fn conversation(rendered: &[Message]) -> (String, History) {
    let mut system = Vec::new();
    let mut history = History::default();
    for m in rendered {
        match m.role.as_str() {
            "system" => system.push(m.text.as_str()),
            "model" | "assistant" => history.push(message("assistant", &m.text)),
            _ => history.push(message("user", &m.text)),
        }
    }
    (system.join("\n\n"), history)
}

/// Where step `at` goes with `output`: the first branch that holds, if one does.
fn choose(
    chain: &Chain,
    at: usize,
    output: &str,
    history: &History,
    variables: &Json,
) -> Result<Option<(Branch, Target)>, super::when::JudgeFailed> {
    let taken = |target: Target, index: Option<usize>, reason: String| {
        Some((
            Branch {
                goto: chain.target_name(target).to_string(),
                index,
                reason,
            },
            target,
        ))
    };
    match &chain.steps[at].next {
        Next::Following => {
            let target = chain.following(at);
            let reason = match target {
                Target::End => "the last step".to_string(),
                Target::Step(_) => "the next step in the file".to_string(),
            };
            Ok(taken(target, None, reason))
        }
        Next::Goto(target, _) => Ok(taken(*target, None, "next".to_string())),
        Next::Branches(branches) => {
            for (i, branch) in branches.iter().enumerate() {
                let Some(when) = &branch.when else {
                    return Ok(taken(branch.goto, Some(i), "otherwise".to_string()));
                };
                let verdict = when.judge(output, history, variables)?;
                if verdict.holds {
                    return Ok(taken(branch.goto, Some(i), verdict.reason));
                }
            }
            Ok(None)
        }
    }
}

/// The step's use of its prompt, in the library's audit log; sensitive slots'
/// values are redacted.
fn audit(run: &mut Run<'_>, step: &StepRecord, success: Option<bool>) -> Result<(), ChainError> {
    run.library.record_use(&PromptUse {
        who: run.who,
        prompt_id: &step.prompt.id,
        version: step.prompt.version,
        content_hash: step.prompt.content_hash.clone(),
        variables: step.audited.clone(),
        purpose: "chain",
        success,
        checks: None,
    })?;
    Ok(())
}
