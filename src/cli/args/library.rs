//! The arguments of the prompt library's commands and of signed sharing.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

/// The library's own commands.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum LibraryCommand {
    /// Add PromptKind template files to the library (a new version if the id exists)
    ///
    /// Every template is checked first and all are stored in one transaction: if one
    /// is refused, none is added. A template equal to its prompt's latest version
    /// makes no version and is reported `unchanged`. A directory adds every `*.json`
    /// file in it and in its subdirectories, in name order, leaving out hidden files
    /// and directories.
    Add {
        /// Template files (JSON) or directories of them
        #[arg(required = true, value_name = "FILE|DIR")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// List the library's prompts
    List {
        /// Only prompts with this tag (repeatable: all of them)
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// `id`; `rank`: the latest version's rank score, best first (see `prompt
        /// stats`); `recent`: the last changed first
        #[arg(long, value_enum, default_value_t = ListSort::Id)]
        sort: ListSort,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Search titles, descriptions, templates and tags, best match first
    Search {
        /// Words to look for (case-insensitive)
        query: String,
        /// Only prompts with this tag (repeatable: all of them)
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Show one prompt
    #[command(disable_version_flag = true)]
    Show {
        id: String,
        /// This version rather than the latest
        #[arg(long, value_name = "V")]
        version: Option<u64>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Every version of a prompt
    History {
        id: String,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Make a prompt read-only: it refuses changes and removal
    Lock {
        id: String,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Make a locked prompt changeable again
    Unlock {
        id: String,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Remove a prompt from the library (its versions stay on record)
    Rm {
        id: String,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Rate a prompt from 0 to 5
    #[command(disable_version_flag = true)]
    Rate {
        id: String,
        score: f64,
        /// Rate this version rather than the latest
        #[arg(long, value_name = "V")]
        version: Option<u64>,
        #[arg(long, value_name = "TEXT")]
        comment: Option<String>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// The audit log of renders (`audit verify` checks its hash chain)
    #[command(args_conflicts_with_subcommands = true)]
    Audit {
        #[command(subcommand)]
        verify: Option<AuditCommand>,
        /// Only this prompt's renders
        id: Option<String>,
        /// Only renders at or after this time (RFC 3339, e.g. 2026-11-22T10:00:00Z)
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
        #[command(flatten)]
        library: LibraryArgs,
    },
}

/// Signed sharing between libraries.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum ShareCommand {
    /// Make an ed25519 key pair for signing; prints the public key as a did:key
    Keygen {
        /// Where the private key goes (mode 0600); the public key goes to FILE.pub
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Write prompts to a signed bundle
    Export {
        /// The prompts (their latest versions)
        #[arg(required = true)]
        ids: Vec<String>,
        /// The private key to sign with (from `keygen`)
        #[arg(long, value_name = "KEY")]
        sign_key: PathBuf,
        /// The bundle file [default: stdout]
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Check a bundle's signature and contents, and who signed it
    Verify {
        bundle: PathBuf,
        /// Also require the signer to be this did:key (repeatable)
        #[arg(long, value_name = "DID")]
        trust: Vec<String>,
        #[arg(long, value_enum, default_value_t = LibraryFormat::Human)]
        format: LibraryFormat,
    },
    /// Import every prompt of a bundle signed by a trusted key, or none
    Import {
        bundle: PathBuf,
        /// A did:key whose bundles are trusted (repeatable)
        #[arg(long, value_name = "DID", required = true)]
        trust: Vec<String>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Write a signed PromptKind sync packet for one prompt
    SyncSend {
        id: String,
        #[arg(long, value_name = "KEY")]
        sign_key: PathBuf,
        /// The receiver's did:key
        #[arg(long, value_name = "DID")]
        target: String,
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Accept a PromptKind sync packet: signed by a trusted source, fresh, never seen
    SyncReceive {
        packet: PathBuf,
        /// A did:key whose packets are trusted (repeatable)
        #[arg(long, value_name = "DID", required = true)]
        trust: Vec<String>,
        /// The receiver's private key (from `keygen`): packets addressed to another
        /// did are refused
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// How old (or early) a packet may be, in seconds
        #[arg(long, value_name = "SECONDS", default_value_t = 300)]
        window: u64,
        #[command(flatten)]
        library: LibraryArgs,
    },
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum AuditCommand {
    /// Check that no audit record was edited or removed
    Verify {
        #[command(flatten)]
        library: LibraryArgs,
    },
}

// Where the library is, who acts, and how to answer. (Not a doc comment: on an
// `Args` flattened into a deferred subcommand, it would replace the subcommand's
// own description.)
#[derive(Debug, Args)]
pub(crate) struct LibraryArgs {
    /// The library database [default: the per-user data directory]
    #[arg(long, value_name = "PATH", env = "PROMPTEXEC_LIBRARY")]
    pub library: Option<PathBuf>,

    /// Who acts, for the record [default: the user]
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,

    /// `human`: tables and text; `json`: one JSON document on stdout
    #[arg(long, value_enum, default_value_t = LibraryFormat::Human)]
    pub format: LibraryFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListSort {
    Id,
    Rank,
    Recent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LibraryFormat {
    Human,
    Json,
}
