//! The library as a folder of `.prompt` files under version control: each prompt a
//! file, compared with the library by content.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value as Json;

use crate::doc::{Diagnostic, Diagnostics, Rejected};
use crate::dotprompt::{self, Partials};

use super::parallel::map_in_parallel;
use super::prompt_file::file_name_for;
use super::sign::content_hash;
use super::store::StoredPrompt;
use super::template_file::{is_prompt_file, load_template_file};
use super::template_set::walk;

/// One `.prompt` file of a folder, read and checked.
#[derive(Debug, Clone)]
pub struct FolderPrompt {
    /// The file, relative to the folder.
    pub file: PathBuf,
    pub id: String,
    /// The template as the library stores it.
    pub template: Json,
    pub content_hash: String,
}

/// How a prompt differs between a folder and the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FolderState {
    /// In the folder only.
    New,
    /// In both, with other content.
    Modified,
    /// In the library only.
    Deleted,
    Unchanged,
}

/// One prompt compared.
#[derive(Debug, Clone, Serialize)]
pub struct FolderStatus {
    pub id: String,
    pub state: FolderState,
    /// The file, relative to the folder (none when only the library has it).
    pub file: Option<PathBuf>,
    /// The library's latest version (none when only the folder has it).
    pub version: Option<u64>,
}

/// Every `.prompt` file under `dir` (hidden entries left out), checked; one bad
/// file, or two files of one id, rejects them all.
pub fn read_folder(dir: &Path) -> Result<(Vec<FolderPrompt>, Diagnostics), Rejected> {
    let mut problems = Diagnostics::default();
    let mut files = Vec::new();
    walk(dir, &mut files, &mut problems, is_prompt_file);
    let checked = map_in_parallel(&files, |path| load_template_file(path));
    let mut prompts: Vec<FolderPrompt> = Vec::new();
    let mut seen: HashMap<String, PathBuf> = HashMap::new();
    for (path, loaded) in files.iter().zip(checked) {
        match loaded {
            Ok(loaded) => {
                problems.extend(loaded.warnings);
                let template = loaded.value.library_json().clone();
                let id = loaded.value.id.clone();
                if let Some(first) = seen.insert(id.clone(), path.clone()) {
                    problems.push(Diagnostic::whole_file(
                        path,
                        format!("prompt `{id}` is also in {}", first.display()),
                    ));
                    continue;
                }
                prompts.push(FolderPrompt {
                    file: path.strip_prefix(dir).unwrap_or(path).to_path_buf(),
                    id,
                    content_hash: content_hash(&template),
                    template,
                });
            }
            Err(Rejected(found)) => problems.extend(found),
        }
    }
    if problems.has_errors() {
        return Err(Rejected(problems));
    }
    Ok((prompts, problems))
}

/// Each prompt of the folder and of the library, by id: folder order first, then the
/// library's prompts the folder lacks.
pub fn compare(folder: &[FolderPrompt], library: &[StoredPrompt]) -> Vec<FolderStatus> {
    let stored: HashMap<&str, &StoredPrompt> = library.iter().map(|p| (p.id.as_str(), p)).collect();
    let mut out: Vec<FolderStatus> = folder
        .iter()
        .map(|p| {
            let found = stored.get(p.id.as_str());
            let state = match found {
                None => FolderState::New,
                Some(s) if s.content_hash == p.content_hash => FolderState::Unchanged,
                Some(_) => FolderState::Modified,
            };
            FolderStatus {
                id: p.id.clone(),
                state,
                file: Some(p.file.clone()),
                version: found.map(|s| s.version),
            }
        })
        .collect();
    let in_folder: std::collections::HashSet<&str> = folder.iter().map(|p| p.id.as_str()).collect();
    out.extend(
        library
            .iter()
            .filter(|p| !in_folder.contains(p.id.as_str()))
            .map(|p| FolderStatus {
                id: p.id.clone(),
                state: FolderState::Deleted,
                file: None,
                version: Some(p.version),
            }),
    );
    out
}

/// The partials of a `.prompt` file rendered on its own: `{{> name}}` is the file
/// `_name.prompt` beside it (dotprompt's naming for partials), else `name.prompt`.
/// Each is read once per render.
pub struct SiblingPartials {
    dir: PathBuf,
    read: RefCell<HashMap<String, Option<Arc<dotprompt::Template>>>>,
}

impl SiblingPartials {
    pub fn beside(file: &Path) -> Self {
        SiblingPartials {
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
            read: RefCell::default(),
        }
    }

    fn find(&self, name: &str) -> Option<Arc<dotprompt::Template>> {
        let file_name = file_name_for(name);
        let candidates = [format!("_{file_name}"), file_name];
        let path = candidates
            .iter()
            .map(|c| self.dir.join(c))
            .find(|p| p.is_file())?;
        let loaded = load_template_file(&path).ok()?;
        let text = loaded
            .value
            .library_json()
            .get("template")?
            .as_str()?
            .to_string();
        dotprompt::Template::parse(&text).ok().map(Arc::new)
    }
}

impl Partials for SiblingPartials {
    fn partial(&self, name: &str) -> Option<Arc<dotprompt::Template>> {
        if let Some(known) = self.read.borrow().get(name) {
            return known.clone();
        }
        let found = self.find(name);
        self.read
            .borrow_mut()
            .insert(name.to_string(), found.clone());
        found
    }
}
