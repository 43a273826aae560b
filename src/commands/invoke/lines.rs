//! The lines of a batch, read one at a time so memory does not grow with the input:
//! each a JSON object, numbered from 1; blank lines are skipped.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::cli::CliError;
use crate::doc::{Diagnostic, Diagnostics};
use crate::tools::ArgsSchema;

use super::check_args;
use crate::commands::common::load::json_kind;

/// Big enough that a fast batch reads in few system calls.
const READ_BUFFER: usize = 64 * 1024;

/// Where a batch comes from: a file, or `-` for stdin.
#[derive(Clone)]
pub(super) struct BatchSource {
    given: PathBuf,
    /// Where stdin stood at the start when it is a regular file (`< FILE`), which
    /// can be read twice from there like a file given by name.
    stdin_start: Option<u64>,
}

/// One non-blank line of a batch.
pub(super) enum Line {
    /// The arguments of one call.
    Call(Json),
    /// Not a JSON object: the line cannot be a call at all.
    Unreadable(Diagnostic),
    /// A JSON object that breaks the tool's schema.
    OffSchema(Diagnostics),
}

/// The schema every line is checked against, and the tool it belongs to.
pub(super) struct SchemaCheck {
    pub(super) schema: ArgsSchema,
    pub(super) tool: String,
}

impl BatchSource {
    pub(super) fn new(given: &Path) -> Self {
        let stdin_start = (given == Path::new("-"))
            .then(stdin_file)
            .flatten()
            .and_then(|mut file| file.stream_position().ok());
        Self {
            given: given.to_path_buf(),
            stdin_start,
        }
    }

    /// A regular file can be read twice, so every line is checked before any call
    /// starts; pipes and terminals are checked as they stream.
    pub(super) fn rereadable(&self) -> bool {
        if self.is_stdin() {
            return self.stdin_start.is_some();
        }
        std::fs::metadata(&self.given).is_ok_and(|meta| meta.file_type().is_file())
    }

    /// The lines from the start, each checked against `schema` when one is given.
    pub(super) fn lines(&self, schema: Option<SchemaCheck>) -> Result<BatchLines, CliError> {
        let input: Box<dyn Read + Send> = match (self.is_stdin(), self.stdin_start) {
            (true, None) => Box::new(std::io::stdin()),
            (true, Some(start)) => {
                let rewound = stdin_file()
                    .ok_or_else(|| std::io::Error::other("stdin is no longer a file"))
                    .and_then(|mut file| file.seek(SeekFrom::Start(start)).map(|_| file));
                Box::new(rewound.map_err(|err| self.read_error(err))?)
            }
            (false, _) => Box::new(File::open(&self.given).map_err(|err| self.read_error(err))?),
        };
        let reader = BufReader::with_capacity(READ_BUFFER, input);
        Ok(BatchLines {
            source: self.clone(),
            reader,
            number: 0,
            buffer: Vec::new(),
            schema,
            done: false,
        })
    }

    fn is_stdin(&self) -> bool {
        self.given == Path::new("-")
    }

    fn read_error(&self, err: std::io::Error) -> CliError {
        CliError::Read {
            path: if self.is_stdin() {
                "<stdin>".into()
            } else {
                self.given.clone()
            },
            source: err,
        }
    }
}

/// Stdin as a file of its own when it is a regular file; reading it moves stdin too.
fn stdin_file() -> Option<File> {
    use std::os::fd::AsFd;
    let file = File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    let regular = file.metadata().is_ok_and(|meta| meta.file_type().is_file());
    regular.then_some(file)
}

/// Reads a batch line by line; ends after the first read error.
pub(super) struct BatchLines {
    source: BatchSource,
    reader: BufReader<Box<dyn Read + Send>>,
    number: usize,
    buffer: Vec<u8>,
    schema: Option<SchemaCheck>,
    done: bool,
}

impl Iterator for BatchLines {
    type Item = Result<Line, CliError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buffer.clear();
            match self.reader.read_until(b'\n', &mut self.buffer) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.number += 1;
                    if let Some(line) = self.parse() {
                        return Some(line);
                    }
                }
                Err(err) => {
                    self.done = true;
                    return Some(Err(self.source.read_error(err)));
                }
            }
        }
        None
    }
}

impl BatchLines {
    /// Whether more of the input is read already: the next line comes without
    /// waiting on whoever writes it.
    pub(super) fn buffered(&self) -> bool {
        !self.reader.buffer().is_empty()
    }

    /// The line just read, or `None` when it is blank.
    fn parse(&mut self) -> Option<Result<Line, CliError>> {
        let Ok(text) = std::str::from_utf8(&self.buffer) else {
            // The same refusal as reading the whole input as text.
            self.done = true;
            return Some(Err(self.source.read_error(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ))));
        };
        if text.trim().is_empty() {
            return None;
        }
        let (source, number) = (self.source.given.display(), self.number);
        let line = match serde_json::from_str::<Json>(text) {
            Ok(value @ Json::Object(_)) => match &self.schema {
                None => Line::Call(value),
                Some(check) => match check_args(&check.schema, &check.tool, &value, Some(number)) {
                    Err(CliError::Invalid(found)) => Line::OffSchema(found),
                    _ => Line::Call(value),
                },
            },
            Ok(other) => Line::Unreadable(Diagnostic::plain(format!(
                "{source}:{number}: the arguments must be a JSON object, found {}",
                json_kind(&other)
            ))),
            Err(err) => Line::Unreadable(Diagnostic::plain(format!(
                "{source}:{number}: the arguments are not valid JSON: {err}"
            ))),
        };
        Some(Ok(line))
    }
}

/// Reads a rereadable batch to the end without keeping its lines: any line that is
/// not a JSON object fails the batch before a call starts and, when all are, so does
/// any that breaks the schema `check` gives (loaded only then, as before streaming).
pub(super) fn check_first(
    source: &BatchSource,
    check: impl FnOnce() -> Result<Option<SchemaCheck>, CliError>,
) -> Result<(), CliError> {
    let unreadable = problems(source.lines(None)?)?;
    if unreadable.has_errors() {
        return Err(CliError::Invalid(unreadable));
    }
    if let Some(schema) = check()? {
        let off_schema = problems(source.lines(Some(schema))?)?;
        if off_schema.has_errors() {
            return Err(CliError::Invalid(off_schema));
        }
    }
    Ok(())
}

/// What is wrong with the lines, in line order.
fn problems(lines: BatchLines) -> Result<Diagnostics, CliError> {
    let mut found = Diagnostics::default();
    for line in lines {
        match line? {
            Line::Call(_) => {}
            Line::Unreadable(problem) => found.push(problem),
            Line::OffSchema(problems) => found.extend(problems),
        }
    }
    Ok(found)
}
