//! The launch checks `validate` runs live in [`crate::exec`]; this name stays for
//! the command that imports it from here.

pub(super) use crate::exec::launch_problems;
