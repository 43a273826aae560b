use std::fmt;
use std::path::{Path, PathBuf};

use super::Pos;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a file, printed as `FILE:LINE:COL: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: PathBuf,
    /// `None` when the problem is with the file as a whole (it cannot be read).
    pub pos: Option<Pos>,
    pub message: String,
}

impl Diagnostic {
    pub fn error(file: &Path, pos: Pos, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, file, Some(pos), message.into())
    }

    pub fn warning(file: &Path, pos: Pos, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, file, Some(pos), message.into())
    }

    pub fn whole_file(file: &Path, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, file, None, message.into())
    }

    /// A problem with the command line rather than with a file.
    pub fn plain(message: impl Into<String>) -> Self {
        Self::new(Severity::Error, Path::new(""), None, message.into())
    }

    /// A warning about the command line rather than about a file.
    pub fn plain_warning(message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, Path::new(""), None, message.into())
    }

    fn new(severity: Severity, file: &Path, pos: Option<Pos>, message: String) -> Self {
        Self {
            severity,
            file: file.to_path_buf(),
            pos,
            message,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.as_os_str().is_empty() {
            let label = match self.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            return write!(f, "{label}: {}", self.message);
        }
        write!(f, "{}:", self.file.display())?;
        if let Some(pos) = self.pos {
            write!(f, "{pos}:")?;
        }
        if self.severity == Severity::Warning {
            f.write_str(" warning:")?;
        }
        write!(f, " {}", self.message)
    }
}

/// Every problem found so far, errors and warnings alike, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.0.len() - self.error_count()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    /// Orders by file (in order of first appearance), then position, so output reads
    /// top to bottom like the file.
    pub fn sorted(mut self) -> Self {
        let mut files: Vec<PathBuf> = Vec::new();
        for d in &self.0 {
            if !files.contains(&d.file) {
                files.push(d.file.clone());
            }
        }
        let rank = |d: &Diagnostic| files.iter().position(|f| *f == d.file);
        self.0.sort_by_key(|d| (rank(d), d.pos));
        self
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Self(vec![d])
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl FromIterator<Diagnostic> for Diagnostics {
    fn from_iter<I: IntoIterator<Item = Diagnostic>>(items: I) -> Self {
        Self(items.into_iter().collect())
    }
}
