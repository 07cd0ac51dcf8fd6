//! Output directories that cannot destroy data.
//!
//! A result directory (a run, a reproduction's report) is filled in a temporary sibling
//! `.cnsim-tmp-<pid>-<n>-<leaf>`, synced to disk, and renamed into place only when
//! complete. Each directory cnsim writes carries the marker file [`MARKER`], which says
//! what kind of directory it is ([`Kind`]) and lists every file and directory cnsim
//! wrote there (its manifest). What may be replaced, and only with `force`, is a
//! directory of the same kind whose entries are all in its manifest: a file the user
//! added (notes beside a report) makes cnsim refuse, naming it, rather than delete it.
//! The old result is renamed aside, the new one renamed in, and only then are the old
//! one's listed entries deleted, so a failure at any step leaves either the old or the
//! new result in place.
//!
//! Refused whatever `force` says: an output path whose last component is not a name
//! (`.`, `..`, `/`), the working directory or any of its ancestors, a symbolic link, a
//! file, an existing directory that is neither empty nor a cnsim directory, a cnsim
//! directory of another kind (a sweep is never replaced by a run), and one written by a
//! cnsim that did not list its files. An existing empty directory is written into
//! without `force`: it holds nothing to lose.
//!
//! A process killed while writing (SIGKILL, power loss) leaves its temporary directory
//! behind; the next cnsim writing into the same parent removes temporary directories of
//! processes that no longer exist, and puts back a previous result that was renamed
//! aside but never replaced.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::RunError;

/// The file that marks a directory as written by cnsim: its kind, then its manifest.
pub const MARKER: &str = ".cnsim-run";
/// Prefix of the temporary directories results are written into.
const TMP_PREFIX: &str = ".cnsim-tmp-";
/// Prefix of a previous result renamed aside while a new one replaces it.
const OLD_PREFIX: &str = ".cnsim-old-";
/// At most this many entries of a directory cnsim did not write are named in an error.
const FOREIGN_SHOWN: usize = 5;

/// The kinds of directory cnsim writes. A directory is only ever replaced by one of
/// its own kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `cnsim run`: one run's files.
    Run,
    /// `cnsim reproduce`: a reproduction's report.
    Report,
    /// `cnsim sweep` and `cnsim run --repeat`: a sweep's runs and results; written in
    /// place and resumed, never replaced.
    Sweep,
}

impl Kind {
    /// The word the marker and messages use.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Run => "run",
            Kind::Report => "report",
            Kind::Sweep => "sweep",
        }
    }

    /// The command that writes this kind.
    fn command(self) -> &'static str {
        match self {
            Kind::Run => "cnsim run",
            Kind::Report => "cnsim reproduce",
            Kind::Sweep => "cnsim sweep (or cnsim run --repeat)",
        }
    }

    fn of_word(word: &str) -> Option<Kind> {
        [Kind::Run, Kind::Report, Kind::Sweep].into_iter().find(|k| k.word() == word)
    }
}

/// What a directory's marker says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    /// The kind; `None` for a marker of a cnsim that did not say (it wrote runs and
    /// reports alike as "result").
    pub kind: Option<Kind>,
    /// Every file and directory cnsim wrote there (paths relative to the directory, `/`
    /// between components, a directory with a trailing `/`); `None` when the marker has
    /// no list (a cnsim before manifests, or a result still being staged).
    pub(crate) files: Option<BTreeSet<String>>,
}

/// The line that starts a marker's manifest.
const MANIFEST_HEADER: &str =
    "files cnsim wrote here (--force replaces this directory only while it holds nothing else):";

impl Marker {
    /// The marker's text.
    fn text(kind: Kind, files: Option<&BTreeSet<String>>) -> String {
        let mut t = format!("cnsim {} {} directory\n", crate::VERSION, kind.word());
        if let Some(files) = files {
            t.push_str(MANIFEST_HEADER);
            t.push('\n');
            for f in files {
                t.push_str(f);
                t.push('\n');
            }
        }
        t
    }

    /// Parses a marker's text; `None` when it is not one.
    fn parse(text: &str) -> Option<Marker> {
        let mut lines = text.lines();
        let words: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
        let kind = match words.as_slice() {
            ["cnsim", _, "result", "directory"] | [] => None,
            ["cnsim", _, word, "directory"] => Some(Kind::of_word(word)?),
            _ => return None,
        };
        let files = match lines.next() {
            Some(MANIFEST_HEADER) => Some(lines.filter(|l| !l.is_empty()).map(str::to_string).collect()),
            _ => None,
        };
        Some(Marker { kind, files })
    }

    /// The marker of `dir`, if it has one (a regular file, read without following a link).
    pub fn of(dir: &Path) -> Option<Marker> {
        let path = dir.join(MARKER);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() < (64 << 20)) {
            return None;
        }
        // An empty or unreadable marker still marks the directory as cnsim's (kind unknown).
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        Some(Marker::parse(&text).unwrap_or(Marker { kind: None, files: None }))
    }

    /// The kind, inferred for a marker that does not say: a run has `summary.json`.
    fn kind_in(&self, dir: &Path) -> Kind {
        self.kind.unwrap_or_else(|| if is_file(&dir.join("summary.json")) { Kind::Run } else { Kind::Report })
    }
}

fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

fn io_error(path: &Path, e: &std::io::Error) -> RunError {
    RunError::Output(format!("{}: {e}", path.display()))
}

/// Whether `dir` is a result cnsim wrote: it holds the marker, or the `summary.json` +
/// `scenario.toml` pair of a run written before the marker existed.
pub fn is_cnsim_result(dir: &Path) -> bool {
    is_file(&dir.join(MARKER)) || (is_file(&dir.join("summary.json")) && is_file(&dir.join("scenario.toml")))
}

/// Every entry under `dir` as a manifest names it (the marker itself left out), in
/// depth-first order; links are listed, never followed.
fn entries(dir: &Path) -> std::io::Result<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> std::io::Result<()> {
        let mut names: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
        names.sort_by_key(std::fs::DirEntry::file_name);
        for e in names {
            let name = format!("{prefix}{}", e.file_name().to_string_lossy());
            if name == MARKER {
                continue;
            }
            if e.file_type()?.is_dir() {
                let sub = format!("{name}/");
                out.push(sub.clone());
                walk(&e.path(), &sub, out)?;
            } else {
                out.push(name);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out)?;
    Ok(out)
}

/// The entries under `dir` its manifest does not list (at most [`FOREIGN_SHOWN`] + 1).
fn foreign_entries(dir: &Path, files: &BTreeSet<String>) -> std::io::Result<Vec<String>> {
    Ok(entries(dir)?.into_iter().filter(|e| !files.contains(e)).take(FOREIGN_SHOWN + 1).collect())
}

/// Names a list of foreign entries for an error message.
fn shown_entries(foreign: &[String]) -> String {
    let mut shown: Vec<String> =
        foreign.iter().take(FOREIGN_SHOWN).map(|f| crate::scenario::error::shown_limited(f, 80)).collect();
    if foreign.len() > FOREIGN_SHOWN {
        shown.push("…".into());
    }
    shown.join(", ")
}

/// Deletes the entries `dir`'s manifest lists, deepest first, then `dir` itself if that
/// leaves it empty. Anything else stays: cnsim deletes only what it wrote.
fn remove_listed(dir: &Path) -> std::io::Result<()> {
    let Some(files) = Marker::of(dir).and_then(|m| m.files) else {
        return Ok(());
    };
    for entry in files.iter().rev() {
        let path = dir.join(entry.trim_end_matches('/'));
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if entry.ends_with('/') && meta.is_dir() {
            // Only if empty: a directory that holds something unlisted stays.
            let _ = std::fs::remove_dir(&path);
        } else if !entry.ends_with('/') && !meta.is_dir() {
            std::fs::remove_file(&path)?;
        }
    }
    if std::fs::read_dir(dir)?.all(|e| e.is_ok_and(|e| e.file_name() == MARKER)) {
        std::fs::remove_file(dir.join(MARKER))?;
        std::fs::remove_dir(dir)?;
    }
    Ok(())
}

/// Deletes the cnsim directory `dir`: the entries its manifest lists, then itself. What
/// would keep it (an entry cnsim did not write, or no manifest) is an error, and then
/// nothing is deleted.
pub fn remove_result(dir: &Path) -> Result<(), String> {
    let Some(files) = Marker::of(dir).and_then(|m| m.files) else {
        return Err("it was written by a cnsim that did not list its files; remove it yourself".into());
    };
    let foreign = foreign_entries(dir, &files).map_err(|e| e.to_string())?;
    if !foreign.is_empty() {
        return Err(format!(
            "it holds files cnsim did not write ({}); move them out of it",
            shown_entries(&foreign)
        ));
    }
    remove_listed(dir).map_err(|e| e.to_string())
}

/// Syncs every file and directory under `dir`, and `dir` itself, to disk, so that a
/// rename that commits it is never seen before its content after a power cut.
pub fn sync_tree(dir: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let kind = e.file_type()?;
        if kind.is_dir() {
            sync_tree(&e.path())?;
        } else if kind.is_file() {
            File::open(e.path())?.sync_all()?;
        }
    }
    sync_dir(dir)
}

/// Syncs a directory's entries (a rename or a new file in it) to disk. Where a directory
/// cannot be opened as a file (not on Unix), nothing is done.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    if cfg!(unix) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary sibling renamed into place, so that a
/// reader never sees a half-written file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".cnsim-tmp-{}-{name}", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        std::io::Write::write_all(&mut f, bytes)?;
        f.sync_all()
    });
    written.and_then(|()| std::fs::rename(&tmp, path)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    sync_dir(parent).map_err(|e| format!("{}: {e}", parent.display()))
}

/// Marks `dir` as a cnsim directory of `kind` whose manifest lists `listed` so far.
pub fn write_marker(dir: &Path, kind: Kind, listed: &[&str]) -> Result<(), String> {
    let files: BTreeSet<String> = listed.iter().map(|f| f.to_string()).collect();
    write_atomically(&dir.join(MARKER), Marker::text(kind, Some(&files)).as_bytes())
}

/// Writes `bytes` to `dir/name` atomically (synced, renamed into place) and lists `name`
/// in `dir`'s manifest, refusing to replace an entry there that cnsim did not write.
/// In a directory whose marker has no list (one being staged, or written by an earlier
/// cnsim) the file is written as is.
pub fn write_listed(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let path = dir.join(name);
    if let Some(Marker { kind, files: Some(mut files) }) = Marker::of(dir) {
        if !files.contains(name) {
            if std::fs::symlink_metadata(&path).is_ok() {
                return Err(format!(
                    "{}: exists and cnsim did not write it; cnsim never replaces it; expected it \
                     moved out of the directory",
                    path.display()
                ));
            }
            // Listed before it is written: a crash in between leaves a listed file missing,
            // never an unlisted one of ours.
            files.insert(name.to_string());
            write_atomically(
                &dir.join(MARKER),
                Marker::text(kind.unwrap_or(Kind::Run), Some(&files)).as_bytes(),
            )?;
        }
    }
    write_atomically(&path, bytes)
}

/// Whether process `pid` is alive. Where that cannot be known, it is assumed alive, so
/// that nothing of a running process is ever removed.
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if cfg!(target_os = "linux") && Path::new("/proc/self").exists() {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

/// Splits a staging name `<prefix><pid>-<n>-<leaf>` into (pid, leaf).
fn parse_staging_name<'a>(name: &'a str, prefix: &str) -> Option<(u32, &'a str)> {
    let rest = name.strip_prefix(prefix)?;
    let (pid, rest) = rest.split_once('-')?;
    let (n, leaf) = rest.split_once('-')?;
    n.parse::<u32>().ok()?;
    Some((pid.parse().ok()?, leaf))
}

/// Removes what dead cnsim processes left in `parent`: temporary directories (only if
/// they hold the marker or nothing), and previous results renamed aside, which are put
/// back when nothing replaced them (else only their listed entries are deleted). Errors
/// are ignored: this is housekeeping.
pub fn clean_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let path = entry.path();
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if !is_dir {
            continue;
        }
        if let Some((pid, _)) = parse_staging_name(name, TMP_PREFIX) {
            let ours = || {
                is_file(&path.join(MARKER)) || std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none())
            };
            if !process_alive(pid) && ours() {
                let _ = std::fs::remove_dir_all(&path);
            }
        } else if let Some((pid, leaf)) = parse_staging_name(name, OLD_PREFIX) {
            if !process_alive(pid) && is_cnsim_result(&path) {
                let original = parent.join(leaf);
                if std::fs::symlink_metadata(&original).is_err() {
                    let _ = std::fs::rename(&path, &original);
                } else {
                    let _ = remove_listed(&path);
                }
            }
        }
    }
}

/// A result directory being written: files go into [`StagedDir::path`], and
/// [`StagedDir::commit`] puts them at the target. Dropped uncommitted (an error, an
/// interruption), it removes its temporary directory and leaves the target untouched.
#[derive(Debug)]
pub struct StagedDir {
    /// The target, absolute, with a canonical parent.
    target: PathBuf,
    /// The target as the user gave it, for messages.
    shown: PathBuf,
    /// The temporary directory being filled, until committed.
    tmp: Option<PathBuf>,
    force: bool,
    kind: Kind,
    /// Parent directories this staging created, deepest first: removed again (if still
    /// empty) when nothing is committed.
    created: Vec<PathBuf>,
}

/// What is at the target path.
enum Existing {
    Nothing,
    /// An empty directory.
    Empty,
    /// A result of the same kind that cnsim wrote, holding nothing else.
    Result,
}

impl StagedDir {
    /// Checks that `dir` may be written as a directory of `kind` (absent, empty, or a
    /// cnsim directory of that kind and `force`), cleans up after dead processes, and
    /// creates the temporary directory, so that an unwritable location is reported
    /// before any simulation is done.
    pub fn create(dir: &Path, force: bool, kind: Kind) -> Result<Self, RunError> {
        let refuse = |why: String| RunError::Output(format!("{}: {why}", dir.display()));
        let leaf = match dir.components().next_back() {
            Some(Component::Normal(leaf)) => leaf.to_owned(),
            _ => {
                return Err(refuse(
                    "is not a directory name cnsim can create; expected a path ending in a new \
                     name, e.g. runs/my-run"
                        .into(),
                ))
            }
        };
        let cwd = std::env::current_dir()
            .map_err(|e| RunError::Output(format!("cannot read the working directory: {e}")))?;
        let absolute = cwd.join(dir);
        let parent = absolute.parent().unwrap_or(Path::new("/")).to_path_buf();
        let created: Vec<PathBuf> = parent
            .ancestors()
            .take_while(|a| std::fs::symlink_metadata(a).is_err())
            .map(Path::to_path_buf)
            .collect();
        let mut staged =
            StagedDir { target: PathBuf::new(), shown: dir.to_path_buf(), tmp: None, force, kind, created };
        std::fs::create_dir_all(&parent).map_err(|e| io_error(&parent, &e))?;
        let parent = std::fs::canonicalize(&parent).map_err(|e| io_error(&parent, &e))?;
        staged.target = parent.join(&leaf);
        staged.existing()?;
        clean_stale(&parent);
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = parent.join(format!("{TMP_PREFIX}{}-{n}-{}", std::process::id(), leaf.to_string_lossy()));
        std::fs::create_dir(&tmp).map_err(|e| io_error(&tmp, &e))?;
        staged.tmp = Some(tmp.clone());
        std::fs::write(tmp.join(MARKER), Marker::text(kind, None))
            .map_err(|e| io_error(&tmp.join(MARKER), &e))?;
        Ok(staged)
    }

    /// The temporary directory to write the result into.
    pub fn path(&self) -> &Path {
        self.tmp.as_deref().expect("an uncommitted staged directory has a temporary directory")
    }

    /// Checks what is at the target now.
    fn existing(&self) -> Result<Existing, RunError> {
        let refuse = |why: &str| RunError::Output(format!("{}: {why}", self.shown.display()));
        if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize) {
            if cwd.starts_with(&self.target) {
                return Err(refuse(
                    "is the working directory or one of its ancestors; cnsim never replaces it, \
                     even with --force; expected a path to a new directory, e.g. runs/my-run",
                ));
            }
        }
        let meta = match std::fs::symlink_metadata(&self.target) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Nothing),
            Err(e) => return Err(io_error(&self.shown, &e)),
        };
        if meta.file_type().is_symlink() {
            return Err(refuse(
                "is a symbolic link; cnsim writes only new directories or replaces its own \
                 results; expected a path to a new directory",
            ));
        }
        if !meta.is_dir() {
            return Err(refuse(
                "is a file, not a cnsim result directory; expected a path to a new directory",
            ));
        }
        if std::fs::read_dir(&self.target).map_err(|e| io_error(&self.shown, &e))?.next().is_none() {
            return Ok(Existing::Empty);
        }
        let Some(marker) = Marker::of(&self.target).or_else(|| {
            is_cnsim_result(&self.target).then_some(Marker { kind: Some(Kind::Run), files: None })
        }) else {
            return Err(refuse(&format!(
                "exists and is not a cnsim result (it has no {MARKER} file); cnsim never \
                 replaces it, even with --force; remove it yourself or choose another path"
            )));
        };
        let kind = marker.kind_in(&self.target);
        if kind != self.kind {
            return Err(refuse(&format!(
                "is a cnsim {} directory (written by {}); {} writes a {} directory and never \
                 replaces another kind, even with --force; choose another path",
                kind.word(),
                kind.command(),
                self.kind.command(),
                self.kind.word()
            )));
        }
        if !self.force {
            return Err(refuse("already exists; choose another path or pass --force to replace it"));
        }
        let Some(files) = marker.files else {
            return Err(refuse(
                "was written by an earlier cnsim that did not list its files, so cnsim cannot \
                 tell its own files from others and never replaces it, even with --force; \
                 remove it yourself or choose another path",
            ));
        };
        let foreign = foreign_entries(&self.target, &files).map_err(|e| io_error(&self.shown, &e))?;
        if !foreign.is_empty() {
            return Err(refuse(&format!(
                "holds files cnsim did not write ({}); cnsim never deletes them, even with \
                 --force; move them out of the directory or choose another path",
                shown_entries(&foreign)
            )));
        }
        Ok(Existing::Result)
    }

    /// Puts the result at the target, replacing a previous result only once the new one
    /// is complete and synced to disk. If `interrupted()` is true before the result is in
    /// place (or right after, in which case the swap is undone), nothing changes at the
    /// target and [`RunError::Interrupted`] is returned.
    pub fn commit(mut self, interrupted: &dyn Fn() -> bool) -> Result<(), RunError> {
        if interrupted() {
            return Err(RunError::Interrupted);
        }
        let tmp = self.path().to_path_buf();
        let files: BTreeSet<String> = entries(&tmp).map_err(|e| io_error(&tmp, &e))?.into_iter().collect();
        std::fs::write(tmp.join(MARKER), Marker::text(self.kind, Some(&files)))
            .map_err(|e| io_error(&tmp.join(MARKER), &e))?;
        sync_tree(&tmp).map_err(|e| io_error(&tmp, &e))?;
        let parent = self.target.parent().unwrap_or(Path::new("/")).to_path_buf();
        let aside = match self.existing()? {
            Existing::Nothing => None,
            Existing::Empty => {
                // Rename replaces an empty directory where the platform allows it.
                if cfg!(not(unix)) {
                    std::fs::remove_dir(&self.target).map_err(|e| io_error(&self.shown, &e))?;
                }
                None
            }
            Existing::Result => {
                let tmp_name = tmp.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let name = tmp_name.replacen(TMP_PREFIX, OLD_PREFIX, 1);
                let aside = self.target.with_file_name(name);
                std::fs::rename(&self.target, &aside).map_err(|e| io_error(&self.shown, &e))?;
                Some(aside)
            }
        };
        let put_back = |aside: &Option<PathBuf>| {
            if let Some(a) = aside {
                let _ = std::fs::rename(a, &self.target);
            }
        };
        if let Err(e) = std::fs::rename(&tmp, &self.target) {
            put_back(&aside);
            return Err(io_error(&self.shown, &e));
        }
        if interrupted() {
            // Undo: the new result goes back to the temporary path (removed on drop).
            if std::fs::rename(&self.target, &tmp).is_ok() {
                put_back(&aside);
                return Err(RunError::Interrupted);
            }
        }
        self.tmp = None;
        self.created.clear();
        sync_dir(&parent).map_err(|e| io_error(&parent, &e))?;
        if let Some(a) = aside {
            // Only what the old result's manifest lists; anything added since stays.
            remove_listed(&a).map_err(|e| io_error(&a, &e))?;
        }
        Ok(())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_dir_all(tmp);
        }
        // Uncommitted (or never staged): the parents made for it go too, if empty.
        if !self.target.exists() {
            for dir in &self.created {
                if std::fs::remove_dir(dir).is_err() {
                    break;
                }
            }
        }
    }
}

/// The current UTC time as `YYYYMMDD-HHMMSS`.
pub fn utc_stamp() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    stamp_of(secs)
}

/// `secs` since the Unix epoch as `YYYYMMDD-HHMMSS` (UTC; Howard Hinnant's
/// days-to-civil algorithm).
fn stamp_of(secs: u64) -> String {
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}-{:02}{:02}{:02}", rest / 3600, rest / 60 % 60, rest % 60)
}

/// The default output directory `dir`, or, when something is already there, the first
/// free sibling `<dir>-2`, `<dir>-3`, ..., so that running the same command twice never
/// fails, never replaces anything, and the second result is easy to name.
pub fn fresh_default(dir: &Path) -> PathBuf {
    if std::fs::symlink_metadata(dir).is_err() {
        return dir.to_path_buf();
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    (2u64..)
        .map(|n| dir.with_file_name(format!("{name}-{n}")))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_err())
        .expect("some sibling name is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_calendar_dates() {
        assert_eq!(stamp_of(0), "19700101-000000");
        // 2026-11-22 20:45:07 UTC.
        assert_eq!(stamp_of(1_795_380_307), "20261122-204507");
        // 2024-02-29 23:59:59 UTC (a leap day).
        assert_eq!(stamp_of(1_709_251_199), "20240229-235959");
    }

    #[test]
    fn a_taken_default_directory_gets_the_next_number() {
        let root = std::env::temp_dir().join(format!("cnsim-fresh-default-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let dir = root.join("star");
        assert_eq!(fresh_default(&dir), dir);
        std::fs::create_dir(&dir).unwrap();
        assert_eq!(fresh_default(&dir), root.join("star-2"));
        std::fs::create_dir(root.join("star-2")).unwrap();
        std::fs::write(root.join("star-3"), "").unwrap();
        assert_eq!(fresh_default(&dir), root.join("star-4"));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn staging_names_parse() {
        assert_eq!(parse_staging_name(".cnsim-tmp-12-0-run-a", TMP_PREFIX), Some((12, "run-a")));
        assert_eq!(parse_staging_name(".cnsim-old-7-3-x", OLD_PREFIX), Some((7, "x")));
        assert_eq!(parse_staging_name(".cnsim-tmp-x-0-a", TMP_PREFIX), None);
        assert_eq!(parse_staging_name(".cnsim-tmp-12-a", TMP_PREFIX), None);
        assert_eq!(parse_staging_name("run", TMP_PREFIX), None);
    }
}
