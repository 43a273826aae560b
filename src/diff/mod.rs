//! Differences between two things, for the places that show a reader what changed:
//! a replayed request against its recording, a case's result against its snapshot,
//! an eval's new result against the recorded one.
//!
//! Three small mechanisms, none of which knows what it compares:
//! - [`json`]: two JSON values, every difference named by its JSON Pointer
//!   (RFC 6901), numbers compared by value (`1` is `1.0`).
//! - [`text`]: where two texts first part, an excerpt around that place, and a
//!   line diff (longest common subsequence) with a unified rendering.
//! - [`keyed`]: two lists paired by a key (results by eval and turn, scenarios by
//!   name), in a deterministic order.
//!
//! The wording of each reader's lines stays with that reader; this module only finds
//! and locates the differences.

pub mod json;
pub mod keyed;
pub mod text;

pub use json::{Change, changes, first_change, same};
pub use keyed::{Paired, pair};
