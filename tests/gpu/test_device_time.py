#!/usr/bin/env python3
"""CTest `bundle.device_time`: tests/gpu/device_time.py, the device run's deadline: the default
when time is plentiful, shorter when the caller or a `timeout` around the script leaves less.
Usage: test_device_time.py."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import device_time  # noqa: E402

SCRIPT = os.path.join(HERE, "device_time.py")


class DeviceTime(unittest.TestCase):
    def test_durations_as_timeout_reads_them(self):
        self.assertEqual(device_time.parse_duration("540"), 540)
        self.assertEqual(device_time.parse_duration("9m"), 540)
        self.assertEqual(device_time.parse_duration("1.5h"), 5400)
        self.assertEqual(device_time.parse_duration("10s"), 10)
        self.assertIsNone(device_time.parse_duration("soon"))
        self.assertIsNone(device_time.parse_duration(""))

    def test_the_duration_of_a_timeout_command_line(self):
        t = device_time.timeout_duration
        self.assertEqual(t(["timeout", "600", "bash", "-c", "x"]), 600)
        self.assertEqual(t(["/usr/bin/timeout", "-k", "5", "-s", "KILL", "10m", "sh"]), 600)
        self.assertEqual(t(["timeout", "--foreground", "--kill-after=5", "300", "sh"]), 300)
        self.assertIsNone(t(["bash", "600"]))
        self.assertIsNone(t(["timeout"]))

    def test_the_least_time_left_among_the_ancestors(self):
        # pid 40 (timeout 600, started 100 s ago) > 30 (bash) > 20 (timeout 300, 250 s ago) > 1
        tree = {40: (30, ["timeout", "600", "x"], 100.0), 30: (20, ["bash"], 120.0),
                20: (1, ["timeout", "300", "y"], 250.0)}
        self.assertAlmostEqual(device_time.ancestors_time_left(40, tree.get), 50.0)
        self.assertIsNone(device_time.ancestors_time_left(30, {30: (1, ["bash"], 5.0)}.get))

    def test_the_deadline_is_the_default_or_less(self):
        c = device_time.choose_deadline
        self.assertEqual(c(540, None, None, 15)[0], 540)
        self.assertEqual(c(540, 900, 2000, 15)[0], 540)  # plenty left: the default
        deadline, why = c(540, 400, None, 15)
        self.assertEqual(deadline, 385)
        self.assertIn("time left given", why)
        self.assertEqual(c(540, 400, 200, 15)[0], 185)  # the tightest wins
        self.assertEqual(c(540, 5, None, 15)[0], 1)  # never zero or negative

    def test_a_timeout_around_the_real_script_shortens_its_deadline(self):
        out = subprocess.run(["timeout", "100", sys.executable, SCRIPT, "540"],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertLessEqual(int(out.stdout), 85)
        self.assertGreater(int(out.stdout), 60)
        self.assertIn("a timeout around the script", out.stderr)

    def test_usage_errors(self):
        self.assertEqual(subprocess.run([sys.executable, SCRIPT], capture_output=True).returncode, 3)
        later = subprocess.run([sys.executable, SCRIPT, "540", "later"], capture_output=True)
        self.assertEqual(later.returncode, 3)


if __name__ == "__main__":
    unittest.main()
