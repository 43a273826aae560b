//! One file per subcommand, each in the same shape: load its inputs and build a plan
//! (nothing started), execute the plan into a record, report the record through the
//! console it is given. Commands share only the modules below the commands list;
//! they never call each other.

mod check;
mod eval;
mod hook;
mod hook_rpc;
mod init;
mod invoke;
mod launch_check;
mod library;
mod list;
mod prompt;
mod run;
mod share;
mod test;
mod tools;
mod validate;

mod dispatch;
mod emit;
mod exit;
mod hook_report;
#[cfg(test)]
mod in_process;
mod load;
mod model;
mod runtime;
mod scenario_files;
mod store;
mod warnings;

pub(crate) use dispatch::run;
