//! Output directories that cannot destroy data.
//!
//! A result directory (a run, a report) is filled in a temporary sibling
//! `.cnsim-tmp-<pid>-<n>-<leaf>` and renamed into place only when complete. What may be
//! replaced is only what cnsim itself wrote: a directory holding the marker file
//! [`MARKER`] (or, from versions before the marker, a run's `summary.json` +
//! `scenario.toml` pair), and only with `force`. The old result is renamed aside, the new
//! one renamed in, and only then is the old one deleted, so a failure at any step leaves
//! either the old or the new result in place.
//!
//! Refused whatever `force` says: an output path whose last component is not a name
//! (`.`, `..`, `/`), the working directory or any of its ancestors, a symbolic link, a
//! file, and an existing directory that is not a cnsim result.
//!
//! A process killed while writing (SIGKILL, power loss) leaves its temporary directory
//! behind; the next cnsim writing into the same parent removes temporary directories of
//! processes that no longer exist, and puts back a previous result that was renamed
//! aside but never replaced.

use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::RunError;

/// The file that marks a directory as a cnsim result, which cnsim may replace.
pub const MARKER: &str = ".cnsim-run";
/// Prefix of the temporary directories results are written into.
const TMP_PREFIX: &str = ".cnsim-tmp-";
/// Prefix of a previous result renamed aside while a new one replaces it.
const OLD_PREFIX: &str = ".cnsim-old-";

fn io_error(path: &Path, e: &std::io::Error) -> RunError {
    RunError::Output(format!("{}: {e}", path.display()))
}

/// Whether `dir` is a result cnsim wrote: it holds the marker, or the `summary.json` +
/// `scenario.toml` pair of a run written before the marker existed.
pub fn is_cnsim_result(dir: &Path) -> bool {
    let file = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file());
    file(MARKER) || (file("summary.json") && file("scenario.toml"))
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
/// back when nothing replaced them. Errors are ignored: this is housekeeping.
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
        let ours =
            || is_cnsim_result(&path) || std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
        if let Some((pid, _)) = parse_staging_name(name, TMP_PREFIX) {
            if !process_alive(pid) && ours() {
                let _ = std::fs::remove_dir_all(&path);
            }
        } else if let Some((pid, leaf)) = parse_staging_name(name, OLD_PREFIX) {
            if !process_alive(pid) && is_cnsim_result(&path) {
                let original = parent.join(leaf);
                if std::fs::symlink_metadata(&original).is_err() {
                    let _ = std::fs::rename(&path, &original);
                } else {
                    let _ = std::fs::remove_dir_all(&path);
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
    /// Parent directories this staging created, deepest first: removed again (if still
    /// empty) when nothing is committed.
    created: Vec<PathBuf>,
}

/// What is at the target path.
enum Existing {
    Nothing,
    /// A result cnsim wrote.
    Result,
}

impl StagedDir {
    /// Checks that `dir` may be written (absent, or a cnsim result and `force`), cleans up
    /// after dead processes, and creates the temporary directory, so that an unwritable
    /// location is reported before any simulation is done.
    pub fn create(dir: &Path, force: bool) -> Result<Self, RunError> {
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
            StagedDir { target: PathBuf::new(), shown: dir.to_path_buf(), tmp: None, force, created };
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
        std::fs::write(tmp.join(MARKER), format!("cnsim {} result directory\n", crate::VERSION))
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
        if !is_cnsim_result(&self.target) {
            return Err(refuse(&format!(
                "exists and is not a cnsim result (it has no {MARKER} file); cnsim never \
                 replaces it, even with --force; remove it yourself or choose another path"
            )));
        }
        if !self.force {
            return Err(refuse("already exists; choose another path or pass --force to replace it"));
        }
        Ok(Existing::Result)
    }

    /// Puts the result at the target, replacing a previous result only once the new one
    /// is complete. If `interrupted()` is true before the result is in place (or right
    /// after, in which case the swap is undone), nothing changes at the target and
    /// [`RunError::Interrupted`] is returned.
    pub fn commit(mut self, interrupted: &dyn Fn() -> bool) -> Result<(), RunError> {
        if interrupted() {
            return Err(RunError::Interrupted);
        }
        let tmp = self.path().to_path_buf();
        let aside = match self.existing()? {
            Existing::Nothing => None,
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
        if let Some(a) = aside {
            std::fs::remove_dir_all(&a).map_err(|e| io_error(&a, &e))?;
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

/// The default output directory `dir`, or, when something is already there, a fresh
/// sibling `<dir>-<UTC date-time>` (with `-2`, `-3`, ... if even that exists), so that
/// running the same command twice never fails and never replaces anything.
pub fn fresh_default(dir: &Path) -> PathBuf {
    if std::fs::symlink_metadata(dir).is_err() {
        return dir.to_path_buf();
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stamped = dir.with_file_name(format!("{name}-{}", utc_stamp()));
    let mut candidate = stamped.clone();
    let mut n = 2;
    while std::fs::symlink_metadata(&candidate).is_ok() {
        candidate = PathBuf::from(format!("{}-{n}", stamped.display()));
        n += 1;
    }
    candidate
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
    fn staging_names_parse() {
        assert_eq!(parse_staging_name(".cnsim-tmp-12-0-run-a", TMP_PREFIX), Some((12, "run-a")));
        assert_eq!(parse_staging_name(".cnsim-old-7-3-x", OLD_PREFIX), Some((7, "x")));
        assert_eq!(parse_staging_name(".cnsim-tmp-x-0-a", TMP_PREFIX), None);
        assert_eq!(parse_staging_name(".cnsim-tmp-12-a", TMP_PREFIX), None);
        assert_eq!(parse_staging_name("run", TMP_PREFIX), None);
    }
}
