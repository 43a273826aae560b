//! The engine of `check`: every planned extension through every probe of its kind,
//! several at once, then its tools through the fuzzer, into one [`CheckRecord`].

use std::cell::RefCell;
use std::sync::Arc;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::tool_caller::ToolCaller;

use super::fuzzing::{Caller, FuzzTarget, fuzz};
use super::subject::{Options, Subject, ToolSchemas};
use super::{CheckRecord, ExtensionCheck, Probe, line, mcp, oneshot};

/// A check run, planned: the extensions to check, in the order the report lists
/// them, and how.
#[derive(Debug, Clone)]
pub(crate) struct CheckPlan {
    pub subjects: Vec<Subject>,
    pub options: Options,
    /// How many extensions are checked at once.
    pub jobs: usize,
    /// Cancelled when the command is interrupted: the run ends
    /// [`CheckError::Interrupted`].
    pub stop: CancellationToken,
}

/// What a check run shows as it goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum CheckEvent<'r> {
    /// An extension's probes started.
    Started(&'r Subject),
    /// An extension's probes finished (in the order they finish).
    Finished(&'r ExtensionCheck),
}

/// Why a check run has no record.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckError {
    #[error("interrupted")]
    Interrupted,
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// Checks every planned extension, up to `jobs` at once, and shows each to
/// `on_event` as it starts and finishes. An extension that no probe applied to (as
/// with `--probe`) is left out of the record.
pub(crate) fn run(
    plan: &CheckPlan,
    on_event: impl FnMut(CheckEvent<'_>),
) -> Result<CheckRecord, CheckError> {
    let on_event = RefCell::new(on_event);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CheckError::Runtime)?;
    let checked = runtime.block_on(async {
        if plan.stop.is_cancelled() {
            return Err(CheckError::Interrupted);
        }
        let checking = futures::stream::iter(plan.subjects.iter())
            .map(|subject| async {
                (on_event.borrow_mut())(CheckEvent::Started(subject));
                let checked = check(subject, &plan.options).await;
                (on_event.borrow_mut())(CheckEvent::Finished(&checked));
                checked
            })
            .buffered(plan.jobs.max(1))
            .collect::<Vec<ExtensionCheck>>();
        tokio::select! {
            checked = checking => Ok(checked),
            () = plan.stop.cancelled() => Err(CheckError::Interrupted),
        }
    })?;
    Ok(CheckRecord {
        seed: plan.options.seed,
        cases: plan.options.cases,
        extensions: checked
            .into_iter()
            .filter(|e| !e.probes.is_empty())
            .collect(),
    })
}

/// One extension through every probe of its kind, then its tools through the fuzzer.
async fn check(subject: &Subject, options: &Options) -> ExtensionCheck {
    let fuzzing = options.wants(Probe::Fuzz) || options.wants(Probe::OutputContract);
    let mut probes = match subject {
        Subject::OneShot(s) => {
            let mut probes = oneshot::probe(s, options).await;
            if fuzzing && let Some(schemas) = &s.tool {
                let caller = ToolCaller::new(&s.name, &s.spec);
                let target = target(Caller::Engine(&caller), &s.name, schemas, options);
                probes.extend(fuzz(&[target], options).await);
            }
            probes
        }
        Subject::Line(s) => {
            let mut probes = line::probe(s, options).await;
            if fuzzing && let Some(schemas) = &s.tool {
                let target = target(Caller::Line(s), &s.name, schemas, options);
                probes.extend(fuzz(&[target], options).await);
            }
            probes
        }
        Subject::Mcp(s) => {
            let (mut probes, answered) = mcp::probe(&s.server, options).await;
            if let Some((client, listing)) = answered {
                let client = Arc::new(client);
                if fuzzing {
                    let callers: Vec<ToolCaller> = listing
                        .tools
                        .iter()
                        .map(|t| ToolCaller::mcp(&t.name, &t.tool, &client))
                        .collect();
                    let targets: Vec<FuzzTarget> = listing
                        .tools
                        .iter()
                        .zip(&callers)
                        .map(|(t, caller)| FuzzTarget {
                            caller: Caller::Engine(caller),
                            name: t.name.clone(),
                            input: &t.input_schema,
                            output: t.output_schema.as_ref(),
                            withheld: mcp::withheld(t, options),
                        })
                        .collect();
                    probes.extend(fuzz(&targets, options).await);
                }
                client.shutdown().await;
            }
            probes
        }
    };
    probes.retain(|p| options.wants(p.probe));
    ExtensionCheck {
        name: subject.name().to_string(),
        kind: subject.kind(),
        probes,
    }
}

fn target<'a>(
    caller: Caller<'a>,
    name: &str,
    schemas: &'a ToolSchemas,
    options: &Options,
) -> FuzzTarget<'a> {
    FuzzTarget {
        caller,
        name: name.to_string(),
        input: &schemas.input,
        output: schemas.output.as_ref(),
        withheld: (schemas.writes && !options.allow_writes)
            .then(|| "`side_effects: writes`; --allow-writes calls it".to_string()),
    }
}
