//! Integration tests: the real `promptexec` binary, run the way a user runs it.

mod help;
mod render;
mod util;
mod validate;
