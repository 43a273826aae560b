//! Where in a session something happened, as events and reports name it.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{HookPhase, Intercept};

/// Where a hook ran or decided, or where an extension failed. Its wire name is the
/// hook phase's or the place's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A hook phase of the config, where exec hooks run.
    Hook(HookPhase),
    /// A JSON-RPC hook's interception, named as the config names it.
    Intercept(Intercept),
    /// Anywhere else.
    Other(Place),
}

crate::wire_enum! {
    /// The places besides hook phases and interceptions.
    pub enum Place {
        /// Eval hooks hearing a result.
        Eval = "eval",
        /// A tool process.
        Tool = "tool",
        /// The model: a provider or the recording it is replayed from.
        Model = "model",
    }
}

impl Phase {
    pub const EVAL: Phase = Phase::Other(Place::Eval);
    pub const TOOL: Phase = Phase::Other(Place::Tool);
    pub const MODEL: Phase = Phase::Other(Place::Model);

    /// The name this phase has in events and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Hook(phase) => phase.as_str(),
            Phase::Intercept(intercept) => intercept.as_str(),
            Phase::Other(place) => place.as_str(),
        }
    }

    /// The phase a wire name stands for.
    pub fn from_wire(name: &str) -> Option<Self> {
        HookPhase::from_wire(name)
            .map(Phase::Hook)
            .or_else(|| Intercept::from_wire(name).map(Phase::Intercept))
            .or_else(|| Place::from_wire(name).map(Phase::Other))
    }
}

impl From<HookPhase> for Phase {
    fn from(phase: HookPhase) -> Self {
        Phase::Hook(phase)
    }
}

impl From<Intercept> for Phase {
    fn from(intercept: Intercept) -> Self {
        Phase::Intercept(intercept)
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Phase {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Phase {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        Phase::from_wire(&name).ok_or_else(|| {
            let known: Vec<&str> = HookPhase::NAMES
                .iter()
                .chain(Intercept::NAMES)
                .chain(Place::NAMES)
                .copied()
                .collect();
            serde::de::Error::custom(format!(
                "unknown phase `{name}`, expected one of {}",
                known.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phase_reads_back_from_its_name() {
        let hook_phases = HookPhase::WIRE.iter().map(|(_, p)| Phase::Hook(*p));
        let intercepts = Intercept::WIRE.iter().map(|(_, i)| Phase::Intercept(*i));
        let places = Place::WIRE.iter().map(|(_, p)| Phase::Other(*p));
        for phase in hook_phases.chain(intercepts).chain(places) {
            assert_eq!(Phase::from_wire(phase.as_str()), Some(phase));
            let json = serde_json::to_string(&phase).expect("serializes");
            assert_eq!(serde_json::from_str::<Phase>(&json).expect("reads"), phase);
        }
        let err = serde_json::from_str::<Phase>("\"hook\"").expect_err("no such phase");
        assert!(err.to_string().contains("session_end, before_llm"), "{err}");
    }
}
