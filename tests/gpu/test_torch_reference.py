#!/usr/bin/env python3
"""CTest `bundle.torch_reference`: tests/gpu/torch_reference.py's timing on a fake torch (no GPU
or PyTorch here): each event pair spans REPS_PER_SAMPLE runs back to back, behind one untimed
run, after the wall-time warm-up; the figure is per run. Usage: test_torch_reference.py."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_reference  # noqa: E402


class FakeTorch:
    """Records the order of calls; each run of fn takes 2 ms of 'GPU' time."""

    def __init__(self):
        self.log = []
        self.gpu_ms = 0.0
        outer = self

        class Event:
            def __init__(self, enable_timing=False):
                self.at = None

            def record(self):
                outer.log.append("record")
                self.at = outer.gpu_ms

            def synchronize(self):
                pass

            def elapsed_time(self, other):
                return other.at - self.at

        class Cuda:
            @staticmethod
            def synchronize():
                outer.log.append("sync")

        Cuda.Event = Event
        self.cuda = Cuda

    def run(self):
        self.log.append("run")
        self.gpu_ms += 2.0


class TorchReferenceTiming(unittest.TestCase):
    def test_each_event_pair_spans_back_to_back_runs_behind_an_untimed_one(self):
        torch = FakeTorch()
        ticks = iter(range(1000))
        t, runs = torch_reference.median_seconds(torch, torch.run, 0.0, 3, clock=lambda: next(ticks))
        self.assertAlmostEqual(t, 0.002)  # per run, not per event pair
        self.assertEqual(runs, 3 * torch_reference.REPS_PER_SAMPLE)
        sample = ["run", "record"] + ["run"] * torch_reference.REPS_PER_SAMPLE + ["record"]
        first = torch.log.index("record") - 1
        self.assertEqual(torch.log[first:], sample * 3)
        self.assertGreaterEqual(torch_reference.REPS_PER_SAMPLE, 20)

    def test_the_warm_up_lasts_its_wall_time(self):
        torch = FakeTorch()
        now = [0.0]

        def clock():
            now[0] += 0.25  # every look at the clock: a quarter second later
            return now[0]

        torch_reference.median_seconds(torch, torch.run, 1.0, 1, clock=clock)
        warm_syncs = torch.log[: torch.log.index("record")].count("sync")
        self.assertEqual(warm_syncs, 4)  # batches until 1 s of wall time had passed


if __name__ == "__main__":
    unittest.main()
