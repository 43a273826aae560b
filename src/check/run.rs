//! One extension through every probe of its kind, then its tools through the fuzzer.

use std::sync::Arc;

use crate::tool_caller::ToolCaller;

use super::fuzzing::{Caller, FuzzTarget, fuzz};
use super::subject::{Options, Subject, ToolSchemas};
use super::{ExtensionCheck, Probe, line, mcp, oneshot};

pub(crate) async fn check(subject: &Subject, options: &Options) -> ExtensionCheck {
    let fuzzing = options.wants(Probe::Fuzz) || options.wants(Probe::OutputContract);
    let mut probes = match subject {
        Subject::OneShot(s) => {
            let mut probes = oneshot::probe(s, options).await;
            if fuzzing && let Some(schemas) = &s.tool {
                let caller = ToolCaller::new(&s.name, &s.spec);
                let target = target(Caller::Engine(&caller), &s.name, schemas);
                probes.extend(fuzz(&[target], options).await);
            }
            probes
        }
        Subject::Line(s) => {
            let mut probes = line::probe(s, options).await;
            if fuzzing && let Some(schemas) = &s.tool {
                let target = target(Caller::Line(s), &s.name, schemas);
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

fn target<'a>(caller: Caller<'a>, name: &str, schemas: &'a ToolSchemas) -> FuzzTarget<'a> {
    FuzzTarget {
        caller,
        name: name.to_string(),
        input: &schemas.input,
        output: schemas.output.as_ref(),
    }
}
