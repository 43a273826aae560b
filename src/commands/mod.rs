//! One file or folder per subcommand, grouped by noun, each in the same shape: turn
//! its arguments into a plan (files read and checked, nothing started), make one
//! engine call that gives a record, render the record through the console it is
//! given, exit as the record says. Commands share only `common/`; they never call
//! each other.

mod check;
mod diff;
mod eval;
mod hook;
mod init;
mod invoke;
mod list;
mod lock;
mod prompt;
mod report;
mod run;
mod test;
mod tools;
mod ui;
mod validate;

mod common;
mod dispatch;
#[cfg(test)]
mod in_process;

pub(crate) use dispatch::run;
