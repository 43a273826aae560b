//! Chains of library prompts: a YAML file of steps, each a prompt of the library whose
//! slots are bound to the chain's inputs and to earlier steps' outputs, played one
//! model call a step, with branches on each output.
//!
//! ```yaml
//! chain: triage
//! max_steps: 10                  # at most this many steps are played [default: 20]
//! inputs: {ticket: ~}            # each input's default (`~`: it must be given)
//! steps:
//!   - id: classify
//!     prompt: classify-ticket@2  # a library prompt, optionally at a version
//!     with: {ticket: "{{inputs.ticket}}"}
//!     next:
//!       - when: {matches: "(?i)billing"}
//!         goto: billing
//!       - when: {pointer: /category, equals: tech}
//!         goto: tech
//!       - goto: end
//!   - id: billing
//!     prompt: billing-reply
//!     with: {summary: "{{steps.classify.output}}"}
//!     next: end
//! ```
//!
//! A step without `next` goes on to the step after it in the file (the last one ends
//! the chain); `next: ID` goes to that step; a list of branches takes the first whose
//! `when` holds (a branch without `when` always does); `end` ends the chain. Loading
//! checks everything that can be checked without the library: every `goto` names a
//! step, the steps make no cycle, and every reference in a binding names an input,
//! or a step that has run on every path to the step that reads it.

mod graph;
mod load;
#[cfg(test)]
mod load_tests;
mod play;
mod prepare;
mod record;
mod refs;
mod when;

use std::path::PathBuf;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::Pos;

pub(crate) use load::load_chain;
pub(crate) use play::{ChainError, Models, Run, play};
pub(crate) use prepare::{prepare, resolve_inputs};
pub(crate) use record::{ChainRecord, Outcome, human};

/// The steps played when a chain file does not say.
pub(crate) const DEFAULT_MAX_STEPS: u64 = 20;

/// A chain file, checked.
pub(crate) struct Chain {
    pub path: PathBuf,
    pub name: String,
    pub max_steps: u64,
    /// Each input and its default (`None`: it must be given).
    pub inputs: IndexMap<String, Option<Json>>,
    pub steps: Vec<Step>,
}

pub(crate) struct Step {
    pub id: String,
    pub pos: Pos,
    pub prompt: PromptRef,
    /// Slot bindings, in file order.
    pub with: Vec<Binding>,
    pub next: Next,
}

/// `prompt: ID[@VERSION]`.
pub(crate) struct PromptRef {
    pub id: String,
    pub version: Option<u64>,
    pub pos: Pos,
}

pub(crate) struct Binding {
    pub slot: String,
    /// Where the slot's name is written.
    pub pos: Pos,
    pub value: refs::Bound,
    /// Where its value is written.
    pub value_pos: Pos,
}

/// Where a step goes once it has its output.
pub(crate) enum Next {
    /// The step after it in the file, or the end after the last.
    Following,
    /// `next: ID`, written at `Pos`.
    Goto(Target, Pos),
    Branches(Vec<Branch>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The step at this index of [`Chain::steps`].
    Step(usize),
    End,
}

pub(crate) struct Branch {
    /// Every condition must hold; none means the branch is always taken.
    pub when: Option<when::When>,
    pub goto: Target,
    pub pos: Pos,
}

impl Chain {
    /// Where step `index` goes when nothing else is said.
    fn following(&self, index: usize) -> Target {
        if index + 1 < self.steps.len() {
            Target::Step(index + 1)
        } else {
            Target::End
        }
    }

    /// Every place step `index` may go next, and where that is written (the step
    /// itself when it goes on to the following one).
    fn successors(&self, index: usize) -> Vec<(Target, Pos)> {
        let step = &self.steps[index];
        match &step.next {
            Next::Following => vec![(self.following(index), step.pos)],
            Next::Goto(target, pos) => vec![(*target, *pos)],
            Next::Branches(branches) => branches.iter().map(|b| (b.goto, b.pos)).collect(),
        }
    }

    /// The name of where `target` leads, for records and messages.
    pub(crate) fn target_name(&self, target: Target) -> &str {
        match target {
            Target::Step(i) => &self.steps[i].id,
            Target::End => "end",
        }
    }
}
