//! Skills: folders holding a `SKILL.md` (YAML front matter `name`, `description`,
//! `allowed-tools`, then the instructions), offered through `skill__activate`,
//! `skill__deactivate` and `skill__read_resource` as PromptKit offers them.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value as Json, json};

use super::{CallError, OfferedTool, object_args, string_arg};

const ACTIVATE: &str = "skill__activate";
const DEACTIVATE: &str = "skill__deactivate";
const READ_RESOURCE: &str = "skill__read_resource";

/// Why a skill folder cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SkillError {
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: no front matter (a `---` block with `name` and `description`)", path.display())]
    NoFrontMatter { path: PathBuf },
    #[error("{}: front matter: {error}", path.display())]
    FrontMatter { path: PathBuf, error: String },
}

#[derive(Debug, Deserialize)]
struct FrontMatter {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default, rename = "allowed-tools")]
    allowed_tools: Vec<String>,
}

#[derive(Debug, Clone)]
struct Skill {
    name: String,
    description: String,
    allowed_tools: Vec<String>,
    instructions: String,
    dir: PathBuf,
}

/// The skills of an Arena config's `skills[].path` folders, by name, and which
/// of them the conversation has active.
#[derive(Debug, Default)]
pub(crate) struct Skills {
    skills: Vec<Skill>,
    active: BTreeSet<String>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SkillError + '_ {
    move |error| SkillError::Io {
        path: path.to_path_buf(),
        error,
    }
}

fn read_skill(file: &Path) -> Result<Skill, SkillError> {
    let text = std::fs::read_to_string(file).map_err(io(file))?;
    let no_front = || SkillError::NoFrontMatter {
        path: file.to_path_buf(),
    };
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(no_front)?;
    let end = rest.find("\n---").ok_or_else(no_front)?;
    let front: FrontMatter =
        serde_saphyr::from_str(&rest[..end]).map_err(|e| SkillError::FrontMatter {
            path: file.to_path_buf(),
            error: e.to_string(),
        })?;
    let body = rest[end + 4..].trim_start_matches(['-']);
    Ok(Skill {
        name: front.name,
        description: front.description,
        allowed_tools: front.allowed_tools,
        instructions: body.trim().to_string(),
        dir: file.parent().unwrap_or(Path::new(".")).to_path_buf(),
    })
}

/// Every `SKILL.md` at or under `dir`, in path order.
fn find(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), SkillError> {
    let own = dir.join("SKILL.md");
    if own.is_file() {
        found.push(own);
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    for entry in entries {
        find(&entry, found)?;
    }
    Ok(())
}

impl Skills {
    /// The skills under `dirs` (each a skill folder or a folder of them); a name
    /// met twice keeps its first folder.
    pub(crate) fn load(dirs: &[PathBuf]) -> Result<Self, SkillError> {
        let mut files = Vec::new();
        for dir in dirs {
            find(dir, &mut files)?;
        }
        let mut skills: Vec<Skill> = Vec::new();
        for file in files {
            let skill = read_skill(&file)?;
            if !skills.iter().any(|s| s.name == skill.name) {
                skills.push(skill);
            }
        }
        Ok(Self {
            skills,
            active: BTreeSet::new(),
        })
    }

    /// Marks `names` active from the start (`preload: true`).
    pub(crate) fn preload(&mut self, names: &[String]) {
        self.active.extend(names.iter().cloned());
    }

    /// The name of every skill found, in the order found.
    pub(crate) fn names(&self) -> Vec<String> {
        self.skills.iter().map(|s| s.name.clone()).collect()
    }

    /// The names of the active skills, sorted.
    #[cfg(test)]
    pub(crate) fn active(&self) -> Vec<String> {
        self.active.iter().cloned().collect()
    }

    /// The three skill tools; `skill__activate` lists every skill it can load.
    pub(crate) fn tools(&self) -> Vec<OfferedTool> {
        let name = |what: &str| json!({"type": "string", "description": what});
        let index: Vec<String> = self
            .skills
            .iter()
            .map(|s| format!("- {}: {}", s.name, s.description))
            .collect();
        vec![
            OfferedTool {
                name: ACTIVATE.into(),
                description: format!(
                    "Activate a skill to load its instructions and tools.\n\nAvailable skills:\n{}",
                    index.join("\n")
                ),
                input_schema: json!({"type": "object", "properties": {"name": name("Name of the skill to activate.")}, "required": ["name"]}),
            },
            OfferedTool {
                name: DEACTIVATE.into(),
                description: "Deactivate a skill to unload its instructions and tools.".into(),
                input_schema: json!({"type": "object", "properties": {"name": name("Name of the skill to deactivate.")}, "required": ["name"]}),
            },
            OfferedTool {
                name: READ_RESOURCE.into(),
                description: "Read a resource file from within a skill's directory.".into(),
                input_schema: json!({"type": "object", "properties": {
                    "skill_name": name("Name of the skill owning the resource."),
                    "path": name("Relative path to the resource within the skill directory.")},
                    "required": ["skill_name", "path"]}),
            },
        ]
    }

    /// The answer to a call of `tool`, or `None` when it is no skill tool.
    pub(crate) fn call(&mut self, tool: &str, args: &Json) -> Option<Result<Json, CallError>> {
        let answer = match tool {
            ACTIVATE => self.activate(args),
            DEACTIVATE => self.deactivate(args),
            READ_RESOURCE => self.read_resource(args),
            _ => return None,
        };
        Some(answer)
    }

    fn named(&self, tool: &str, args: &Json, key: &'static str) -> Result<&Skill, CallError> {
        object_args(tool, args)?;
        let name = string_arg(tool, args, key)?.ok_or(CallError::Required {
            tool: tool.into(),
            key,
        })?;
        self.skills
            .iter()
            .find(|s| s.name == name)
            .ok_or(CallError::UnknownSkill {
                tool: tool.into(),
                name,
            })
    }

    /// `{"instructions": ..., "added_tools": [...]}`; activating an active skill
    /// answers the same again.
    fn activate(&mut self, args: &Json) -> Result<Json, CallError> {
        let skill = self.named(ACTIVATE, args, "name")?.clone();
        self.active.insert(skill.name);
        Ok(json!({"instructions": skill.instructions, "added_tools": skill.allowed_tools}))
    }

    fn deactivate(&mut self, args: &Json) -> Result<Json, CallError> {
        let skill = self.named(DEACTIVATE, args, "name")?.clone();
        let removed = if self.active.remove(&skill.name) {
            skill.allowed_tools
        } else {
            Vec::new()
        };
        Ok(json!({ "removed_tools": removed }))
    }

    /// A file of the skill's folder, by a relative path that stays inside it.
    fn read_resource(&mut self, args: &Json) -> Result<Json, CallError> {
        let skill = self.named(READ_RESOURCE, args, "skill_name")?;
        let path = string_arg(READ_RESOURCE, args, "path")?.ok_or(CallError::Required {
            tool: READ_RESOURCE.into(),
            key: "path",
        })?;
        let inside = Path::new(&path)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(CallError::OutsideSkill {
                tool: READ_RESOURCE.into(),
                path,
            });
        }
        let content =
            std::fs::read_to_string(skill.dir.join(&path)).map_err(|e| CallError::Unreadable {
                tool: READ_RESOURCE.into(),
                path: path.clone(),
                error: e.to_string(),
            })?;
        Ok(json!({ "content": content }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        let billing = dir.path().join("billing").join("pci");
        std::fs::create_dir_all(&billing).expect("folder");
        std::fs::write(
            billing.join("SKILL.md"),
            "---\nname: pci\ndescription: Card data rules\nallowed-tools:\n  - refund\n---\n\n# PCI\nNever echo card numbers.\n",
        )
        .expect("skill");
        std::fs::write(billing.join("notes.txt"), "extra").expect("resource");
        let voice = dir.path().join("voice");
        std::fs::create_dir_all(&voice).expect("folder");
        std::fs::write(
            voice.join("SKILL.md"),
            "---\nname: voice\ndescription: Tone\n---\nBe kind.\n",
        )
        .expect("skill");
        dir
    }

    #[test]
    fn skills_are_found_activated_read_and_deactivated() {
        let dir = folder();
        let mut skills = Skills::load(&[dir.path().to_path_buf()]).expect("skills");
        assert!(
            skills.tools()[0]
                .description
                .contains("- pci: Card data rules\n- voice: Tone")
        );
        assert_eq!(
            skills.call(ACTIVATE, &json!({"name": "pci"})),
            Some(Ok(
                json!({"instructions": "# PCI\nNever echo card numbers.", "added_tools": ["refund"]})
            ))
        );
        assert_eq!(skills.active(), ["pci"]);
        assert_eq!(
            skills.call(
                READ_RESOURCE,
                &json!({"skill_name": "pci", "path": "notes.txt"})
            ),
            Some(Ok(json!({"content": "extra"})))
        );
        assert!(matches!(
            skills.call(
                READ_RESOURCE,
                &json!({"skill_name": "pci", "path": "../voice/SKILL.md"})
            ),
            Some(Err(CallError::OutsideSkill { .. }))
        ));
        assert_eq!(
            skills.call(DEACTIVATE, &json!({"name": "pci"})),
            Some(Ok(json!({"removed_tools": ["refund"]})))
        );
        assert!(matches!(
            skills.call(ACTIVATE, &json!({"name": "nope"})),
            Some(Err(CallError::UnknownSkill { .. }))
        ));
        assert_eq!(skills.call("memory__list", &json!({})), None);
    }

    #[test]
    fn a_skill_without_front_matter_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("SKILL.md"), "# no front matter\n").expect("file");
        assert!(matches!(
            Skills::load(&[dir.path().to_path_buf()]),
            Err(SkillError::NoFrontMatter { .. })
        ));
    }
}
