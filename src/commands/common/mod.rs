//! What the commands share: reading the config and packs, the interrupt watch, the
//! provider a run is given, warnings, output files and exit codes.

pub(super) mod baseline;
pub(super) mod emit;
pub(super) mod exit;
pub(super) mod library;
pub(super) mod load;
pub(super) mod model;
pub(super) mod runtime;
pub(super) mod scenario_files;
pub(super) mod warnings;
pub(super) mod watch;
