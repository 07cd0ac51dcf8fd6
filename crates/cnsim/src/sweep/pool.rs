//! A local pool: runs a list of jobs on a fixed number of threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::SweepProgress;
use crate::run::RunError;

/// Runs `work` on every item of `items`, `jobs` at a time, reporting after each one;
/// returns the results in the order of `items`, whatever the thread count. The first
/// error stops the pool (runs under way finish or are interrupted through `stop`, which
/// the caller's `work` watches) and is returned; so is [`RunError::Interrupted`] when
/// `stop` was set by someone else.
pub fn map_all<T: Sync, O: Send>(
    items: &[T],
    jobs: usize,
    stop: &AtomicBool,
    progress: &(dyn Fn(SweepProgress) + Sync),
    work: impl Fn(&T) -> Result<O, RunError> + Sync,
) -> Result<Vec<O>, RunError> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let failure: Mutex<Option<RunError>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<O>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                if stop.load(Ordering::SeqCst) || failed.load(Ordering::SeqCst) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(i) else {
                    break;
                };
                match work(item) {
                    Ok(o) => {
                        results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(o);
                        let done = finished.fetch_add(1, Ordering::SeqCst) + 1;
                        progress(SweepProgress { done, to_run: items.len(), finished: Some(i) });
                    }
                    Err(RunError::Interrupted) => break,
                    Err(e) => {
                        let mut slot = failure.lock().unwrap_or_else(|p| p.into_inner());
                        if slot.is_none() {
                            *slot = Some(e);
                        }
                        failed.store(true, Ordering::SeqCst);
                        break;
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    if stop.load(Ordering::SeqCst) || results.iter().any(Option::is_none) {
        return Err(RunError::Interrupted);
    }
    Ok(results.into_iter().flatten().collect())
}

/// [`map_all`] for work that returns nothing.
pub fn run_all<T: Sync>(
    items: &[T],
    jobs: usize,
    stop: &AtomicBool,
    progress: &(dyn Fn(SweepProgress) + Sync),
    work: impl Fn(&T) -> Result<(), RunError> + Sync,
) -> Result<(), RunError> {
    map_all(items, jobs, stop, progress, work).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_runs_once_and_the_first_error_stops_the_rest() {
        let stop = AtomicBool::new(false);
        let count = AtomicUsize::new(0);
        let items: Vec<usize> = (0..20).collect();
        run_all(&items, 3, &stop, &|_| {}, |_| {
            count.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
        .unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 20);
        let squares = map_all(&items, 3, &stop, &|_| {}, |&i| Ok(i * i)).unwrap();
        assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>(), "results in item order");
        let e = run_all(&items, 1, &stop, &|_| {}, |&i| {
            if i == 5 {
                Err(RunError::Output("disk full".into()))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert!(e.to_string().contains("disk full"));
        stop.store(true, Ordering::SeqCst);
        assert!(matches!(run_all(&items, 2, &stop, &|_| {}, |_| Ok(())), Err(RunError::Interrupted)));
    }
}
