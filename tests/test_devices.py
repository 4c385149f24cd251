"""Device resolution refuses clearly and says what it chose."""

from __future__ import annotations

import pytest

from seqwarp import DeviceUnavailable, InvalidParameter, devices


@pytest.fixture
def no_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        devices,
        "_cupy_status",
        lambda: (0, "CuPy is not installed (pip install 'seqwarp[cuda12]' or 'seqwarp[cuda13]')"),
    )


def test_cpu_and_auto_fallback(no_cupy: None) -> None:
    assert devices.resolve("cpu").kind == "cpu"
    auto = devices.resolve("auto")
    assert auto.kind == "cpu" and "CuPy is not installed" in auto.describe()


def test_gpu_without_cupy(no_cupy: None) -> None:
    with pytest.raises(
        DeviceUnavailable,
        match=r"^device 'gpu' is not available: CuPy is not installed \(pip install 'seqwarp\[cuda12\]' or 'seqwarp\[cuda13\]'\)$",
    ):
        devices.resolve("gpu")


def test_gpu_without_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices, "_cupy_status", lambda: (0, "CuPy sees no CUDA device"))
    with pytest.raises(
        DeviceUnavailable, match=r"^device 'cuda:1' is not available: CuPy sees no CUDA device$"
    ):
        devices.resolve("cuda:1")


def test_too_many_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices, "_cupy_status", lambda: (1, ""))
    with pytest.raises(DeviceUnavailable, match=r"2 GPUs requested, 1 visible$"):
        devices.resolve("gpu", gpus=2)
    with pytest.raises(DeviceUnavailable, match=r"only 1 CUDA device\(s\) visible$"):
        devices.resolve("cuda:3")


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", 3])
def test_unknown_device(bad: object) -> None:
    with pytest.raises(InvalidParameter, match=r"^invalid value for 'device'"):
        devices.resolve(bad)  # type: ignore[arg-type]
