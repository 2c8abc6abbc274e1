"""Dataset.from_service against `sluice serve` (a dispatcher and a worker in
one process) started on port 0 for each test."""

import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import sluice

SPEC = """
ops { range { stop: 1000 } }
ops { batch { batch_size: 100 } }
"""


@pytest.fixture
def serve(tmp_path):
    """(address, dataset id) of a running `sluice serve` of SPEC."""
    cli = os.environ.get("SLUICE_CLI")
    if not cli:
        pytest.skip("SLUICE_CLI is not set (ctest sets it)")
    spec = tmp_path / "spec.pbtxt"
    spec.write_text(SPEC)
    process = subprocess.Popen([cli, "serve", str(spec), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
        second = process.stdout.readline()
        assert first.startswith("dispatcher listening on "), first
        assert second.startswith("dataset "), second
        yield first.split()[-1], second.split()[-1]
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(timeout=10) == 0
        finally:
            process.kill()
            process.wait()


def values(ds):
    return sorted(int(x) for batch in ds for x in batch.tolist())


def test_reads_the_spec_from_text_a_dataset_or_the_served_id(serve):
    address, dataset_id = serve
    local = sluice.Dataset.range(1000).batch(100)
    for ds in (
        sluice.Dataset.from_service(address, spec=SPEC, processing_mode="distributed_epoch"),
        sluice.Dataset.from_service(address, spec=local, processing_mode="distributed_epoch"),
        sluice.Dataset.from_service(address, dataset_id=dataset_id, processing_mode="distributed_epoch"),
    ):
        assert ds.element_spec.dtype_name == "int64"
        assert values(ds) == list(range(1000))
    # parallel_epochs: the one worker runs the whole pipeline.
    batches = list(sluice.Dataset.from_service(address, dataset_id=dataset_id))
    assert len(batches) == 10 and all(isinstance(b, np.ndarray) and b.shape == (100,) for b in batches)


def test_a_local_pipeline_continues_from_the_service(serve):
    address, dataset_id = serve
    ds = sluice.Dataset.from_service(address, dataset_id=dataset_id, processing_mode="distributed_epoch").unbatch()
    assert sorted(int(x) for x in ds) == list(range(1000))


def test_arguments_are_checked(serve):
    address, dataset_id = serve
    with pytest.raises(ValueError, match="exactly one"):
        sluice.Dataset.from_service(address)
    with pytest.raises(ValueError, match="exactly one"):
        sluice.Dataset.from_service(address, spec=SPEC, dataset_id=dataset_id)
    with pytest.raises(ValueError, match="consumer_index"):
        sluice.Dataset.from_service(address, dataset_id=dataset_id, consumer_index=1)
    with pytest.raises(ValueError, match="consumer_index"):
        sluice.Dataset.from_service(address, dataset_id=dataset_id, consumer_index=2, num_consumers=2)
    with pytest.raises(sluice.InvalidArgumentError, match="parallel_epochs"):
        sluice.Dataset.from_service(address, dataset_id=dataset_id, processing_mode="round_robin")
    with pytest.raises(sluice.NotFoundError, match="no dataset"):
        sluice.Dataset.from_service(address, dataset_id="0123456789abcdef")
    with pytest.raises(ValueError, match="compression"):
        sluice.Dataset.from_service(address, dataset_id=dataset_id, compression="lz4")
    with pytest.raises(ValueError, match="timeout"):
        sluice.Dataset.from_service(address, dataset_id=dataset_id, timeout=0)
    with pytest.raises(TypeError, match="timeout"):
        sluice.Dataset.from_service(address, dataset_id=dataset_id, timeout="1")


def test_each_epoch_draws_a_new_order_and_a_seed_repeats_the_run(serve):
    address, _ = serve
    spec = sluice.Dataset.range(200).shuffle(50)

    def epochs(ds):
        return [[int(x) for x in ds] for _ in range(2)]

    first, second = epochs(sluice.Dataset.from_service(address, spec=spec, processing_mode="distributed_epoch"))
    assert first != second and sorted(first) == sorted(second) == list(range(200))
    run = epochs(sluice.Dataset.from_service(address, spec=spec, processing_mode="distributed_epoch", seed=7))
    rerun = epochs(sluice.Dataset.from_service(address, spec=spec, processing_mode="distributed_epoch", seed=7))
    assert run == rerun and run[0] != run[1]
    with pytest.raises(ValueError, match="seed"):
        sluice.Dataset.from_service(address, spec=spec, seed=-1)
    # parallel_epochs (the default): a seeded shuffle reads as it does locally
    # in the first epoch and reshuffles in the next, the same in every run.
    seeded = sluice.Dataset.range(200).shuffle(200, seed=3)
    run = epochs(sluice.Dataset.from_service(address, spec=seeded))
    assert run[0] == [int(x) for x in seeded] and run[0] != run[1] and sorted(run[1]) == list(range(200))
    assert epochs(sluice.Dataset.from_service(address, spec=seeded)) == run
    # An unseeded shuffle told to keep its order does so from epoch to epoch.
    kept = sluice.Dataset.range(200).shuffle(200, reshuffle_each_iteration=False)
    kept_run = epochs(sluice.Dataset.from_service(address, spec=kept))
    assert kept_run[0] == kept_run[1] and sorted(kept_run[0]) == list(range(200))


def test_zstd_compressed_elements_read_the_same(serve):
    address, dataset_id = serve
    ds = sluice.Dataset.from_service(
        address, dataset_id=dataset_id, processing_mode="distributed_epoch", compression="zstd"
    )
    assert values(ds) == list(range(1000))


def test_a_torch_dataloader_reads_from_the_service(serve):
    torch = pytest.importorskip("torch")
    import sluice.torch

    address, dataset_id = serve
    ds = sluice.Dataset.from_service(address, dataset_id=dataset_id, processing_mode="distributed_epoch")
    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)
    batches = list(loader)
    assert all(isinstance(b, torch.Tensor) for b in batches)
    assert sorted(torch.cat(batches).tolist()) == list(range(1000))


def test_a_shared_jobs_consumers_save_and_resume_without_loss_or_repeat(serve):
    address, _ = serve
    ds = sluice.Dataset.from_service(
        address, spec=sluice.Dataset.range(1000), job_name="shared", processing_mode="distributed_epoch"
    )
    a, b = ds.iterator(), ds.iterator()
    seen = [int(next(a)) for _ in range(20)] + [int(next(b)) for _ in range(30)]
    states = [a.state_dict(), b.state_dict()]
    next(a), next(b)  # read after the save: read again after the restore
    a.close()
    b.close()
    # A restored shared job waits for every consumer's state: drain them at once.
    restored = [ds.iterator(state) for state in states]
    parts = [None, None]

    def drain(i):
        parts[i] = [int(x) for x in restored[i]]

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert sorted(seen + parts[0] + parts[1]) == list(range(1000))


def test_a_restored_consumer_whose_peer_never_restores_fails_after_its_timeout(serve):
    address, _ = serve
    ds = sluice.Dataset.from_service(
        address, spec=sluice.Dataset.range(1000), job_name="alone", processing_mode="distributed_epoch", timeout=1
    )
    a, b = ds.iterator(), ds.iterator()
    next(a), next(b)
    state = a.state_dict()
    a.close()
    b.close()
    with pytest.raises(sluice.FailedPreconditionError, match="still waits for 1 of them"):
        next(ds.iterator(state))


def test_the_two_hosts_example_runs_with_every_host_on_loopback():
    cli = os.environ.get("SLUICE_CLI")
    if not cli:
        pytest.skip("SLUICE_CLI is not set (ctest sets it)")
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "service", "two_hosts.sh")
    done = subprocess.run(
        ["bash", script], env={**os.environ, "SLUICE": cli}, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("read 400 examples from the service")
