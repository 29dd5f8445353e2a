//! The generator's error type: what went wrong, where (file, JSON pointer,
//! line:column) and what to do about it.
//!
//! Every fallible operation of the library returns [`Error`]. Commands that
//! report many problems at once (`mcpgen manifest check`) collect them as a
//! list of [`Error`]s and print each on its own. [`Error::kind`] says which
//! input was at fault, and [`std::error::Error::source`] gives the
//! underlying I/O or network error when there is one.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// Which input or step an [`Error`] is about, for callers that handle
/// some failures themselves (a build script that falls back when the
/// schema cannot be fetched, an editor that marks manifest problems).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading or writing a file failed; `source()` is the `std::io::Error`.
    Io,
    /// The MCP schema could not be found, downloaded, verified against its
    /// pin, or read.
    Schema,
    /// The manifest is malformed, or declares something the revision or the
    /// generator does not allow (`mcpgen manifest check` lists these).
    Manifest,
    /// Generating or formatting code failed for inputs that passed their
    /// checks.
    Generate,
    /// The generator was called wrongly: no output directory, options that
    /// do not go together, a network listener or runtime that would not
    /// start.
    Usage,
}

/// Where in an input a problem is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file, when the input came from one.
    pub file: Option<PathBuf>,
    /// RFC 6901 JSON pointer into the document ("" is the whole document).
    pub pointer: Option<String>,
    /// 1-based line and column of the value the pointer names.
    pub line_col: Option<(usize, usize)>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut wrote = false;
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some((line, col)) = self.line_col {
                write!(f, ":{line}:{col}")?;
            }
            wrote = true;
        } else if let Some((line, col)) = self.line_col {
            write!(f, "{line}:{col}")?;
            wrote = true;
        }
        if let Some(pointer) = &self.pointer {
            if wrote {
                f.write_str(" ")?;
            }
            let shown = if pointer.is_empty() {
                "/"
            } else {
                pointer.as_str()
            };
            write!(f, "at {shown}")?;
        }
        Ok(())
    }
}

/// A generator error. Two errors are equal when their kind, message,
/// location and hint are; the source is not compared.
#[derive(Debug, Clone)]
pub struct Error {
    /// What went wrong, one sentence.
    pub message: String,
    /// Where, when known (boxed, as are kind and source, so that a
    /// `Result` of the library stays small on the success path).
    pub location: Option<Box<Location>>,
    /// What the user can do about it.
    pub hint: Option<String>,
    cause: Option<Box<Cause>>,
}

#[derive(Debug, Clone, Default)]
struct Cause {
    kind: Option<ErrorKind>,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind()
            && self.message == other.message
            && self.location == other.location
            && self.hint == other.hint
    }
}

impl Eq for Error {}

impl Error {
    /// An error with a message and nothing else; its kind is set by the
    /// step that reports it ([`Error::or_kind`]), else [`ErrorKind::Generate`].
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            location: None,
            hint: None,
            cause: None,
        }
    }

    /// Which input or step the error is about.
    pub fn kind(&self) -> ErrorKind {
        self.cause
            .as_ref()
            .and_then(|c| c.kind)
            .unwrap_or(ErrorKind::Generate)
    }

    /// Sets the kind.
    pub fn with_kind(mut self, kind: ErrorKind) -> Self {
        self.cause.get_or_insert_with(Box::default).kind = Some(kind);
        self
    }

    /// Sets the kind unless a more precise one was set where the error
    /// arose (an I/O error while reading the schema stays [`ErrorKind::Io`]).
    pub fn or_kind(mut self, kind: ErrorKind) -> Self {
        self.cause
            .get_or_insert_with(Box::default)
            .kind
            .get_or_insert(kind);
        self
    }

    /// Keeps the underlying error, returned by `source()`.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.cause.get_or_insert_with(Box::default).source = Some(Arc::new(source));
        self
    }

    /// Names the file the problem is in.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.location.get_or_insert_with(Box::default).file = Some(file.into());
        self
    }

    /// Names the JSON pointer of the problem.
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.location.get_or_insert_with(Box::default).pointer = Some(pointer.into());
        self
    }

    /// Names the line and column of the problem (1-based).
    pub fn at_line_col(mut self, line: usize, column: usize) -> Self {
        self.location.get_or_insert_with(Box::default).line_col = Some((line, column));
        self
    }

    /// Adds advice on what to do.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O error on a path, with the path named.
    pub fn io(action: &str, path: &std::path::Path, err: std::io::Error) -> Self {
        Self::new(format!("cannot {action} {}: {err}", path.display()))
            .with_kind(ErrorKind::Io)
            .with_source(err)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.location {
            write!(f, "{loc}: ")?;
        }
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  help: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        let source = self.cause.as_ref()?.source.as_deref()?;
        Some(source as &(dyn std::error::Error + 'static))
    }
}

/// Result alias of the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Sets the kind of every error of `result` that has none yet: the step
/// that called into a lower layer names what it was doing.
pub(crate) fn stage<T>(result: Result<T>, kind: ErrorKind) -> Result<T> {
    result.map_err(|e| e.or_kind(kind))
}

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
