//! `cnsim._native`: the simulator as a Python extension module.
//!
//! The Python package (`python/cnsim`) is the interface users see; this module gives it
//! the engine: loading and checking scenarios, running one (the GIL released, Ctrl-C
//! honoured), planning and running sweeps, and reproductions. Time series leave Rust
//! without a copy: each column's `Vec<f64>` becomes the buffer of a NumPy array, which
//! pyarrow, pandas and polars then share.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use numpy::PyArray1;
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use cnsim::metrics::summary::Summary;
use cnsim::metrics::TimeSeries;
use cnsim::run::outdir::Kind;
use cnsim::run::{RunError, StagedDir};
use cnsim::scenario::{self, Limits, ScenarioError};
use cnsim::sweep::{self, Axis, SweepArgs};

/// How often a thread waiting for a run gives the interpreter a chance to see Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(10);

/// Where errors in the `overrides` of `load` are located (the command line says `--set`).
const OVERRIDES: &str = "overrides";

/// The deepest nesting of lists and dicts a scenario value may have: far more than any
/// scenario key needs, and far less than would exhaust the stack.
const MAX_DEPTH: usize = 64;

/// A Python value as a scenario (TOML) value; `at` names it in errors.
fn to_toml(v: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    to_toml_within(v, at, 0)
}

fn to_toml_within(v: &Bound<'_, PyAny>, at: &str, depth: usize) -> PyResult<toml::Value> {
    let nested =
        v.is_instance_of::<PyDict>() || v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>();
    if nested && depth >= MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{}: lists and dicts nested more than {MAX_DEPTH} deep; expected a scenario value \
             (a few levels at most)",
            scenario::error::shown_limited(at, 120)
        )));
    }
    if v.is_instance_of::<PyBool>() {
        Ok(toml::Value::Boolean(v.extract()?))
    } else if v.is_instance_of::<PyInt>() {
        let i: i64 = v.extract().map_err(|_| {
            PyValueError::new_err(format!(
                "{at}: {v} does not fit a 64-bit integer; expected a smaller number"
            ))
        })?;
        Ok(toml::Value::Integer(i))
    } else if v.is_instance_of::<PyFloat>() {
        Ok(toml::Value::Float(v.extract()?))
    } else if v.is_instance_of::<PyString>() {
        Ok(toml::Value::String(v.extract()?))
    } else if let Ok(d) = v.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, item) in d.iter() {
            let key: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!("{at}: the key {k:?} is not a string; expected string keys"))
            })?;
            let value = to_toml_within(&item, &format!("{at}.{key}"), depth + 1)?;
            table.insert(key, value);
        }
        Ok(toml::Value::Table(table))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.extract()?;
        let values =
            items.iter().enumerate().map(|(i, item)| to_toml_within(item, &format!("{at}[{i}]"), depth + 1));
        Ok(toml::Value::Array(values.collect::<PyResult<_>>()?))
    } else {
        let type_name = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        Err(PyTypeError::new_err(format!(
            "{at}: a value of type {type_name} cannot be a scenario value; expected str, int, float, \
             bool, list or dict (quantities as strings, e.g. \"10Gbps\")"
        )))
    }
}

/// A scenario (TOML) value as a Python value.
fn to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => PyString::new(py, s).into_any(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        toml::Value::Float(f) => f.into_pyobject(py)?.into_any(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        toml::Value::Datetime(d) => PyString::new(py, &d.to_string()).into_any(),
        toml::Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        toml::Value::Table(t) => {
            let dict = PyDict::new(py);
            for (k, item) in t {
                dict.set_item(k, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// A scenario error as `cnsim.ScenarioError`: the file, the key path, the value there as
/// written (looked up in `doc`), what was expected, and the whole message.
fn scenario_error(py: Python<'_>, e: &ScenarioError, doc: Option<&toml::Value>) -> PyErr {
    let file = if e.file == scenario::OVERRIDE_FILE { OVERRIDES.to_string() } else { e.file.clone() };
    let e = ScenarioError { file, ..e.clone() };
    let build = || -> PyResult<PyErr> {
        let value = match doc.and_then(|d| scenario::value_at(d, &e.path)).filter(|_| !e.path.is_empty()) {
            Some(v) => to_py(py, v)?,
            None => py.None().into_bound(py),
        };
        let expected = e.message.find("expected ").map(|i| e.message[i + "expected ".len()..].to_string());
        let class = py.import("cnsim._errors")?.getattr("ScenarioError")?;
        let exc = class.call1((e.to_string(), &e.file, &e.path, value, expected, &e.message))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|err| err)
}

/// A run error as a Python exception: `cnsim.ScenarioError`, `KeyboardInterrupt`, or
/// `cnsim.RunError`.
fn run_error(py: Python<'_>, e: RunError, doc: Option<&toml::Value>) -> PyErr {
    match e {
        RunError::Scenario(e) => scenario_error(py, &e, doc),
        RunError::Interrupted => PyKeyboardInterrupt::new_err("interrupted; no results were written"),
        other => match py.import("cnsim._errors").and_then(|m| m.getattr("RunError")) {
            Ok(class) => match class.call1((other.to_string(),)) {
                Ok(exc) => PyErr::from_value(exc),
                Err(err) => err,
            },
            Err(err) => err,
        },
    }
}

/// Runs `work` with the GIL released, on another thread, while this one looks for
/// Ctrl-C every [`SIGNAL_CHECK`]: on a signal, `stop` is set (the work stops at its next
/// check) and the signal's exception (`KeyboardInterrupt`) is returned once the work has
/// ended.
fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> Result<T, PyErr> {
    let _terminate = TerminationHandlers::install(py);
    let mut signal: Option<PyErr> = None;
    let out = py.detach(|| {
        std::thread::scope(|scope| {
            let worker = scope.spawn(work);
            while !worker.is_finished() {
                std::thread::sleep(SIGNAL_CHECK);
                if signal.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        signal = Some(e);
                        stop.store(true, Ordering::SeqCst);
                    }
                }
            }
            worker.join()
        })
    });
    match (signal, out) {
        (Some(e), _) => Err(e),
        (None, Ok(v)) => Ok(v),
        (None, Err(_)) => Err(pyo3::exceptions::PyRuntimeError::new_err("internal error: the run panicked")),
    }
}

/// SIGTERM and SIGHUP while a run, a sweep or a reproduction works: where the process
/// keeps their default action (which ends it at once, leaving its temporary directories
/// behind), they raise `SystemExit(128 + signal)` instead, which stops the work as Ctrl-C
/// does (half-written results removed) and then ends the interpreter with that code.
/// Handlers the program set itself are left alone, and so is every thread but the main
/// one (only it may set handlers). The default action comes back afterwards.
struct TerminationHandlers<'py> {
    py: Python<'py>,
    /// The signals whose handler was set here.
    set: Vec<i32>,
}

impl<'py> TerminationHandlers<'py> {
    fn install(py: Python<'py>) -> Self {
        let mut guard = TerminationHandlers { py, set: Vec::new() };
        let install = || -> PyResult<Vec<i32>> {
            let threading = py.import("threading")?;
            let main = threading.call_method0("main_thread")?;
            if !threading.call_method0("current_thread")?.is(&main) {
                return Ok(Vec::new());
            }
            let signal = py.import("signal")?;
            let default = signal.getattr("SIG_DFL")?;
            let handler = py.import("cnsim._errors")?.getattr("_exit_on_signal")?;
            let mut set = Vec::new();
            for name in ["SIGTERM", "SIGHUP"] {
                let Ok(number) = signal.getattr(name) else { continue };
                if signal.call_method1("getsignal", (&number,))?.eq(&default)? {
                    signal.call_method1("signal", (&number, &handler))?;
                    set.push(number.extract()?);
                }
            }
            Ok(set)
        };
        guard.set = install().unwrap_or_default();
        guard
    }
}

impl Drop for TerminationHandlers<'_> {
    fn drop(&mut self) {
        if self.set.is_empty() {
            return;
        }
        let py = self.py;
        let _ = (|| -> PyResult<()> {
            let signal = py.import("signal")?;
            let default = signal.getattr("SIG_DFL")?;
            for &number in &self.set {
                signal.call_method1("signal", (number, &default))?;
            }
            Ok(())
        })();
    }
}

/// A checked scenario: the document as written with its overrides applied, and the
/// resolved scenario (every default filled in).
#[pyclass(frozen, module = "cnsim._native")]
struct Scenario {
    /// The document, overrides applied, its `[sweep]` table kept.
    doc: toml::Value,
    /// How errors name the source.
    file: String,
    /// The overrides, as `key=value` text (how errors and records show them).
    overrides: Vec<String>,
    resolved: scenario::Scenario,
}

impl Scenario {
    fn resolve(
        py: Python<'_>,
        mut doc: toml::Value,
        file: String,
        mut overrides: Vec<String>,
        texts: Vec<String>,
        more: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<Self> {
        for text in texts {
            scenario::apply_override(&mut doc, &text).map_err(|e| scenario_error(py, &e, Some(&doc)))?;
            overrides.push(text);
        }
        for (key, value) in more {
            let value = to_toml(&value, &format!("{OVERRIDES}[{key:?}]"))?;
            let shown = format!("{key}={}", sweep::grid::shown_value(&value));
            scenario::set_key(&mut doc, &key, value, &shown)
                .map_err(|e| scenario_error(py, &e, Some(&doc)))?;
            overrides.push(shown);
        }
        Scenario::checked(py, doc, file, overrides)
    }

    /// Checks a document whose overrides are applied (errors at an overridden key are
    /// the override's), as `cnsim validate` does: resolved, then built (not run), so that
    /// what a run would refuse is refused here.
    fn checked(py: Python<'_>, doc: toml::Value, file: String, overrides: Vec<String>) -> PyResult<Self> {
        let resolved = scenario::from_document(doc.clone(), &file, &[])
            .and_then(|s| {
                py.detach(|| scenario::build_with(&s, &file, &Limits::machine_default()))?;
                Ok(s)
            })
            .map_err(|e| scenario::blame_override(e, &overrides))
            .map_err(|e| scenario_error(py, &e, Some(&doc)))?;
        Ok(Scenario { doc, file, overrides, resolved })
    }
}

#[pymethods]
impl Scenario {
    /// The scenario's name.
    #[getter]
    fn name(&self) -> &str {
        &self.resolved.name
    }

    /// The seed it runs with.
    #[getter]
    fn seed(&self) -> u64 {
        self.resolved.seed
    }

    /// Simulated duration, seconds.
    #[getter]
    fn duration_s(&self) -> f64 {
        self.resolved.duration.0 as f64 / 1e12
    }

    /// How errors name the source: the file, `<bundled:NAME>` or `<string>`.
    #[getter]
    fn file(&self) -> &str {
        &self.file
    }

    /// The overrides applied, as `key=value`.
    #[getter]
    fn overrides(&self) -> Vec<String> {
        self.overrides.clone()
    }

    /// The identity of the run this scenario makes: the name of its directory in a sweep.
    #[getter]
    fn run_id(&self) -> PyResult<String> {
        sweep::run_id(&self.resolved).map_err(PyValueError::new_err)
    }

    /// The fully resolved scenario as TOML (what a run directory's `scenario.toml` holds).
    fn resolved_toml(&self) -> PyResult<String> {
        cnsim::run::resolved_scenario_text(&self.resolved).map_err(PyValueError::new_err)
    }

    /// The value at a key path of the resolved scenario (`None` where there is none).
    fn get<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        let doc = toml::Value::try_from(&self.resolved).map_err(|e| PyValueError::new_err(e.to_string()))?;
        match scenario::value_at(&doc, key) {
            Some(v) => to_py(py, v),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The state a copy is made from: the document (overrides applied) as TOML, the
    /// source's name and the overrides' text.
    fn state(&self) -> PyResult<(String, String, Vec<String>)> {
        let text = toml::to_string(&self.doc).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok((text, self.file.clone(), self.overrides.clone()))
    }

    /// This scenario with more overrides (later ones win).
    fn with_overrides(
        &self,
        py: Python<'_>,
        overrides: Vec<(String, Bound<'_, PyAny>)>,
    ) -> PyResult<Scenario> {
        Scenario::resolve(
            py,
            self.doc.clone(),
            self.file.clone(),
            self.overrides.clone(),
            Vec::new(),
            overrides,
        )
    }
}

/// Reads a scenario from a file, a bundled scenario's name, or TOML text, applies the
/// overrides (`texts` as `--set` reads them, then `overrides` as values), and checks it.
#[pyfunction]
#[pyo3(signature = (source, is_text, overrides, texts=Vec::new()))]
fn load(
    py: Python<'_>,
    source: &str,
    is_text: bool,
    overrides: Vec<(String, Bound<'_, PyAny>)>,
    texts: Vec<String>,
) -> PyResult<Scenario> {
    let (doc, file) = if is_text {
        let file = "<string>".to_string();
        (scenario::document(source, &file).map_err(|e| scenario_error(py, &e, None))?, file)
    } else {
        scenario::load_document(source).map_err(|e| scenario_error(py, &e, None))?
    };
    Scenario::resolve(py, doc, file, Vec::new(), texts, overrides)
}

/// Rebuilds a scenario from its [`Scenario::state`] (unpickling).
#[pyfunction]
fn from_state(py: Python<'_>, text: &str, file: String, overrides: Vec<String>) -> PyResult<Scenario> {
    let doc = scenario::document(text, &file).map_err(|e| scenario_error(py, &e, None))?;
    Scenario::checked(py, doc, file, overrides)
}

/// One recorded table handed over: column names (`time_s` first), unit, columns.
type TableOut<'py> = (Vec<String>, String, Vec<Bound<'py, PyArray1<f64>>>);

/// The tables a run recorded, kept in Rust until asked for: a run whose caller reads
/// only its summary never loads NumPy. Each table leaves once, without a copy.
#[pyclass(module = "cnsim._native")]
struct Tables {
    tables: Vec<Option<TimeSeries>>,
}

impl Tables {
    fn find(&self, stem: &str) -> PyResult<&TimeSeries> {
        self.tables.iter().flatten().find(|t| t.name == stem).ok_or_else(|| Tables::missing(stem))
    }

    fn missing(stem: &str) -> PyErr {
        PyValueError::new_err(format!("{stem:?}: no such table, or it was already taken"))
    }
}

#[pymethods]
impl Tables {
    /// The file stems of the tables not yet taken.
    fn stems(&self) -> Vec<String> {
        self.tables.iter().flatten().map(|t| t.name.clone()).collect()
    }

    /// (columns, rows) of a table, `time_s` included.
    fn shape(&self, stem: &str) -> PyResult<(usize, usize)> {
        let t = self.find(stem)?;
        Ok((t.columns.len() + 1, t.times_s.len()))
    }

    /// Takes a table out: its columns become NumPy arrays owning the simulator's buffers.
    fn take<'py>(&mut self, py: Python<'py>, stem: &str) -> PyResult<TableOut<'py>> {
        let slot = self.tables.iter_mut().find(|t| t.as_ref().is_some_and(|t| t.name == stem));
        let table = slot.and_then(Option::take).ok_or_else(|| Tables::missing(stem))?;
        let mut names = vec!["time_s".to_string()];
        let mut arrays = vec![PyArray1::from_vec(py, table.times_s)];
        for c in table.columns {
            names.push(c.name);
            arrays.push(PyArray1::from_vec(py, c.values));
        }
        Ok((names, table.unit, arrays))
    }
}

/// Runs a scenario (with `seed` instead of its own, if given). Returns the summary and
/// timing as JSON text and the recorded tables; with `out`, also writes the run
/// directory `cnsim run --out` writes (replacing a previous cnsim result only with
/// `force`).
#[pyfunction]
#[pyo3(signature = (scenario, seed=None, out=None, force=false, max_memory=None, threads=None))]
fn simulate(
    py: Python<'_>,
    scenario: &Scenario,
    seed: Option<u64>,
    out: Option<PathBuf>,
    force: bool,
    max_memory: Option<u64>,
    threads: Option<u32>,
) -> PyResult<(String, String, Tables)> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads: 0 is not a thread count; expected 1 or more, or None"));
    }
    let mut s = scenario.resolved.clone();
    if let Some(seed) = seed {
        s.seed = seed;
    }
    let doc = Some(&scenario.doc);
    let staged = match &out {
        Some(dir) => Some(StagedDir::create(dir, force, Kind::Run).map_err(|e| run_error(py, e, doc))?),
        None => None,
    };
    let limits = max_memory.map_or_else(Limits::machine_default, |m| Limits { max_memory: m });
    let stop = AtomicBool::new(false);
    let file = scenario.file.clone();
    let result = interruptible(py, &stop, || {
        let mut keep_going = |_: &cnsim::sim::Progress| !stop.load(Ordering::SeqCst);
        let done = cnsim::run::simulate_on(&s, &file, &limits, threads, &mut keep_going)?;
        if let Some(staged) = &staged {
            cnsim::run::write_run_files(&s, &done, staged.path(), &|| false)?;
        }
        let summary = serde_json::to_string(&Summary::of_run(&done.sim, &done.fair, &s))
            .map_err(|e| RunError::Output(e.to_string()))?;
        let timing = serde_json::to_string(&done.timing()).map_err(|e| RunError::Output(e.to_string()))?;
        Ok::<_, RunError>((summary, timing, done.sim.into_recorder()))
    })?;
    let (summary, timing, recorder) = result.map_err(|e| run_error(py, e, doc))?;
    if let Some(staged) = staged {
        staged.commit(&|| false).map_err(|e| run_error(py, e, doc))?;
    }
    let tables = [
        recorder.queues,
        recorder.avg_queues,
        recorder.max_ps,
        recorder.utilisation,
        recorder.throughput,
        recorder.rates,
        recorder.cnms,
    ];
    Ok((summary, timing, Tables { tables: tables.into_iter().map(Some).collect() }))
}

/// A planned sweep: every run resolved and checked.
#[pyclass(frozen, module = "cnsim._native")]
struct Plan {
    plan: sweep::Plan,
    /// The scenario's document, for locating errors.
    doc: toml::Value,
}

/// One planned run: id, directory name, point, seed, the swept values as typed, the
/// resolved scenario.
type RunOut = (String, String, usize, u64, Vec<String>, String);

/// One axis given from Python: a key and its values.
type AxisIn<'py> = (String, Vec<Bound<'py, PyAny>>);

fn axes_in(axes: Vec<AxisIn<'_>>, source: &str) -> PyResult<Vec<Axis>> {
    axes.into_iter()
        .map(|(key, values)| {
            if values.is_empty() {
                return Err(PyValueError::new_err(format!(
                    "{source}[{key:?}]: no values; expected a list of at least one value"
                )));
            }
            let values = values
                .iter()
                .enumerate()
                .map(|(i, v)| to_toml(v, &format!("{source}[{key:?}][{i}]")))
                .collect::<PyResult<_>>()?;
            Ok(Axis { key, values, source: source.to_string() })
        })
        .collect()
}

/// Plans a sweep of `scenario`: its file's `[sweep]` table, then the axes given as
/// values (`grid`, `zip`) or as command-line text (`grid_text`, `zip_text`), `repeat`
/// seeds from `seed`.
#[pyfunction]
#[pyo3(signature = (scenario, grid, zip, grid_text, zip_text, repeat=None, seed=None))]
#[allow(clippy::too_many_arguments)]
fn plan(
    py: Python<'_>,
    scenario: &Scenario,
    grid: Vec<AxisIn<'_>>,
    zip: Vec<AxisIn<'_>>,
    grid_text: Vec<String>,
    zip_text: Vec<String>,
    repeat: Option<u64>,
    seed: Option<u64>,
) -> PyResult<Plan> {
    let args = SweepArgs {
        grid_values: axes_in(grid, "grid")?,
        zip_values: axes_in(zip, "zip")?,
        grid: grid_text,
        zip: zip_text,
        repeat,
        seed,
    };
    let doc = scenario.doc.clone();
    let mut plan = sweep::plan_document(doc.clone(), scenario.file.clone(), &[], &args)
        .map_err(|e| scenario::blame_override(e, &scenario.overrides))
        .map_err(|e| scenario_error(py, &e, Some(&doc)))?;
    plan.overrides = scenario.overrides.clone();
    Ok(Plan { plan, doc })
}

#[pymethods]
impl Plan {
    /// The swept keys, in column order.
    #[getter]
    fn axes(&self) -> Vec<String> {
        self.plan.grid.axes().map(|a| a.key.clone()).collect()
    }

    /// The scenario's name.
    #[getter]
    fn name(&self) -> String {
        self.plan.runs.first().map(|r| r.scenario.name.clone()).unwrap_or_default()
    }

    /// Every run: (id, directory name under `runs/`, point, seed, the swept values as
    /// typed, the resolved scenario).
    fn runs(&self) -> PyResult<Vec<RunOut>> {
        self.plan
            .runs
            .iter()
            .map(|r| {
                let text =
                    toml::to_string_pretty(&r.scenario).map_err(|e| PyValueError::new_err(e.to_string()))?;
                let values = r.values.iter().map(sweep::grid::shown_value).collect();
                Ok((r.id.clone(), r.dir.clone(), r.point, r.seed, values, text))
            })
            .collect()
    }

    /// This plan with its runs' directories named as the sweep directory `dir` names them
    /// (a sweep resumed or grown there keeps its runs' names); what the other methods
    /// given `dir` expect.
    fn settled_in(&self, dir: PathBuf) -> Plan {
        let mut plan = self.plan.clone();
        plan.settle_in(&dir);
        Plan { plan, doc: self.doc.clone() }
    }

    /// Makes (or reopens) the sweep directory, taking its lock, and returns the runs still
    /// to run there (their ids, in plan order) with the lock, held until released.
    fn prepare(&self, py: Python<'_>, dir: PathBuf, allow_mixed_versions: bool) -> PyResult<PreparedSweep> {
        let prepared = sweep::prepare(&self.plan, &dir, allow_mixed_versions)
            .map_err(|e| run_error(py, e, Some(&self.doc)))?;
        Ok(PreparedSweep {
            todo: prepared.todo.iter().map(|&i| self.plan.runs[i].id.clone()).collect(),
            redone: prepared.redone,
            lock: std::sync::Mutex::new(Some(prepared.lock)),
        })
    }

    /// Runs the sweep on `jobs` threads here (what `cnsim sweep` does); returns (runs,
    /// already done, run now). `on_run` is called with each run's id as it finishes; if
    /// it raises, the sweep stops (keeping the finished runs) and the exception is raised.
    /// Ctrl-C stops it too.
    #[pyo3(signature = (dir, jobs, summarize=false, csv=false, allow_mixed_versions=false, max_memory=None, on_run=None))]
    #[allow(clippy::too_many_arguments)]
    fn execute(
        &self,
        py: Python<'_>,
        dir: PathBuf,
        jobs: usize,
        summarize: bool,
        csv: bool,
        allow_mixed_versions: bool,
        max_memory: Option<u64>,
        on_run: Option<Py<PyAny>>,
    ) -> PyResult<(usize, usize, usize)> {
        let jobs = jobs.max(1);
        let total = max_memory.unwrap_or_else(|| Limits::machine_default().max_memory);
        let options = sweep::Options {
            jobs,
            allow_mixed_versions,
            summarize,
            limits: Limits { max_memory: (total / jobs as u64).max(1 << 20) },
            csv,
            threads: None,
        };
        let stop = AtomicBool::new(false);
        let plan = &self.plan;
        let raised: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
        let report = |p: sweep::SweepProgress| {
            let (Some(on_run), Some(i)) = (&on_run, p.finished) else {
                return;
            };
            if let Err(e) = Python::attach(|py| on_run.call1(py, (&plan.runs[i].id,)).map(|_| ())) {
                raised.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                stop.store(true, Ordering::SeqCst);
            }
        };
        let outcome = interruptible(py, &stop, || sweep::execute(plan, &dir, &options, &report, &stop))?;
        if let Some(e) = raised.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let o = outcome.map_err(|e| run_error(py, e, Some(&self.doc)))?;
        Ok((o.runs, o.already_done, o.ran))
    }

    /// The results table of the runs complete in `dir`, as Parquet bytes (the table a
    /// sweep with failed runs can show).
    fn complete_table<'py>(
        &self,
        py: Python<'py>,
        dir: PathBuf,
    ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let table = sweep::results_table(&self.plan, &dir, true).map_err(|e| run_error(py, e, None))?;
        let bytes = table
            .to_parquet(&sweep::table_metadata(&self.plan))
            .map_err(|m| run_error(py, RunError::Output(m), None))?;
        Ok(pyo3::types::PyBytes::new(py, &bytes))
    }

    /// Writes the results table (and summary, and report) of a sweep whose runs are all
    /// in `dir`.
    fn finish(&self, py: Python<'_>, dir: PathBuf, summarize: bool) -> PyResult<()> {
        py.detach(|| sweep::finish(&self.plan, &dir, summarize))
            .map(|_| ())
            .map_err(|e| run_error(py, e, Some(&self.doc)))
    }
}

/// A sweep directory made ready for a sweep run from Python (on Dask): the runs to run,
/// and the directory's lock, held until [`PreparedSweep::release`] (or until the object
/// is collected, or the process ends).
#[pyclass(frozen, module = "cnsim._native")]
struct PreparedSweep {
    /// Ids of the runs still to run, in plan order.
    #[pyo3(get)]
    todo: Vec<String>,
    /// Runs found damaged and removed to be run again: a line each.
    #[pyo3(get)]
    redone: Vec<String>,
    lock: std::sync::Mutex<Option<sweep::SweepLock>>,
}

#[pymethods]
impl PreparedSweep {
    /// Releases the sweep directory's lock.
    fn release(&self) {
        self.lock.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// Runs the run `id` of a sweep from its resolved scenario text into `runs_dir/<name>`,
/// as a worker does; returns whether it ran (false: it was already complete there).
#[pyfunction]
#[pyo3(signature = (resolved, id, name, runs_dir, csv=false, max_memory=None))]
fn run_resolved(
    py: Python<'_>,
    resolved: &str,
    id: &str,
    name: &str,
    runs_dir: PathBuf,
    csv: bool,
    max_memory: Option<u64>,
) -> PyResult<bool> {
    let limits = max_memory.map_or_else(Limits::machine_default, |m| Limits { max_memory: m });
    let stop = AtomicBool::new(false);
    interruptible(py, &stop, || sweep::run_resolved(resolved, id, name, &runs_dir, csv, &limits, &stop))?
        .map_err(|e| run_error(py, e, None))
}

/// Runs the reproduction `name` into `out` (refusing to replace anything but a previous
/// cnsim result, and that only with `force`); returns the report's path.
#[pyfunction]
#[pyo3(signature = (name, out, jobs, quick=false, seeds=None, force=false))]
fn reproduce(
    py: Python<'_>,
    name: &str,
    out: PathBuf,
    jobs: usize,
    quick: bool,
    seeds: Option<u64>,
    force: bool,
) -> PyResult<String> {
    let Some(repro) = cnsim::repro::find(name) else {
        let names: Vec<&str> = cnsim::repro::names().collect();
        return Err(PyValueError::new_err(format!(
            "no reproduction named {:?}; expected one of {}",
            scenario::error::shown(name),
            names.join(", ")
        )));
    };
    let staged = StagedDir::create(&out, force, Kind::Report).map_err(|e| run_error(py, e, None))?;
    let options = cnsim::repro::Options { jobs: jobs.max(1), quick, seeds };
    let stop = AtomicBool::new(false);
    let path = staged.path().to_path_buf();
    let outcome = interruptible(py, &stop, || cnsim::repro::run(repro, &path, &options, &|_, _| {}, &stop))?
        .map_err(|m| run_error(py, RunError::Output(m), None))?;
    staged.commit(&|| false).map_err(|e| run_error(py, e, None))?;
    Ok(out.join(outcome.report).to_string_lossy().into_owned())
}

/// The bundled scenarios' names.
#[pyfunction]
fn bundled() -> Vec<&'static str> {
    scenario::bundled::names().collect()
}

/// The reproductions' names.
#[pyfunction]
fn reproductions() -> Vec<&'static str> {
    cnsim::repro::names().collect()
}

/// The simulator as a Python extension module (used through the `cnsim` package).
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VERSION", cnsim::VERSION)?;
    m.add_class::<Scenario>()?;
    m.add_class::<Plan>()?;
    m.add_class::<PreparedSweep>()?;
    m.add_class::<Tables>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(from_state, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(run_resolved, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(bundled, m)?)?;
    m.add_function(wrap_pyfunction!(reproductions, m)?)?;
    Ok(())
}
