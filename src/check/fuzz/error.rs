/// Why no fuzzer can be made for a schema.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// A JSON Schema is an object or a boolean.
    #[error("the input schema is {found}, not a JSON Schema (an object or a boolean)")]
    NotASchema { found: &'static str },
    /// The schema does not compile (a bad `pattern`, an unknown `$ref`, ...).
    #[error("the input schema is invalid: {0}")]
    Invalid(String),
    /// Nothing generated (nor the plain example) satisfies the schema.
    #[error("no arguments satisfying the input schema could be generated")]
    Unsatisfiable,
}
