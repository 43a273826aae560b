//! Recording model exchanges and replaying them: `--record FILE` keeps each model
//! call's request, answer and timing; `--replay FILE` answers the calls from such a
//! file (or from a PromptKit session recording) instead of asking the provider, and a
//! call that does not match its recording fails with the difference.

mod diff;
mod format;
mod json_object;
mod json_position;
mod load;
mod normalize;
mod promptkit;
mod recorder;
mod replay;
mod saved;

pub use diff::{MAX_LINES, differences, quoted, render, text_line};
pub use format::{
    FORMAT_VERSION, FormatVersion, NormalizedMessage, NormalizedToolCall, NormalizedToolResult,
    ProviderInfo, RecordedAnswer, RecordedExchange, RecordedSession, RecordedToolCall, Recording,
    RequestMatch, WireBody,
};
pub use normalize::normalize;
pub use promptkit::PROMPTKIT_KIND;
pub use recorder::{Recorder, SessionTape};
pub use replay::{MatchMode, Replayer};
pub use saved::{SavedMessage, saved_conversation};
