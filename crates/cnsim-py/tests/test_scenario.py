"""Loading scenarios and the located errors of bad ones."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import cnsim
from conftest import ROOT


def test_bundled_file_and_text_load_alike() -> None:
    by_name = cnsim.load("dumbbell-qcn-64")
    by_path = cnsim.load(ROOT / "scenarios" / "dumbbell-qcn-64.toml")
    by_text = cnsim.load((ROOT / "scenarios" / "dumbbell-qcn-64.toml").read_text())
    assert by_name.run_id == by_path.run_id == by_text.run_id
    assert by_name.file == "<bundled:dumbbell-qcn-64>" and by_text.file == "<string>"
    assert by_name.name == "dumbbell-qcn-64"
    # The resolved form is itself a scenario: the same run.
    assert cnsim.load(by_name.toml).run_id == by_name.run_id


def test_overrides_take_python_values_and_change_the_run() -> None:
    s = cnsim.load(
        "dumbbell-qcn-64",
        {"duration": "20ms", "topology.dumbbell.senders": 8, "protocols.qcn.cp.qeq": "40 frames", "seed": 7},
    )
    assert s.duration_s == pytest.approx(0.02)
    assert s.seed == 7
    assert s.get("topology.dumbbell.senders") == 8
    assert s.get("protocols.qcn.cp.qeq") == "40 frames"
    assert s.overrides == ["duration=20ms", "topology.dumbbell.senders=8", "protocols.qcn.cp.qeq=40 frames", "seed=7"]
    # Text overrides are read as `--set` reads them, and give the same scenario.
    t = cnsim.load(
        "dumbbell-qcn-64",
        set=["duration=20ms", "topology.dumbbell.senders=8", "protocols.qcn.cp.qeq=40 frames", "seed=7"],
    )
    assert t.run_id == s.run_id
    assert s.with_overrides({"seed": 8}).run_id != s.run_id
    assert s.with_overrides(seed=7).run_id == s.run_id


def test_a_bad_value_in_a_file_names_file_key_value_and_expectation(tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "dumbbell-qcn-64.toml").read_text()
    path = tmp_path / "bad.toml"
    path.write_text(text.replace('rate = "10Gbps"', 'rate = "10Gbs"', 1))
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load(path)
    e = info.value
    assert e.file == str(path)
    assert e.path.endswith(".rate")
    assert e.value == "10Gbs"
    assert e.expected is not None and "10Gbps" in e.expected
    assert str(e).startswith(f"{path}: {e.path}: ")
    assert isinstance(e, ValueError)


def test_a_bad_override_is_the_overrides_fault() -> None:
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load("dumbbell-qcn-64", {"traffic[0].rate": "10Gbs"})
    e = info.value
    assert (e.file, e.path, e.value) == ("overrides", "traffic[0].rate", "10Gbs")
    assert e.expected == 'e.g. "10Gbps"'


def test_a_value_without_its_unit_and_an_unknown_key() -> None:
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load("dumbbell-qcn-64", {"duration": 5})
    assert (info.value.path, info.value.value) == ("duration", 5)
    assert "has no unit" in info.value.message
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load("dumbbell-qcn-64", {"durration": "5ms"})
    assert "duration" in info.value.message  # did you mean


def test_syntax_errors_and_missing_files_are_located() -> None:
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load('name = "x"\nduration = \n')
    assert info.value.file == "<string>"
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load("dumbell-qcn-64")
    assert info.value.file == "dumbell-qcn-64"
    assert "no such file or bundled scenario; did you mean the bundled scenario" in str(info.value)


def test_values_of_other_types_are_refused_with_their_key() -> None:
    with pytest.raises(TypeError, match=r'overrides\["duration"\]: a value of type object'):
        cnsim.load("dumbbell-qcn-64", {"duration": object()})


def test_scenario_errors_survive_pickling() -> None:
    with pytest.raises(cnsim.ScenarioError) as info:
        cnsim.load("dumbbell-qcn-64", {"traffic[0].rate": "10Gbs"})
    again = pickle.loads(pickle.dumps(info.value))
    assert (again.file, again.path, again.value, again.expected, str(again)) == (
        info.value.file,
        info.value.path,
        info.value.value,
        info.value.expected,
        str(info.value),
    )


def test_scenarios_pickle_as_what_they_are() -> None:
    s = cnsim.load("dumbbell-qcn-64", {"duration": "20ms", "topology.dumbbell.senders": 8})
    again = pickle.loads(pickle.dumps(s))
    assert again == s and again.run_id == s.run_id
    assert (again.file, again.overrides, again.toml) == (s.file, s.overrides, s.toml)
    assert again.with_overrides(seed=3) != s


def test_a_deeply_nested_value_is_refused_not_a_crash() -> None:
    # A 7 000-deep list crashed the interpreter (the conversion recursed without bound).
    deep: object = "x"
    for _ in range(7000):
        deep = [deep]
    with pytest.raises(ValueError, match="nested more than 64 deep"):
        cnsim.load("dumbbell-cbr-64", {"description": deep})


@pytest.mark.parametrize(
    "name, key, value",
    [
        ("dumbbell-qcn-64", "protocols.qcn.cp.w", float("inf")),
        ("sridharan2004-dumbbell", "protocols.mecn.max_p", float("nan")),
        ("dumbbell-qcn-64", "protocols.qcn.rp.min_rate", "20Gbps"),
    ],
)
def test_load_refuses_what_a_run_would_refuse(name: str, key: str, value: object) -> None:
    # load() used to accept what only building the run rejected.
    with pytest.raises(cnsim.ScenarioError) as e:
        cnsim.load(name, {key: value})
    assert e.value.path == key
