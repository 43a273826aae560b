//! `prompt chain run`: a chain file of library prompts played step by step on the
//! provider `run` would use, then reported.

use crate::chain::{self, ChainRecord, Models, Outcome, Run};
use crate::cli::args::{ChainCommand, ChainRunArgs, LibraryFormat};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::provider::{self, ProviderInfo, Recording};

use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::library::{open, refused, who};
use crate::commands::common::load;
use crate::commands::common::model::{self, AnswerFlags};
use crate::commands::common::runtime::with_runtime;
use crate::commands::common::warnings::LoadWarnings;

pub(in crate::commands) fn run(
    settings: &Settings,
    command: &ChainCommand,
    console: &mut Console,
) -> Result<Exit, CliError> {
    match command {
        ChainCommand::Run(args) => run_chain(settings, args, console),
    }
}

/// Everything is checked before the first model call: the chain file, the inputs,
/// every step's prompt in the library, and the provider.
fn run_chain(
    settings: &Settings,
    args: &ChainRunArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut warnings = LoadWarnings::new(false);
    let chain = warnings.keep(chain::load_chain(&args.file), console)?;
    let given = load::vars(&args.vars)?;
    let inputs = chain::resolve_inputs(&chain, &given)
        .map_err(|err| UsageError::Unusable(err.to_string()))?;
    let mut library = open(&args.library)?;
    let prompts = chain::prepare(&chain, &library).map_err(CliError::Invalid)?;
    let config = warnings.config_or_empty(settings, console)?;
    let flags = AnswerFlags {
        provider: args.provider.as_deref(),
        replay: args.replay.as_deref(),
        replay_match: args.replay_match,
        mock: args.mock.as_deref(),
        scenario: (
            args.scenario.as_deref().unwrap_or(&chain.name),
            args.scenario.is_some(),
        ),
        stream: false,
    };
    let plan = model::plan(flags, &config, &mut warnings, console)?;
    let info = plan.info.clone();
    let who = who(&args.library);
    let mut models = Models::new(plan, args.record.is_some());
    let record = with_runtime(|| async {
        let run = Run {
            chain: &chain,
            prompts: &prompts,
            inputs: &inputs,
            library: &mut library,
            who: &who,
        };
        chain::play(run, &mut models)
            .await
            .map_err(|chain::ChainError::Library(err)| refused(err))
    })?;
    if let Some(path) = &args.record {
        write_recording(
            path,
            info,
            std::mem::take(&mut models.recorded),
            &record,
            console,
        )?;
    }
    report(args, &record, console)?;
    Ok(exit(record.outcome))
}

/// The steps' exchanges as a recording, one session a step; a chain whose provider
/// failed leaves none, since it would not replay.
fn write_recording(
    path: &std::path::Path,
    info: ProviderInfo,
    sessions: Vec<provider::RecordedSession>,
    record: &ChainRecord,
    console: &mut Console,
) -> Result<(), CliError> {
    if record.outcome == Outcome::ProviderFailed {
        console.error(&format!(
            "{} not written: a step got no answer, and the recording would not replay",
            path.display()
        ));
        return Ok(());
    }
    let mut recording = Recording::new(info);
    for session in sessions {
        recording.push_session(session);
    }
    recording.write(path).map_err(|source| CliError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The human text or the JSON document, to `--output` or stdout. Why the chain
/// stopped short is in the human text; when that is not what stdout shows, it goes
/// to stderr as well.
fn report(
    args: &ChainRunArgs,
    record: &ChainRecord,
    console: &mut Console,
) -> Result<(), CliError> {
    let text = match args.library.format {
        LibraryFormat::Json => pretty(record),
        LibraryFormat::Human => chain::human(record),
    };
    if let Some(error) = &record.error
        && (args.output.is_some() || args.library.format == LibraryFormat::Json)
    {
        console.error(&format!("chain `{}`: {error}", record.chain));
    }
    write_output(console, args.output.as_deref(), &text)
}

fn exit(outcome: Outcome) -> Exit {
    match outcome {
        Outcome::Done => Exit::Success,
        Outcome::StepLimit | Outcome::NoBranch | Outcome::Failed => Exit::No,
        Outcome::ProviderFailed => Exit::ExtensionFailed,
    }
}
