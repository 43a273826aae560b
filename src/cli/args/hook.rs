//! `hook test`: one event sent to one configured hook.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum HookCommand {
    /// Send one event to a hook (a realistic sample unless --event is given)
    Test(HookTestArgs),
}

#[derive(Debug, Args)]
pub(crate) struct HookTestArgs {
    /// The hook's name in the config's `spec.hooks`
    pub name: String,

    /// The phase to send [default: the hook's first phase]
    #[arg(long, value_name = "PHASE", conflicts_with = "all_phases")]
    pub phase: Option<String>,

    /// The payload: inline JSON, @FILE or - (stdin); an object without `hook` is taken as the
    /// phase's `request` (or `event`) and wrapped
    #[arg(long, value_name = "JSON")]
    pub event: Option<String>,

    /// Run every phase the hook is configured for, one decision per line
    #[arg(long, conflicts_with = "event")]
    pub all_phases: bool,
}
