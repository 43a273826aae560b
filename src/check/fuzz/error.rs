use super::budget::At;
use super::pattern::PatternError;

/// Why no fuzzer can be made for a schema.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FuzzError {
    /// A JSON Schema is an object or a boolean.
    #[error("the input schema is {found}, not a JSON Schema (an object or a boolean)")]
    NotASchema { found: &'static str },
    /// The schema does not compile (a bad `pattern`, an unknown `$ref`, ...).
    #[error("the input schema is invalid: {0}")]
    Invalid(String),
    /// A size keyword asks for more than the fuzzer builds.
    #[error("`{keyword}: {value}` at {at} asks for more than check generates (at most {limit})")]
    TooLarge {
        keyword: &'static str,
        value: u64,
        limit: u64,
        at: At,
    },
    /// Subschemas nest deeper than generation follows.
    #[error("the schema nests deeper than check follows (at most {limit} levels) at {at}")]
    TooDeep { limit: usize, at: At },
    /// Generation would visit more subschemas than it builds.
    #[error(
        "the schema has more subschemas than check generates from (at most {limit}, passed at {at})"
    )]
    TooManySubschemas { limit: usize, at: At },
    /// An object declares or requires more properties than generation builds.
    #[error(
        "the object at {at} has {count} properties, more than check generates (at most {limit})"
    )]
    TooManyProperties { count: usize, limit: usize, at: At },
    /// A tuple lists more item schemas than generation builds.
    #[error(
        "the array at {at} lists {count} item schemas, more than check generates (at most {limit})"
    )]
    TooManyItems { count: usize, limit: u64, at: At },
    /// A `pattern` too costly to generate strings from.
    #[error("the pattern at {at} {why}")]
    Pattern { why: PatternError, at: At },
    /// The smallest value a part of the schema demands is larger than one call gets.
    #[error(
        "the smallest value at {at} may take {size} bytes of JSON, more than check generates for one call (at most {limit})"
    )]
    TooBig { size: u64, limit: u64, at: At },
    /// Nothing generated (nor the plain example) satisfies the schema.
    #[error("no arguments satisfying the input schema could be generated")]
    Unsatisfiable,
}

impl FuzzError {
    /// The schema is usable but asks for more than generation builds.
    pub(crate) fn past_a_limit(&self) -> bool {
        matches!(
            self,
            FuzzError::TooLarge { .. }
                | FuzzError::TooDeep { .. }
                | FuzzError::TooManySubschemas { .. }
                | FuzzError::TooManyProperties { .. }
                | FuzzError::TooManyItems { .. }
                | FuzzError::Pattern { .. }
                | FuzzError::TooBig { .. }
        )
    }
}
