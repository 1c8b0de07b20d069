"""The medium's arithmetic, without a kernel: path loss, positions along a path, the loss
curve per rate, events, the TX_INFO walk. python3 -m unittest discover -s Tests/lab/medium"""

import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import medium  # noqa: E402


class PathLossTests(unittest.TestCase):
    def test_reference_loss_at_one_metre_and_exponent_per_decade(self):
        m = medium.Model(reference_loss_db=40, exponent=3, tx_power_dbm=20)
        self.assertAlmostEqual(m.path_loss(1), 40)
        self.assertAlmostEqual(m.path_loss(10), 70)
        self.assertAlmostEqual(m.path_loss(100), 100)
        self.assertAlmostEqual(m.signal(10), 20 - 70)
        self.assertAlmostEqual(m.signal(10, extra_loss_db=6), 20 - 76)

    def test_closer_than_the_minimum_counts_as_the_minimum(self):
        m = medium.Model(reference_loss_db=40, exponent=2)
        self.assertAlmostEqual(m.path_loss(0), 40)
        self.assertAlmostEqual(m.path_loss(0.2), 40)

    def test_an_exponent_of_two_is_free_space_like(self):
        m = medium.Model(reference_loss_db=40, exponent=2)
        self.assertAlmostEqual(m.path_loss(20) - m.path_loss(10), 20 * math.log10(2))

    def test_snr_is_over_the_noise_floor(self):
        m = medium.Model(noise_floor_dbm=-95)
        self.assertAlmostEqual(m.snr(-70), 25)


class LossCurveTests(unittest.TestCase):
    def test_half_lost_at_the_needed_snr_and_monotonic(self):
        m = medium.Model(loss_slope_per_db=1.0)
        self.assertAlmostEqual(m.loss_probability(15, 15), 0.5)
        ps = [m.loss_probability(s, 15) for s in range(0, 31)]
        self.assertTrue(all(a > b for a, b in zip(ps, ps[1:])))
        self.assertLess(m.loss_probability(25, 15), 0.001)
        self.assertGreater(m.loss_probability(5, 15), 0.999)
        self.assertEqual(m.loss_probability(1000, 15), 0.0)
        self.assertEqual(m.loss_probability(-1000, 15), 1.0)

    def test_a_steeper_slope_narrows_the_transition(self):
        soft, hard = medium.Model(loss_slope_per_db=0.5), medium.Model(loss_slope_per_db=2.0)
        self.assertGreater(soft.loss_probability(13, 15), hard.loss_probability(13, 15) - 0.5)
        self.assertLess(hard.loss_probability(17, 15), soft.loss_probability(17, 15))

    def test_faster_rates_need_more_snr(self):
        legacy24 = [medium.required_snr(i, 0, False) for i in range(4, 12)]  # 6 .. 54 Mb/s
        self.assertEqual(legacy24, sorted(legacy24))
        # 5 GHz bands index from 6 Mb/s: index 0 there is index 4 of the 2.4 GHz table.
        self.assertEqual(medium.required_snr(0, 0, True), medium.required_snr(4, 0, False))
        ht = [medium.required_snr(i, medium.HWSIM_TX_RC_MCS, False) for i in range(8)]
        self.assertEqual(ht, sorted(ht))
        self.assertEqual(medium.required_snr(8, medium.HWSIM_TX_RC_MCS, False), ht[0] + 3)
        self.assertIsNone(medium.required_snr(-1, 0, False))


class PathTests(unittest.TestCase):
    def test_waypoints_are_walked_in_straight_lines(self):
        p = medium.Path({"path": [{"t": 10, "position": [0, 0]}, {"t": 20, "position": [10, 0]}, {"t": 30, "position": [10, 10]}]})
        self.assertEqual(p.at(0), (0, 0))
        self.assertEqual(p.at(15), (5, 0))
        self.assertEqual(p.at(25), (10, 5))
        self.assertEqual(p.at(99), (10, 10))

    def test_a_fixed_radio_stays(self):
        p = medium.Path({"position": [3, 4, 1]})
        self.assertEqual(p.at(0), (3, 4, 1))
        self.assertEqual(p.at(1e9), (3, 4, 1))

    def test_mixed_dimensions_are_refused(self):
        with self.assertRaises(ValueError):
            medium.Path({"path": [{"t": 0, "position": [0, 0]}, {"t": 1, "position": [0, 0, 0]}]})


SCENARIO = {
    "model": {"reference_loss_db": 40, "exponent": 3, "tx_power_dbm": 20, "noise_floor_dbm": -95},
    "radios": [
        {"name": "ap1", "radio": 0, "position": [0, 0]},
        {"name": "ap2", "radio": 1, "position": [100, 0]},
        {"name": "sta", "radio": 2, "path": [{"t": 0, "position": [1, 0]}, {"t": 100, "position": [99, 0]}]},
    ],
    "events": [
        {"kind": "gone", "radio": "ap2", "at": 80},
        {"kind": "extra_loss", "link": ["sta", "ap1"], "from": 10, "to": 20, "db": 12},
    ],
}


class ScenarioTests(unittest.TestCase):
    def test_signal_falls_as_the_station_walks_away(self):
        s = medium.Scenario(SCENARIO)
        sigs = [s.link_signal("sta", "ap1", t) for t in (0, 30, 60, 90)]
        self.assertAlmostEqual(sigs[0], -20)
        self.assertTrue(all(a > b for a, b in zip(sigs, sigs[1:])))
        self.assertEqual(s.link_signal("sta", "ap1", 5), s.link_signal("ap1", "sta", 5))

    def test_extra_loss_holds_only_in_its_window_and_only_on_its_link(self):
        s = medium.Scenario(SCENARIO)
        d = medium.distance(s.radios["sta"]["path"].at(15), (0, 0))
        self.assertAlmostEqual(s.link_signal("sta", "ap1", 15), s.model.signal(d) - 12)
        self.assertAlmostEqual(s.link_signal("ap1", "sta", 20), s.model.signal(medium.distance(s.radios["sta"]["path"].at(20), (0, 0))))
        d2 = medium.distance(s.radios["sta"]["path"].at(15), (100, 0))
        self.assertAlmostEqual(s.link_signal("sta", "ap2", 15), s.model.signal(d2))

    def test_a_radio_that_has_gone_is_heard_by_none(self):
        s = medium.Scenario(SCENARIO)
        self.assertIsNotNone(s.link_signal("sta", "ap2", 79.9))
        self.assertIsNone(s.link_signal("sta", "ap2", 80))
        self.assertIsNone(s.link_signal("ap2", "ap1", 90))

    def test_bad_scenarios_name_what_is_wrong(self):
        bad = dict(SCENARIO, events=[{"kind": "gone", "radio": "ap9", "at": 1}])
        with self.assertRaisesRegex(ValueError, "ap9"):
            medium.Scenario(bad)
        with self.assertRaisesRegex(ValueError, "unknown event kind"):
            medium.Scenario(dict(SCENARIO, events=[{"kind": "rain"}]))

    def test_the_command_says_one_line_and_exits_3_on_a_bad_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write("{ not json")
        try:
            r = subprocess.run([sys.executable, medium.__file__, f.name], capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        self.assertEqual(r.returncode, 3)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        self.assertIn(f.name, r.stderr)

    def test_the_lab_scenarios_load(self):
        here = os.path.dirname(os.path.abspath(__file__))
        names = [n for n in os.listdir(here) if n.endswith(".json")]
        self.assertTrue(names)
        for n in names:
            with open(os.path.join(here, n)) as f:
                medium.Scenario(json.load(f))


class AttemptTests(unittest.TestCase):
    def test_tx_info_is_read_as_four_rate_stages(self):
        rates = struct.pack("bBbBbBbB", 7, 2, 3, 2, 0, 4, -1, 0)
        flags = struct.pack("=bHbHbHbH", 7, medium.HWSIM_TX_RC_MCS, 3, medium.HWSIM_TX_RC_MCS, 0, 0, -1, 0)
        plan = medium.parse_tx_info(rates, flags)
        self.assertEqual(plan, [(7, 2, medium.HWSIM_TX_RC_MCS), (3, 2, medium.HWSIM_TX_RC_MCS), (0, 4, 0), (-1, 0, 0)])
        self.assertEqual(len(medium.parse_tx_info(b"", b"")), 4)

    def test_a_clear_link_succeeds_at_once_and_a_dead_one_uses_every_attempt(self):
        plan = [(7, 2, 0), (3, 2, 0), (0, 4, 0), (-1, 0, 0)]
        rng = random.Random(1)
        used, ok, got = medium.attempt(plan, lambda i, f: 0.0, rng)
        self.assertEqual((used, ok, got), ([(7, 1)], True, (7, 0)))
        used, ok, got = medium.attempt(plan, lambda i, f: 1.0, rng)
        self.assertEqual((used, ok, got), ([(7, 2), (3, 2), (0, 4)], False, None))

    def test_a_fast_rate_that_fails_falls_back_to_a_slow_one(self):
        plan = [(7, 2, 0), (0, 4, 0), (-1, 0, 0), (-1, 0, 0)]
        used, ok, got = medium.attempt(plan, lambda i, f: 1.0 if i == 7 else 0.0, random.Random(1))
        self.assertEqual((used, ok, got), ([(7, 2), (0, 1)], True, (0, 0)))

    def test_retries_follow_the_loss_probability(self):
        # Retries per frame on one stage of many attempts: p / (1 - p) on average.
        rng, p, frames, retries = random.Random(7), 0.3, 20000, 0
        for _ in range(frames):
            used, ok, _ = medium.attempt([(0, 100, 0)], lambda i, f: p, rng)
            retries += sum(n for _, n in used) - 1
        self.assertAlmostEqual(retries / frames, p / (1 - p), delta=0.02)


class AirTests(unittest.TestCase):
    """The medium's own capture: a record per attempt, read back here field by field and, where
    tshark is installed, by tshark."""

    FRAME = (bytes([0x08, 0x01, 0, 0]) + bytes.fromhex("020000000000") + bytes.fromhex("020000000200")
             + bytes.fromhex("020000000000") + b"\x10\x00" + b"\xaa" * 30)

    @staticmethod
    def records(data):
        out, off = [], 24
        while off < len(data):
            sec, usec, incl, orig = struct.unpack_from("<IIII", data, off)
            out.append(data[off + 16:off + 16 + incl])
            off += 16 + incl
        return out

    def test_one_record_per_attempt_with_the_retry_bit_after_the_first(self):
        used = [(5, 2, 0), (0, 1, 0)]
        recs = self.records(medium.PCAP_HEADER + medium.air_records(self.FRAME, 2412, used, -80.4, 1000.5))
        self.assertEqual(len(recs), 3)
        for n, r in enumerate(recs):
            length, present = struct.unpack_from("<HI", r, 2)
            frame = r[length:]
            self.assertEqual(frame[1] & 0x08, 0x08 if n > 0 else 0)
            self.assertEqual(frame[4:], self.FRAME[4:])
            self.assertEqual(present, 0b101110)
            self.assertEqual(r[9], medium.RATES_2G[5 if n < 2 else 0])
            self.assertEqual(struct.unpack_from("<HHb", r, 10), (2412, 0x0080, -80))

    def test_mcs_rates_and_unknown_signals_are_left_out_not_made_up(self):
        recs = self.records(medium.PCAP_HEADER + medium.air_records(self.FRAME, 5180, [(7, 1, medium.HWSIM_TX_RC_MCS)], None, 1.0))
        length, present = struct.unpack_from("<HI", recs[0], 2)
        self.assertEqual(present, 0b1010)
        self.assertEqual(struct.unpack_from("<HH", recs[0], 10), (5180, 0x0100))
        self.assertEqual(length, 14)

    @unittest.skipUnless(shutil.which("tshark"), "tshark is not installed")
    def test_tshark_reads_what_was_written(self):
        data = medium.PCAP_HEADER + medium.air_records(self.FRAME, 2412, [(5, 2, 0), (0, 1, 0)], -80.4, 1000.5)
        with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
            f.write(data)
            f.flush()
            out = subprocess.run(["tshark", "-r", f.name, "-T", "fields", "-e", "wlan.fc.retry", "-e", "radiotap.datarate",
                                  "-e", "radiotap.dbm_antsignal", "-e", "wlan.ta"], capture_output=True, text=True).stdout
        rows = [line.split("\t") for line in out.splitlines()]
        self.assertEqual(rows, [["0", "9", "-80", "02:00:00:00:02:00"], ["1", "9", "-80", "02:00:00:00:02:00"],
                                ["1", "1", "-80", "02:00:00:00:02:00"]])


class NetlinkTests(unittest.TestCase):
    def test_attributes_round_trip_with_padding(self):
        buf = medium.nla(1, b"\x01\x02\x03") + medium.nla(8, struct.pack("=Q", 42))
        self.assertEqual(len(buf) % 4, 0)
        a = medium.attrs(buf)
        self.assertEqual(a[1], b"\x01\x02\x03")
        self.assertEqual(struct.unpack("=Q", a[8])[0], 42)

    def test_truncated_attributes_stop_without_raising(self):
        buf = medium.nla(1, b"abcdef")
        for n in range(len(buf)):
            medium.attrs(buf[:n])

    def test_medium_address_sets_0x40(self):
        self.assertEqual(medium.medium_address("02:00:00:00:01:00"), bytes([0x42, 0, 0, 0, 1, 0]))


if __name__ == "__main__":
    unittest.main()
