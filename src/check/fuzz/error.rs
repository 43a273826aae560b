/// Why no fuzzer can be made for a schema.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// A JSON Schema is an object or a boolean.
    #[error("the input schema is {found}, not a JSON Schema (an object or a boolean)")]
    NotASchema { found: &'static str },
    /// The schema does not compile (a bad `pattern`, an unknown `$ref`, ...).
    #[error("the input schema is invalid: {0}")]
    Invalid(String),
    /// A size keyword asks for more than the fuzzer builds.
    #[error("`{keyword}: {value}` asks for more than check generates (at most {limit})")]
    TooLarge {
        keyword: &'static str,
        value: u64,
        limit: u64,
    },
    /// Nothing generated (nor the plain example) satisfies the schema.
    #[error("no arguments satisfying the input schema could be generated")]
    Unsatisfiable,
}
