"""Every reproduction of the defects found by fuzzing and by a new user, kept as a test.

Expected values come from outside the code under test: closed forms typed here (artanh,
the printed Eq. (main) and Sec. 3.2 expressions, the densities of App. A.1) evaluated with
mpmath at 50 digits from the same float inputs, mpmath's quadrature and Lambert W, and exact
rational arithmetic.  The defects of the one-attribute, pointwise and AND/OR modules are in
``test_regressions_core.py``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import tracemalloc
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import scipy.stats

import garesearch as ga
from garesearch import __main__ as entry
from garesearch import approx_dp, bound, composition, noise
from garesearch.app import cli, pleak
from garesearch.errors import InfeasibleError, ParameterError
from garesearch.priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform
from garesearch.releases import release

ROOT = Path(__file__).resolve().parent.parent
mp = mpmath.mpf


def rel(x, exact) -> float:
    return float(abs(mp(float(x)) - exact) / abs(exact))


def printed_eps_main(delta, p, q, a=1.0):
    """Eq. (main) as printed, -ln(p/q (1/(delta+p) - 1))/a, at 50 digits (inputs exact)."""
    with mpmath.workdps(50):
        d, p, q, a = (mp(x) for x in (delta, p, q, a))
        return -mpmath.log(p / q * (1 / (d + p) - 1)) / a


# --- bound: accuracy and spurious answers at the float64 edges --------------------------------
@pytest.mark.parametrize("delta", [1e-9, 1e-15, 1e-16, 1e-200, 0.5, 1 - 1e-16])
def test_worst_case_epsilon_at_tiny_and_huge_delta(delta):
    # 2 ln((1+delta)/(1-delta)) = 4 artanh(delta); delta = 1e-16 raised InfeasibleError
    # (1 + delta rounded to 1) and delta = 1e-9 was 2.8e-8 off
    with mpmath.workdps(50):
        exact = 4 * mpmath.atanh(mp(delta))
    assert rel(bound.worst_case_epsilon(delta=delta), exact) < 1e-14


def test_epsilon_with_q_at_the_edge_of_feasibility():
    # q = q_min (1 + 1e-9): the sum of logarithms cancelled to 3e-8
    p, delta = 0.3, 0.1
    q = p * (1 - p - delta) / (p + delta) * (1 + 1e-9)
    exact = printed_eps_main(delta, p, q)
    assert rel(bound.epsilon_for_advantage(delta=delta, p=p, q=q), exact) < 1e-12
    # exactly at the edge (q = q_min is a float here): infeasible, not a tiny epsilon
    with pytest.raises(InfeasibleError):
        bound.epsilon_for_advantage(delta=0.25, p=0.25, q=0.25)  # q_min = 0.25 * 0.5 / 0.5


def test_finite_epsilon_never_reported_as_inf():
    # p = 1e-310: delta/p overflowed; printed eps_lb = ln((1-p)/p) - ln(1/(delta+p) - 1)
    with mpmath.workdps(50):
        p, d = mp(1e-310), mp(0.1)
        exact = -mpmath.log(p / (1 - p) * (1 / (d + p) - 1))
    assert rel(bound.epsilon_for_advantage(delta=0.1, p=1e-310), exact) < 1e-14
    # p + delta < 1 exactly although it rounds to 1
    p, d = 1 - 2**-53, 8.4e-17
    assert Fraction(p) + Fraction(d) < 1
    with mpmath.workdps(50):
        exact = -mpmath.log(mp(p) / (1 - mp(p)) * (1 / (mp(d) + mp(p)) - 1))
    assert rel(bound.epsilon_for_advantage(delta=d, p=p, sides="upper"), exact) < 1e-13
    # a = 5e-324: epsilon = 0.539/5e-324 exceeds float64; it is refused, not inf
    with pytest.raises(ParameterError, match=r"^a: "):
        bound.epsilon_for_advantage(delta=0.1, p=0.2, a=5e-324)


def test_worst_case_prior_cites_the_offending_element():
    with pytest.raises(InfeasibleError, match=r"q=0\.5, delta=0\.1, element 1"):
        bound.worst_case_prior(delta=0.1, q=[0.95, 0.5])


# --- types and messages --------------------------------------------------------------------
@pytest.mark.parametrize("bad", [complex(0.2, 1), {}, object(), None, "abc", [0.2, "x"], True,
                                 [[0.1], [0.2, 0.3]]])
def test_odd_types_name_the_parameter(bad):
    with pytest.raises(ParameterError, match=r"^p(\[\d+\])? must be a real number"):
        bound.epsilon_for_advantage(delta=0.1, p=bad)


@pytest.mark.parametrize("value", [Decimal("0.2"), Fraction(1, 5), np.float32(0.2), np.int64(1),
                                   "0.2"])
def test_dps_paths_take_the_types_the_float_paths_take(value):
    # exact value of the argument as read (Decimal/str/Fraction at 50 digits; np.float32 exact)
    with mpmath.workdps(50):
        p = {np.float32: lambda v: mp(float(v))}.get(type(value), lambda v: mp(1) / 5)(value)
        if isinstance(value, np.int64):
            p = None
        exact = None if p is None else -mpmath.log(p / (1 - p) * (1 / (mp("0.1") + p) - 1))
    if exact is None:  # an integer distance a = 1
        out = bound.epsilon_for_advantage(delta="0.1", p="0.2", a=value, dps=50)
        assert abs(out - bound.epsilon_for_advantage(delta="0.1", p="0.2", dps=50)) < mp(10) ** -45
    else:
        out = bound.epsilon_for_advantage(delta="0.1", p=value, sides="upper", dps=50)
        assert abs(out - exact) < mp(10) ** -45


def test_split_saving_with_sensitivities_far_apart():
    # p = inf (q = 1): ratio = m^2 sum s^2 / (sum s^(2/3))^3, here 4 (1 + 1e-800) / (1 + ...)^3
    with mpmath.workdps(50):
        s = [mp("1e-200"), mp("1e200")]
        exact = 4 * sum(x**2 for x in s) / sum(mpmath.cbrt(x**2) for x in s) ** 3
    assert rel(composition.split_saving([1e-200, 1e200]), exact) < 1e-14
    with pytest.raises(ParameterError, match=r"^sensitivities"):
        composition.split_saving([1e-200, -1])


# --- noise and App. B ---------------------------------------------------------------------------
def test_noise_mass_at_1e308_is_a_probability():
    # 1 - P(a) < 2 sqrt2 / (3 pi a^3): P(1e308) rounds to 1
    assert noise.noise_mass(1e308, noise="gencauchy") == 1.0
    assert noise.noise_mass([0.5, 1e308], noise="gencauchy")[1] == 1.0


def test_gencauchy_bound_near_one():
    # 1 - P(a) = (2 sqrt2/pi) int_a^oo dx/(1+x^4), by quadrature at 40 digits
    for p in (1 - 1e-9, 0.9999, 1 - 2**-52):
        with mpmath.workdps(40):
            m = 1 - mp(p)
            root = mpmath.findroot(lambda a, m=m: _gencauchy_tail_by_quadrature(a) - m,
                                   mpmath.cbrt(2 * mpmath.sqrt(2) / (3 * mpmath.pi * m)))
        assert rel(noise.noise_bound(p, noise="gencauchy"), root) < 1e-13


def _gencauchy_tail_by_quadrature(a):
    """1 - P(a) = (2 sqrt2/pi) int_a^oo dx/(1 + x^4) (App. A.1's density), by quadrature."""
    return 2 * mpmath.sqrt(2) / mpmath.pi * mpmath.quad(lambda x: 1 / (1 + x**4), [a, mpmath.inf])


_INVERSES = {  # the x >= 0 with f(x) = u for App. A.1's densities f (and the Gaussian)
    "laplace": lambda u: -mpmath.log(2 * u),
    "gencauchy": lambda u: (mpmath.sqrt(2) / (mpmath.pi * u) - 1) ** (mp(1) / 4),
    "gaussian": lambda u: mpmath.sqrt(-2 * mpmath.log(u * mpmath.sqrt(2 * mpmath.pi))),
}


@pytest.mark.parametrize("kind", ["laplace", "gencauchy", "gaussian"])
def test_density_inverse_near_the_peak(kind):
    # the densities of App. A.1 inverted at 50 digits: y = f(x/s)/s solved for x
    s = 3.7
    with mpmath.workdps(50):
        top = {"laplace": mp(1) / 2, "gencauchy": mpmath.sqrt(2) / mpmath.pi,
               "gaussian": 1 / mpmath.sqrt(2 * mpmath.pi)}[kind] / s
    for gap in (1e-3, 1e-8, 1e-13):
        y = float(top * (1 - mp(gap)))
        with mpmath.workdps(50):
            x = _INVERSES[kind](mp(y) * s) * s
        assert rel(noise.noise_density_inverse(y, noise=kind, scale=s), x) < 1e-12


def test_bprime_interval_where_z_underflows():
    # z = -4c e^{eps-alpha-1-(eps-alpha)/beta} / ((1-e^-alpha) beta) = -e^{-5738.4}: the float
    # path returned (0.0, inf)
    eps, alpha, beta, c = 5.743, 5.7e-6, 1e-3, 1.0
    with mpmath.workdps(60):
        e, al, be = mp(eps), mp(alpha), mp(beta)
        z = -4 * c * mpmath.exp(e - al - 1 - (e - al) / be) / (-mpmath.expm1(-al) * be)
        high = -be * mpmath.lambertw(z, -1).real
        low = -be * mpmath.lambertw(z, 0).real
    assert low < mp("1e-2400")  # below float64: the lower end rounds up to the smallest float
    out_low, out_high = approx_dp.bprime_interval(epsilon=eps, alpha=alpha, beta=beta, c=c)
    assert rel(out_high, high) < 1e-12 and out_low == 5e-324


def test_adp_posterior_bound_near_chibar_equal_delta():
    # 1/(1 + e^-eps (1 - delta/chibar) q/p) typed at 50 digits; chibar = delta (1 + 1e-12)
    eps, delta, p, q = 1.0, 0.1, 0.2, 0.5
    chibar = delta * (1 + 1e-12)
    with mpmath.workdps(50):
        exact = 1 / (1 + mpmath.exp(-eps) * (1 - mp(delta) / mp(chibar)) * mp(q) / mp(p))
    assert rel(approx_dp.adp_posterior_bound(epsilon=eps, dp_delta=delta, chibar=chibar, p=p, q=q),
               exact) < 1e-14


def test_scalar_functions_refuse_arrays_with_a_message():
    with pytest.raises(ParameterError, match=r"^epsilon must be a single number"):
        approx_dp.bprime_interval(epsilon=[1.0, 2.0], alpha=0.3, beta=0.2, c=0.5)
    with pytest.raises(ParameterError, match=r"^p must be a single number"):
        approx_dp.confidence_for_advantage(epsilon=1, dp_delta=0.1, advantage=0.1, p=[0.1, 0.2], q=0.5)


# --- priors ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("make", "name"), [
    (lambda: Uniform(0, 5e-324), "Uniform"),
    (lambda: Uniform(-1e308, 1e308), "Uniform"),
    (lambda: Normal(0, 1e308), "sigma"),
    (lambda: Normal(0, 1e-320), "sigma"),
    (lambda: Categorical({float("inf"): 0.5, 1: 0.5}), "mapping"),
    (lambda: Categorical({float("nan"): 0.5, 1: 0.5}), "mapping"),
    (lambda: Categorical({1: True}), "probability"),
    (lambda: Continuous(scipy.stats.norm), "dist"),
    (lambda: Continuous(scipy.stats.norm(0, float("nan"))), "dist"),
    (lambda: PiecewiseUniform([0, 1e-320, 1], [0.5, 0.5]), "edges"),
])
def test_priors_refuse_what_they_cannot_represent(make, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ParameterError, match=name):
            make()


def test_uniform_with_a_wide_but_finite_support_is_a_prior():
    # the width 1e308 is finite: accepted (its ball masses are tiny but positive)
    assert Uniform(0, 1e308).mass(0, 1) == pytest.approx(1e-308, rel=1e-12)


# --- release -----------------------------------------------------------------------------------
SECRET = 987654.321


def test_release_does_not_carry_the_exact_answer():
    with pytest.warns(release.InsecureNoiseWarning):
        r = release.laplace_release(SECRET, epsilon=1e-3, seed=3)
    fields = dataclasses.asdict(r)
    assert "true_value" not in fields and not hasattr(r, "true_value")
    for text in (repr(r), str(r), json.dumps(fields)):
        assert "987654.321" not in text
    assert "Mironov" in r.backend


def test_opendp_is_the_default_backend_when_installed():
    pytest.importorskip("opendp")
    with warnings.catch_warnings():
        warnings.simplefilter("error", release.InsecureNoiseWarning)
        r = release.laplace_release(10.0, epsilon=1.0)
    assert r.backend == "opendp"


# --- optional packages ---------------------------------------------------------------------------
def test_missing_ipywidgets_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'garesearch\[notebooks\]'"):
        ga.app.widgets.epsilon_widget()


def test_missing_nbclient_gives_the_install_hint(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "nbclient", None)
    code = entry.main(["reproduce", "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert 'pip install "garesearch[reproduce]"' in err and not (tmp_path / "out").exists()


def test_missing_opendp_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "opendp", None)
    monkeypatch.setitem(sys.modules, "opendp.prelude", None)
    with pytest.raises(ParameterError, match=r"pip install 'garesearch\[opendp\]'"):
        release.laplace_release(1.0, epsilon=1.0, backend="opendp")


# --- the command line ----------------------------------------------------------------------------
def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_no_noise_needed_exits_0_and_says_so(capsys):
    code, out, err = run_cli(capsys, "--prior", "categorical:a=0.5,b=0.5", "--r", "0",
                             "--delta", "0.5")
    assert code == 0 and err == ""
    assert "any epsilon meets this request: no noise needed" in out
    code, out, _ = run_cli(capsys, "--prior", "categorical:a=0.5,b=0.5", "--r", "0",
                           "--delta", "0.5", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["no_noise_needed"] is True and doc["epsilon"] is None
    assert doc["laplace_scale"] == 0.0


def test_r_beyond_ten_sigma_upper_side_is_no_noise_and_says_so(capsys):
    # N(0, 1), r = 11, t = 0: 1 - p <= erfc(11/sqrt2) ~ 4e-28 < delta, so the attacker's gain
    # p_post - p <= 1 - p < delta for every mechanism: truly no noise needed at t = 0
    with mpmath.workdps(30):
        assert mpmath.erfc(11 / mpmath.sqrt(2)) < mp("1e-20")
    code, out, _ = run_cli(capsys, "--prior", "normal:0,1", "--r", "11", "--delta", "0.1",
                           "--sides", "upper", "--t", "0", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["no_noise_needed"] is True and "no noise needed" in doc["note"]
    # but not at every true value: at t = r + 0.126 the ball [0.126, 22.1] holds 0.45 and a
    # Laplace output far out can push its posterior past 0.55, so the worst case needs noise
    code, out, _ = run_cli(capsys, "--prior", "normal:0,1", "--r", "11", "--delta", "0.1",
                           "--sides", "upper", "--json")
    doc = json.loads(out)
    assert code == 0 and 0 < doc["epsilon"] < math.inf


@pytest.mark.parametrize(("argv", "status", "kind"), [
    (["--prior", "normal:0", "--r", "1", "--delta", "0.1"], 2, "error"),
    (["--prior", "normal:0,1", "--delta", "0.1", "--bogus"], 2, "error"),
    (["--prior", "uniform:0,1", "--r", "2", "--delta", "0.1", "--construction", "sound"], 2, "error"),
    # Sec. 6.2 with the paper's a = 200: no comparison set heavy enough
    (["--prior", "normal:2000,235.7", "--r", "100", "--delta", "0.1", "--t", "2000",
      "--construction", "paper", "--R", "200"], 1, "infeasible"),
])
def test_json_errors_are_json_on_stdout(capsys, argv, status, kind):
    code, out, err = run_cli(capsys, *argv, "--json")
    doc = json.loads(out)
    assert code == status and doc["error"]["exit_status"] == status and doc["error"]["kind"] == kind
    assert err.count("\n") == 1 and doc["error"]["message"] in err


def test_deep_goal_nesting_is_refused_in_one_line(capsys):
    goal = "(" * 200 + "a" + ")" * 200
    code, _, err = run_cli(capsys, "--attribute", "a=normal:0,1", "--attribute", "b=normal:0,1",
                           "--goal", goal, "--r", "1", "--delta", "0.1")
    assert code == 2 and err.count("\n") == 1 and "nest" in err


def test_deep_pleak_goal_file_names_file_and_line(capsys, tmp_path):
    goal = tmp_path / "deep.plc"
    goal.write_text("\n" + "(" * 5000 + "t.a exact" + ")" * 5000)
    att = tmp_path / "a.att"
    att.write_text("t.a setUnif 'x' 'y';\n")
    code, _, err = run_cli(capsys, "--att", str(att), "--goal-file", str(goal), "--delta", "0.1")
    assert code == 2 and err.count("\n") == 1 and f"{goal}:2:" in err


def test_figures_into_a_file_is_one_line(tmp_path, capsys):
    target = tmp_path / "a_file"
    target.write_text("x")
    code = entry.main(["figures", "--output", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and target.read_text() == "x"


@pytest.mark.parametrize("argv", [["--help"], ["epsilon", "--prior", "normal:2000,235.7",
                                                "--r", "100", "--delta", "0.1"]])
def test_closed_pipe_is_quiet(argv):
    # `python -m garesearch ... | head -1`: the reader closes the pipe after one line
    proc = subprocess.Popen([sys.executable, "-m", "garesearch", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=300)
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert code in (0, 141)


@pytest.mark.parametrize("command", ["figures", "claims", "derivations", "reproduce", "demo",
                                     "epsilon"])
def test_usage_errors_of_every_command_are_one_line(command, capsys):
    code = entry.main([command, "--no-such-option"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err


# --- PLEAK files -----------------------------------------------------------------------------------
def test_pleak_byte_order_mark_and_non_utf8(tmp_path):
    bom = tmp_path / "bom.att"
    bom.write_bytes(b"\xef\xbb\xbft.a rangeUnif 0 1;\n")
    assert pleak.read_attacker(bom)["t.a"].args == (0.0, 1.0)
    latin = tmp_path / "latin.att"
    latin.write_bytes(b"t.a setUnif 'x';\nt.b setUnif 'caf\xe9';\n")
    with pytest.raises(pleak.PleakFormatError, match=rf"^{latin}:2: not UTF-8"):
        pleak.read_attacker(latin)


@pytest.mark.parametrize(("text", "what"), [("t.a rangeUnif 0 1e999;", "overflows"),
                                            ("t.a normal 0 1e400;", "overflows"),
                                            ("t.a normal 0 1e-400;", "underflows")])
def test_pleak_numbers_beyond_float64_are_refused_where_read(text, what):
    with pytest.raises(pleak.PleakFormatError, match=f"^f.att:1: .*{what}"):
        pleak.parse_attacker(text, source="f.att")


def test_pleak_prior_errors_name_file_and_line():
    know = pleak.parse_attacker("t.b setUnif 1 2;\nt.a rangeUnif -1e308 1e308;", source="w.att")
    with pytest.raises(pleak.PleakFormatError, match=r"^w.att:2: "):
        know["t.a"].prior()


def test_pleak_large_file_reports_its_first_error_early(tmp_path):
    """A 50 MB attacker file with an error on line 2: reported without reading the rest
    (the whole file once took a minute and 3.5 GB)."""
    path = tmp_path / "big.att"
    line = b"t.c setUnif " + b" ".join(b"%d" % i for i in range(60)) + b";\n"
    with path.open("wb") as f:
        f.write(b"t.a rangeUnif 0 1;\nt.b rangeUnif 0 ;\n")
        f.write(line * (50_000_000 // len(line)))
    tracemalloc.start()
    try:
        with pytest.raises(pleak.PleakFormatError, match=rf"^{path}:2: expected a number"):
            pleak.read_attacker(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16e6  # bytes: one chunk of the file and its tokens
