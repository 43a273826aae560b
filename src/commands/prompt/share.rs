//! `prompt keygen|export|verify|import|sync-send|sync-receive`: prompts shared
//! between people and agents, trusted by signature, not by channel.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::Value as Json;

use crate::cli::args::{LibraryArgs, LibraryFormat, ShareCommand};
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::library::{
    KeyPair, Receiving, ShareError, SignError, check_packet, inspect_bundle, make_bundle,
    make_packet, open_bundle, parse_template, read_key_file, write_key_files,
};
use crate::report::ShareAnswer;

use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::library::{open, refused, say, who};
use crate::commands::common::load::read_text;

/// Runs one sharing command.
pub(in crate::commands) fn run(
    command: &ShareCommand,
    console: &mut Console,
) -> Result<Exit, CliError> {
    match command {
        ShareCommand::Keygen { out } => keygen(out, console),
        ShareCommand::Export {
            ids,
            sign_key,
            output,
            library,
        } => export(ids, sign_key, output.as_deref(), library, console),
        ShareCommand::Verify {
            bundle,
            trust,
            format,
        } => verify(bundle, trust, *format, console),
        ShareCommand::Import {
            bundle,
            trust,
            library,
        } => import(bundle, trust, library, console),
        ShareCommand::SyncSend {
            id,
            sign_key,
            target,
            output,
            library,
        } => sync_send(id, sign_key, target, output.as_deref(), library, console),
        ShareCommand::SyncReceive {
            packet,
            trust,
            key: receiver_key,
            window,
            library,
        } => {
            let receiver = key(receiver_key)?.did();
            let receiving = Receiving {
                receiver: &receiver,
                trusted: trust,
                now: SystemTime::now(),
                window: Duration::from_secs(*window),
            };
            sync_receive(packet, receiving, library, console)
        }
    }
}

/// The latest versions of `ids`, signed into a bundle.
fn export(
    ids: &[String],
    sign_key: &Path,
    output: Option<&Path>,
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let key = key(sign_key)?;
    let lib = open(library)?;
    let prompts = ids
        .iter()
        .map(|id| {
            let p = lib.get(id, None).map_err(refused)?;
            Ok((p.id, p.version, p.content))
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    // An id named twice here is the command line's mistake (exit 2); in a bundle
    // received, the same refusal is a definite no.
    let bundle = make_bundle(&key, &prompts, SystemTime::now()).map_err(|e| match e {
        ShareError::DuplicateId { .. } => UsageError::Unusable(e.to_string()).into(),
        other => share(other),
    })?;
    write_output(console, output, &pretty(&bundle))?;
    Ok(Exit::Success)
}

/// Every prompt of a trusted bundle, or none.
fn import(
    bundle: &Path,
    trust: &[String],
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let prompts = open_bundle(&read_json(bundle)?, trust).map_err(share)?;
    let templates = checked(bundle, prompts.into_iter().map(|(_, _, t)| t))?;
    let stored = open(library)?
        .add_all(&templates, &who(library))
        .map_err(refused)?;
    say(console, library.format, &ShareAnswer::Imported(&stored))
}

/// One prompt, signed for one receiver.
fn sync_send(
    id: &str,
    sign_key: &Path,
    target: &str,
    output: Option<&Path>,
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let key = key(sign_key)?;
    crate::library::validate_did(target)
        .map_err(|e| UsageError::bad_value("--target", None, e.to_string()))?;
    let prompt = open(library)?.get(id, None).map_err(refused)?;
    let packet = make_packet(
        &key,
        &prompt.content,
        &prompt.version.to_string(),
        target,
        SystemTime::now(),
    );
    write_output(console, output, &pretty(&packet))?;
    Ok(Exit::Success)
}

/// A packet that is signed by a trusted source, fresh, and never seen before.
fn sync_receive(
    packet: &Path,
    receiving: Receiving,
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let verified = check_packet(&read_json(packet)?, receiving).map_err(share)?;
    let template = checked(packet, std::iter::once(verified.template.clone()))?.remove(0);
    let version = open(library)?
        .receive(&verified.digest, &template, &verified.source)
        .map_err(refused)?;
    let received = ShareAnswer::Received {
        id: &verified.prompt_id,
        version,
        source: &verified.source,
    };
    say(console, library.format, &received)
}

fn keygen(out: &Path, console: &mut Console) -> Result<Exit, CliError> {
    let key = KeyPair::generate().map_err(|e| UsageError::Unusable(e.to_string()))?;
    let public = write_key_files(out, &key).map_err(|e| match e {
        SignError::WriteKey { path, source } => CliError::Write { path, source },
        other => UsageError::Unusable(other.to_string()).into(),
    })?;
    console.note(&format!(
        "wrote the private key to {} (mode 0600) and the public key to {}",
        out.display(),
        public.display()
    ));
    console.out(&format!("{}\n", key.did()))?;
    Ok(Exit::Success)
}

fn verify(
    bundle: &Path,
    trust: &[String],
    format: LibraryFormat,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let bundle = read_json(bundle)?;
    let info = if trust.is_empty() {
        inspect_bundle(&bundle).map_err(share)?
    } else {
        open_bundle(&bundle, trust).map_err(share)?;
        inspect_bundle(&bundle).map_err(share)?
    };
    let trusted = !trust.is_empty();
    say(
        console,
        format,
        &ShareAnswer::Verified {
            info: &info,
            trusted,
        },
    )
}

/// Every template must pass the same checks as `prompt add` before any is stored;
/// problems are placed as `SOURCE#ID:LINE:COL` within the template's compact JSON.
fn checked(source: &Path, templates: impl Iterator<Item = Json>) -> Result<Vec<Json>, CliError> {
    templates
        .map(|t| {
            let id = t["id"].as_str().unwrap_or("<no id>");
            let label = format!("{}#{id}", source.display());
            parse_template(Path::new(&label), &t.to_string())?;
            Ok(t)
        })
        .collect()
}

fn key(path: &Path) -> Result<KeyPair, CliError> {
    read_key_file(path).map_err(|e| UsageError::Unusable(format!("{}: {e}", path.display())).into())
}

/// The JSON document at `path` (`-`: stdin), opened by the path as given: one that
/// is not UTF-8 is read all the same, and only shown lossily.
fn read_json(path: &Path) -> Result<Json, CliError> {
    let text = if path.as_os_str() == "-" {
        read_text("-")?
    } else {
        std::fs::read_to_string(path).map_err(|source| CliError::Read {
            path: path.to_path_buf(),
            source,
        })?
    };
    serde_json::from_str(&text)
        .map_err(|e| UsageError::Unusable(format!("{}: not JSON: {e}", path.display())).into())
}

fn share(err: ShareError) -> CliError {
    CliError::from(err)
}
