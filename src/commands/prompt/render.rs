//! `prompt render`: a template from the library, a file or a pack, rendered; with
//! `--as`, placed into chat messages.

use std::path::Path;

use crate::cli::args::{InjectAs, RenderArgs};
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::dotprompt::{Message, RenderEnv};
use crate::library::{
    ChatMessages, Placement, RenderFailure, SiblingPartials, load_template_file, render_stored,
};
use crate::pack;

use crate::commands::common::emit::pretty;
use crate::commands::common::library::{open, refused, who};
use crate::commands::common::load::{self, read_text};

/// `prompt render`: the rendered text (or, with `--as`, the messages as JSON) alone
/// on stdout; warnings and errors on stderr.
pub(in crate::commands) fn render(
    args: &RenderArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    // The messages are read first: a bad file stops the render before it is audited.
    let into = match (&args.place, &args.into) {
        (Some(_), Some(path)) => Some(read_messages(path)?),
        (Some(_), None) => Some(ChatMessages::empty()),
        (None, _) => None,
    };
    let inputs = load::vars(&args.vars)?;
    let messages = if let Some(id) = &args.id {
        let mut lib = open(&args.library)?;
        let who = who(&args.library);
        render_stored(&mut lib, id, args.version, &inputs, &who, "render")
            .map_err(render_failure)?
            .messages
    } else if let Some(file) = &args.file {
        let loaded = load_template_file(file)?;
        console.diagnostics(&loaded.warnings);
        let env = RenderEnv {
            partials: &SiblingPartials::beside(file),
            history: &[],
        };
        let rendered = loaded.value.render_with(&inputs, &env);
        rendered.map_err(CliError::Invalid)?.messages
    } else if let Some(pack_path) = &args.pack {
        let pack = load::pack(pack_path, console)?;
        let prompt = load::choose_prompt(&pack, args.prompt.as_deref())?;
        let now = args.vars.now.unwrap_or_else(std::time::SystemTime::now);
        let text =
            pack::render_prompt_at(&pack, prompt, &inputs, now).map_err(CliError::Invalid)?;
        vec![Message::new("user", text)]
    } else {
        return Err(UsageError::Nothing(
            "give a library prompt ID, --file TEMPLATE or --pack PACK".into(),
        )
        .into());
    };
    match (into, args.place) {
        (Some(mut chat), Some(place)) => {
            chat.inject(&messages, placement(place));
            console.out(&pretty(&chat.to_json()))?;
        }
        _ => {
            let text: String = messages.iter().map(|m| m.text.as_str()).collect();
            console.out(&text)?;
        }
    }
    Ok(Exit::Success)
}

/// The chat messages of `--into` (`-`: stdin).
fn read_messages(path: &Path) -> Result<ChatMessages, CliError> {
    let text = read_text(path)?;
    let label = if path == Path::new("-") {
        Path::new("<stdin>")
    } else {
        path
    };
    ChatMessages::parse(label, &text).map_err(CliError::Invalid)
}

fn placement(place: InjectAs) -> Placement {
    match place {
        InjectAs::System => Placement::System,
        InjectAs::Prefix => Placement::Prefix,
        InjectAs::Suffix => Placement::Suffix,
    }
}

fn render_failure(err: RenderFailure) -> CliError {
    match err {
        RenderFailure::Library(err) => refused(err),
        RenderFailure::Template { problems, .. } => CliError::Invalid(problems),
    }
}
