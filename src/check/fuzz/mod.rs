//! Schema-driven fuzzing of tools: arguments generated from a tool's JSON Schema (the
//! pack's `parameters`, an MCP tool's `inputSchema`), valid and deliberately broken,
//! each checked against the schema by the validator, and a failing input shrunk with
//! the tool itself as the judge.
//!
//! Generation is proptest strategies built keyword by keyword from the schema; shrinking
//! walks their value trees by hand so each step can await a call to the tool.
//!
//! A schema is held to the limits of `budget.rs` while its strategies are built, before
//! any value is: nesting, subschemas, properties, items, pattern cost, and the JSON size
//! of the smallest value. Past one, the fuzzer is refused with the reason and the JSON
//! Pointer of the part; within them, no drawn value passes 1 MiB of JSON.

mod budget;
mod case;
mod choice;
mod error;
mod example;
mod fuzzer;
mod invalid;
mod numbers;
mod pattern;
mod schema;
mod seq;
mod shell;
mod text;
mod valid;

#[cfg(test)]
mod budget_tests;
#[cfg(test)]
mod tests;

pub(crate) use case::Case;
pub(crate) use fuzzer::Fuzzer;
pub(crate) use shell::invoke_command;
