r"""Reading PLEAK's attacker files (``.att``) and attacker goals into garesearch.

PLEAK's SQL analyser (repository ``pleak-tools/pleak-sql-analysis``, folder ``banach/``)
describes what an attacker already knows about each column in an *attacker file*, one
statement per column, ``table.column <knowledge>;`` (grammar: ``banach/ParserQ.hs``,
``varStateVal``; data type: ``banach/VarstateQ.hs``, ``VState``; comments ``--``, ``//`` and
``/* ... */``), and what the attacker wants to learn as a *goal*: a formula of
``column <precision>`` terms joined by ``AND`` / ``OR`` (``banach/ParserQ.hs``, ``cExpr``;
``banach/PolicyQ.hs``), optionally wrapped as ``SELECT <formula> FROM ... ;`` or written as
``leak ... cost c`` blocks (a disjunction of conjunctions).

This module reads both formats (it shares no code with PLEAK) and maps them onto the
paper's objects:

===========================  ===========================================================
PLEAK knowledge              garesearch
===========================  ===========================================================
``exact``                    the attacker knows the value: the term is already guessed
``none``                     nothing known; no bound on the distance (an error if needed)
``rangeUnif lb ub``          :class:`~garesearch.priors.Uniform` ``(lb, ub)``
``normal mu var``            :class:`~garesearch.priors.Normal` ``(mu, sqrt(var))``; the
                             second argument is the **variance**
``rangePrior lb (ub,p)...``  :class:`~garesearch.priors.PiecewiseUniform` with edges
                             ``lb, ub_1, ub_2, ...`` and masses ``p_i``
``setUnif v ...``            :class:`~garesearch.priors.Categorical`, uniform
``setPrior ('v',p) ...``     :class:`~garesearch.priors.Categorical`
``totalUnif n``              :class:`~garesearch.priors.Categorical`, ``n`` equally likely
                             values (discrete metric)
``range lb ub``              support only: the worst prior of Sec. 4.1, ``R = ub - lb``
``set v ...``, ``total n``   support only: the worst prior, discrete metric (``R = 1``)
===========================  ===========================================================

Goals: ``col exact`` is a correct guess of the value itself (``r = 0``, discrete metric, as
PLEAK's L0 norm); ``col approx r`` (and ``approxWrtLp(p) r`` / ``approxWrtLinf r`` on one
column) is a guess within ``|x - t| <= r``; ``(c1, ..., ck) approxWrtLinf r`` is the box
``AND_i |x_i - t_i| <= r``; ``(c1, ..., ck) approxWrtLp(p) r`` is the ball
``||x - t||_p <= r`` (:class:`garesearch.events.Coordinates`; the epsilon is then per unit of
that :math:`\ell_p` distance); ``none`` marks a column nobody cares about.  A goal on one column
is computed by :func:`garesearch.attribute.epsilon_for_attribute` (Sec. 4.1); AND/OR goals
over several columns (Sec. 4.2-4.3) go to :func:`garesearch.events.epsilon_for_goal`.

Where PLEAK's own computation differs (``banach/PostprocessQ.hs``: ``compute_epsilon``,
``compute_worst_epsilon``, ``compute_eps_for_a``, ``optimal_a_epsilon``; ``banach/PolicyQ.hs``:
``extract_g``, ``extract_R``), :func:`pleak_method_epsilon` re-derives PLEAK's method for one
attribute so that the two can be compared; see its docstring for the differences.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from . import bound
from ._evaluate import scalar_values
from .attribute import epsilon_for_attribute
from .errors import ParameterError
from .priors import Categorical, Normal, PiecewiseUniform, Prior, Uniform

__all__ = [
    "And",
    "GoalResult",
    "Knowledge",
    "Or",
    "PleakFormatError",
    "Term",
    "epsilon_for_goal_files",
    "epsilon_for_pleak_goal",
    "parse_attacker",
    "parse_goal",
    "pleak_method_epsilon",
    "pleak_worst_epsilon",
    "read_attacker",
    "read_goal",
]

#: PLEAK's tolerance for probabilities that should sum to 1 (``isBadAttState``)
_PROB_TOL = 1e-6


class PleakFormatError(ParameterError):
    """A malformed attacker or goal file; the message starts with ``source:line:``."""


# ------------------------------------------------------------------------------------------
# Tokens
# ------------------------------------------------------------------------------------------
class _Tok(NamedTuple):
    kind: str  # "id", "num", "str", "sym", "end"
    text: str
    line: int


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s*)
    (?:
      (?P<lcom>(--|//)[^\n]*)
    | (?P<bcom>/\*.*?\*/)
    | (?P<num>[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)
    | (?P<id>[A-Za-z][A-Za-z0-9_.]*)
    | (?P<str>'[^'\n]*')
    | (?P<sym>[(),;])
    | (?P<other>\S)
    )
    """,
    re.VERBOSE | re.DOTALL,
)


#: bytes read from a file at a time (files are streamed: an error is reported as soon as
#: it is read, and memory stays bounded)
_CHUNK = 1 << 16
#: tokens ending this close to the end of a chunk wait for the next one (the token
#: regular expression looks at most a few characters beyond a match)
_LOOKAHEAD = 16
#: longest token (or unterminated comment) accepted, in characters
_MAX_TOKEN = 1 << 20
#: deepest nesting of parentheses in a goal
_MAX_NESTING = 64
#: most values in one set (setUnif, setPrior, totalUnif)
_MAX_VALUES = 10**6


def _tokens(chunks, source: str):
    """Tokens of the text given as successive ``chunks`` (strings), lazily, in one list per
    chunk, with their lines; the last list ends with the ``end`` token.

    A token that may go on in the next chunk (one that ends the buffer, an opening quote or
    comment without its end) is carried over; none may exceed ``_MAX_TOKEN`` characters.
    """
    buf, line = "", 1
    for nxt in itertools.chain(chunks, [None]):
        eof = nxt is None
        if not eof:
            buf += nxt
        pos, n = 0, len(buf)
        batch = []
        append = batch.append
        for m in _TOKEN_RE.finditer(buf):
            kind = m.lastgroup
            if kind == "other":
                start = m.start(kind)
                if buf[start] == "'" or buf.startswith("/*", start):
                    if not eof and (buf[start] != "'" or "\n" not in buf[start:]):
                        break  # wait for the closing quote or '*/'
                    line += m.group("ws").count("\n")
                    what = "quoted string" if buf[start] == "'" else "comment '/*'"
                    raise PleakFormatError(f"{source}:{line}: unterminated {what}")
            end = m.end()
            if end > n - _LOOKAHEAD and not eof:
                break  # the next chunk may change or extend it ("1e" + "308")
            ws = m.group(1)
            if "\n" in ws:
                line += ws.count("\n")
            pos = end
            if kind == "bcom":
                line += m.group(kind).count("\n")
            elif kind != "lcom":
                append(_Tok(kind, m.group(kind), line))
        else:
            if eof:
                line += buf.count("\n", pos)
        buf = buf[pos:]
        if len(buf) > _MAX_TOKEN:
            raise PleakFormatError(f"{source}:{line}: a token or comment longer than {_MAX_TOKEN} characters")
        if eof:
            batch.append(_Tok("end", "end of file", line))
        yield batch


def _text_chunks(text: str):
    yield text[1:] if text.startswith("\ufeff") else text  # a byte-order mark is not content


def _file_chunks(path: Path):
    """The UTF-8 text of ``path`` in chunks (a byte-order mark is skipped); a byte that is not
    UTF-8 raises :class:`PleakFormatError` with its line."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    line = 1
    try:
        with path.open("rb") as f:
            while True:
                data = f.read(_CHUNK)
                try:
                    text = decoder.decode(data, final=not data)
                except UnicodeDecodeError as exc:
                    if exc.start < len(data):
                        good = data[: exc.start].decode("utf-8", errors="ignore")
                        where, what = line + good.count(chr(10)), f"byte 0x{data[exc.start]:02x}"
                    else:  # the file ends inside a multi-byte character
                        where, what = line, "it ends inside a character"
                    raise PleakFormatError(
                        f"{path}:{where}: not UTF-8 text ({what}); save the file as UTF-8"
                    ) from None
                line += text.count("\n")
                if text:
                    yield text
                if not data:
                    return
    except OSError as exc:
        raise ParameterError(f"cannot read {path}: {exc.strerror or exc}") from None


class _Stream:
    def __init__(self, chunks, source: str):
        self.source = source
        self._batches = _tokens(chunks, source)
        self._toks: list[_Tok] = []  # tokens read and not yet forgotten
        self._i = 0  # index of the current token in _toks
        self.depth = 0

    def _fill(self, i: int) -> bool:
        """Read batches until ``_toks[i]`` exists (False at the end of the text)."""
        while i >= len(self._toks):
            if self._toks and self._toks[-1].kind == "end":
                return False
            if self._i > 4096:  # forget what was read
                del self._toks[: self._i]
                i -= self._i
                self._i = 0
            self._toks.extend(next(self._batches))
        return True

    def peek(self, k: int = 0) -> _Tok:
        i = self._i + k
        if i < len(self._toks) or self._fill(i):
            return self._toks[self._i + k]
        return self._toks[-1]

    def next(self) -> _Tok:
        tok = self.peek()
        if tok.kind != "end":
            self._i += 1
        return tok

    def skip(self, k: int) -> None:
        """Move ``k`` tokens on (after :meth:`peek` has seen them)."""
        for _ in range(k):
            self.next()

    def error(self, msg: str, tok: _Tok | None = None) -> PleakFormatError:
        tok = tok or self.peek()
        return PleakFormatError(f"{self.source}:{tok.line}: {msg}")

    def expect_sym(self, sym: str, what: str) -> _Tok:
        tok = self.next()
        if tok.kind != "sym" or tok.text != sym:
            raise self.error(f"expected '{sym}' {what}, found {_show(tok)}", tok)
        return tok

    def number(self, what: str) -> float:
        tok = self.next()
        if tok.kind != "num":
            raise self.error(f"expected a number ({what}), found {_show(tok)}", tok)
        value = float(tok.text)
        if not math.isfinite(value):
            raise self.error(f"{tok.text} ({what}) overflows float64 (largest about 1.8e308)", tok)
        if value == 0 and re.search(r"[1-9]", tok.text.lower().partition("e")[0]):
            raise self.error(f"{tok.text} ({what}) underflows float64 to 0 (smallest about 5e-324)", tok)
        return value

    def integer(self, what: str) -> int:
        tok = self.next()
        if tok.kind != "num" or not re.fullmatch(r"\+?\d+", tok.text):
            raise self.error(f"expected a non-negative integer ({what}), found {_show(tok)}", tok)
        return int(tok.text)

    def is_sym(self, sym: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "sym" and tok.text == sym

    def is_word(self, *words: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "id" and tok.text.lower() in {w.lower() for w in words}


def _show(tok: _Tok) -> str:
    return "end of file" if tok.kind == "end" else repr(tok.text)


def _value(tok: _Tok):
    """A set element: quoted string -> str, integer -> int (PLEAK's ``quotedString``)."""
    if tok.kind == "str":
        return tok.text[1:-1]
    if tok.kind == "num" and re.fullmatch(r"[+-]?\d+", tok.text):
        return int(tok.text)
    return None


# ------------------------------------------------------------------------------------------
# Attacker knowledge
# ------------------------------------------------------------------------------------------
_KINDS = (
    "exact", "none", "total", "totalUnif", "range", "rangeUnif", "set", "setUnif",
    "setPrior", "rangePrior", "normal",
)


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the attacker knows about one column (one statement of a PLEAK ``.att`` file).

    Attributes
    ----------
    column : str
        ``table.column``.
    kind : str
        PLEAK's keyword (``"rangeUnif"``, ``"normal"``, ...).
    args : tuple
        The statement's arguments as read (``normal``: ``(mu, variance)``; ``setPrior``:
        ``((value, p), ...)``; ``rangePrior``: ``(lb, ((ub, p), ...))``).
    line : int
        Line of the statement in its file.
    """

    column: str
    kind: str
    args: tuple
    line: int
    source: str = field(default="<string>", compare=False)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"

    @property
    def has_distribution(self) -> bool:
        """True if the statement gives a distribution (the ``...Unif``, ``...Prior``, ``normal``)."""
        return self.kind in ("totalUnif", "rangeUnif", "setUnif", "setPrior", "rangePrior", "normal")

    @property
    def numeric(self) -> bool:
        """True if the column's values are numbers (so ``approx r`` makes sense)."""
        if self.kind in ("range", "rangeUnif", "rangePrior", "normal"):
            return True
        if self.kind in ("set", "setUnif"):
            return all(isinstance(v, int) for v in self.args)
        if self.kind == "setPrior":
            return all(isinstance(v, int) for v, _ in self.args)
        return False

    def values(self) -> list:
        """The finite set of values (for set-like knowledge)."""
        if self.kind in ("set", "setUnif"):
            return list(self.args)
        if self.kind == "setPrior":
            return [v for v, _ in self.args]
        if self.kind in ("total", "totalUnif"):
            return [f"#{i}" for i in range(1, self.args[0] + 1)]
        raise ParameterError(f"{self.where}: '{self.kind}' knowledge is not a finite set")

    def prior(self, *, discrete: bool = False) -> Prior:
        """The garesearch prior this knowledge describes (see the module table).

        Parameters
        ----------
        discrete : bool
            Use the discrete metric (distance 1 between different values) even for numeric
            values: PLEAK's L0 norm for ``exact`` goals.

        Raises
        ------
        ParameterError
            If the statement gives no distribution (``range``, ``set``, ``total``,
            ``exact``, ``none``).
        """
        k = self.kind
        if not self.has_distribution:
            raise ParameterError(f"{self.where}: '{k}' knowledge gives no distribution for {self.column}")
        try:
            return self._prior(discrete)
        except ParameterError as exc:  # a prior garesearch cannot represent: say where it was read
            raise PleakFormatError(f"{self.where}: '{k}' for {self.column}: {exc}") from None

    def _prior(self, discrete: bool) -> Prior:
        k, a = self.kind, self.args
        if k == "rangeUnif":
            return Uniform(a[0], a[1])
        if k == "normal":
            return Normal(a[0], math.sqrt(a[1]))
        if k == "rangePrior":
            lb, pairs = a
            return PiecewiseUniform([lb] + [ub for ub, _ in pairs], _normalised([p for _, p in pairs]))
        if k == "setPrior":
            keys, probs = [v for v, _ in a], _normalised([p for _, p in a])
        else:  # setUnif, totalUnif
            keys = self.values()
            probs = [1.0 / len(keys)] * len(keys)
        if discrete:
            keys = [str(v) for v in keys]
        return Categorical(dict(zip(keys, probs, strict=True)))

    def diameter(self, *, discrete: bool = False) -> float:
        """Largest distance between two values the attacker considers possible (Sec. 3.2's R)."""
        k, a = self.kind, self.args
        if k in ("exact",):
            return 0.0
        if discrete or k in ("total", "totalUnif") or not self.numeric:
            return 1.0
        if k in ("range", "rangeUnif"):
            return a[1] - a[0]
        if k == "rangePrior":
            return a[1][-1][0] - a[0]
        if k in ("set", "setUnif", "setPrior"):
            vals = self.values()
            return float(max(vals) - min(vals))
        if k == "normal":
            return math.inf
        raise ParameterError(
            f"no bound on {self.column}'s values is known ('{k}'); give 'range lb ub' or a "
            "prior for it in the attacker file"
        )


def _normalised(ps):
    total = math.fsum(ps)
    return [p / total for p in ps]


def _check_probs(stream: _Stream, pairs, tok: _Tok, what: str):
    ps = [p for _, p in pairs]
    if any(not 0 <= p <= 1 for p in ps):
        raise stream.error(f"{what}: probabilities must lie in [0, 1]; got {ps}", tok)
    total = math.fsum(ps)
    if abs(total - 1) > _PROB_TOL:
        raise stream.error(f"{what}: probabilities must sum to 1; they sum to {total:.10g}", tok)


def _set_values(stream: _Stream, kw: _Tok) -> tuple:
    vals = []
    while stream.peek().kind in ("str", "num"):
        if len(vals) >= _MAX_VALUES:
            raise stream.error(f"'{kw.text}': more than {_MAX_VALUES} values", kw)
        tok = stream.next()
        v = _value(tok)
        if v is None:
            raise stream.error(f"'{kw.text}': set elements are quoted strings or integers; got {tok.text}", tok)
        vals.append(v)
    if not vals:
        raise stream.error(f"'{kw.text}' needs at least one value", kw)
    _same_types(stream, kw, vals)
    if len(set(vals)) != len(vals):
        raise stream.error(f"'{kw.text}': repeated value", kw)
    return tuple(vals)


def _same_types(stream, kw, vals):
    if len({type(v) for v in vals}) > 1:
        raise stream.error(f"'{kw.text}': do not mix quoted strings and integers in one set", kw)


def _pair(stream: _Stream, kw: _Tok, first):
    stream.expect_sym("(", f"to open a pair of '{kw.text}'")
    x = first()
    stream.expect_sym(",", f"between the value and its probability in '{kw.text}'")
    p = stream.number("a probability")
    stream.expect_sym(")", f"to close a pair of '{kw.text}'")
    return x, p


def _knowledge(stream: _Stream, column: str, col_tok: _Tok) -> Knowledge:
    kw = stream.next()
    if kw.kind != "id" or kw.text not in _KINDS:
        raise stream.error(
            f"unknown attacker knowledge {_show(kw)} for {column}; expected one of {', '.join(_KINDS)}", kw
        )
    k = kw.text
    if k in ("exact", "none"):
        args: tuple = ()
    elif k in ("total", "totalUnif"):
        n = stream.integer(f"'{k}' needs the number of values")
        if n < 1:
            raise stream.error(f"'{k}' needs at least one value; got {n}", kw)
        if k == "totalUnif" and n > _MAX_VALUES:
            raise stream.error(
                f"'totalUnif' of more than {_MAX_VALUES} values; for an attribute with that many "
                "equally likely values give 'total n' (the worst prior over its range)", kw
            )
        args = (n,)
    elif k in ("range", "rangeUnif"):
        lb, ub = stream.number("lower bound"), stream.number("upper bound")
        if not ub > lb:
            raise stream.error(f"'{k}': the upper bound must exceed the lower bound; got {lb} {ub}", kw)
        args = (lb, ub)
    elif k in ("set", "setUnif"):
        args = _set_values(stream, kw)
    elif k == "setPrior":
        def elem():
            tok = stream.next()
            v = _value(tok)
            if v is None:
                raise stream.error(f"'setPrior': values are quoted strings or integers; got {_show(tok)}", tok)
            return v

        pairs = []
        while stream.is_sym("("):
            if len(pairs) >= _MAX_VALUES:
                raise stream.error(f"'setPrior': more than {_MAX_VALUES} values", kw)
            pairs.append(_pair(stream, kw, elem))
        if not pairs:
            raise stream.error("'setPrior' needs at least one pair ('value', probability)", kw)
        _same_types(stream, kw, [v for v, _ in pairs])
        if len({v for v, _ in pairs}) != len(pairs):
            raise stream.error("'setPrior': repeated value", kw)
        _check_probs(stream, pairs, kw, "setPrior")
        args = tuple(pairs)
    elif k == "rangePrior":
        lb = stream.number("lower bound of 'rangePrior'")
        pairs = []
        while stream.is_sym("("):
            if len(pairs) >= _MAX_VALUES:
                raise stream.error(f"'rangePrior': more than {_MAX_VALUES} bins", kw)
            pairs.append(_pair(stream, kw, lambda: stream.number("an upper bound")))
        if not pairs:
            raise stream.error("'rangePrior' needs at least one pair (upper bound, probability)", kw)
        ubs = [ub for ub, _ in pairs]
        if any(b <= a for a, b in zip([lb, *ubs], ubs, strict=False)):
            raise stream.error(f"'rangePrior': the bounds {lb}, {ubs} must increase strictly", kw)
        _check_probs(stream, pairs, kw, "rangePrior")
        args = (lb, tuple(pairs))
    else:  # normal
        mu = stream.number("the mean of 'normal'")
        var = stream.number("the variance of 'normal'")
        if not var > 0:
            raise stream.error(f"'normal mu var': the variance must be > 0; got {var}", kw)
        args = (mu, var)
    return Knowledge(column, k, args, col_tok.line, stream.source)


def parse_attacker(text: str, *, source: str = "<string>") -> dict[str, Knowledge]:
    """Read a PLEAK attacker file (``.att``) given as text.

    Grammar (PLEAK ``banach/ParserQ.hs``, ``attacker`` / ``varStateStmt``): statements
    ``table.column <knowledge>;`` with the knowledge keywords of the module docstring.

    Returns
    -------
    dict
        ``{column: Knowledge}`` in file order.

    Raises
    ------
    PleakFormatError
        With ``source:line:`` and what was expected, for any malformed statement, a
        probability list that does not sum to 1 (tolerance 1e-6, as PLEAK), or a column
        given twice.
    """
    return _parse_attacker(_Stream(_text_chunks(text), source))


def _parse_attacker(stream: _Stream) -> dict[str, Knowledge]:
    out: dict[str, Knowledge] = {}
    while stream.peek().kind != "end":
        col = stream.next()
        if col.kind != "id":
            raise stream.error(f"expected a column name (table.column), found {_show(col)}", col)
        if col.text in out:
            raise stream.error(f"{col.text} is described twice (first on line {out[col.text].line})", col)
        know = _knowledge(stream, col.text, col)
        stream.expect_sym(";", f"after the statement for {col.text}")
        out[col.text] = know
    return out


def read_attacker(path: str | Path) -> dict[str, Knowledge]:
    """Read a PLEAK attacker file from disk (see :func:`parse_attacker`)."""
    path = Path(path)
    return _parse_attacker(_Stream(_file_chunks(path), str(path)))


# ------------------------------------------------------------------------------------------
# Goals
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Term:
    """One goal term: ``column(s) <precision>`` (PLEAK's ``Exact``, ``Approx r``,
    ``ApproxWrtLp p r``, ``ApproxWrtLinf r``, ``None``).

    ``norm`` is 1 for ``approx``, ``p`` for ``approxWrtLp(p)``, ``inf`` for ``approxWrtLinf``
    and 0 for ``exact``; ``r`` is 0 for ``exact``.
    """

    columns: tuple[str, ...]
    kind: str  # "exact" | "approx" | "none"
    r: float
    norm: float
    line: int
    source: str = field(default="<string>", compare=False)

    @property
    def where(self) -> str:
        """``source:line`` of the term, for messages."""
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class And:
    """Conjunction of goals: the attacker must guess every part (Sec. 4.2)."""

    parts: tuple


@dataclass(frozen=True)
class Or:
    """Disjunction of goals: the attacker wins by guessing any part (Sec. 4.3)."""

    parts: tuple


_STATE_WORDS = ("exact", "none", "approx", "approxWrtLp", "approxWrtLinf")


def _goal_state(stream: _Stream, columns: tuple[str, ...], first: _Tok) -> Term:
    kw = stream.next()
    if kw.kind != "id" or kw.text not in _STATE_WORDS:
        raise stream.error(
            f"expected a goal precision for {', '.join(columns)} ({', '.join(_STATE_WORDS)}), found {_show(kw)}",
            kw,
        )
    k = kw.text
    if k in ("exact", "none"):
        if len(columns) > 1:
            raise stream.error(f"'{k}' applies to one column; got ({', '.join(columns)})", kw)
        return Term(columns, k, 0.0, 0.0, first.line, stream.source)
    if k == "approx":
        norm = 1.0
        if len(columns) > 1:
            raise stream.error("'approx r' applies to one column; use approxWrtLinf r for a box", kw)
    elif k == "approxWrtLp":
        stream.expect_sym("(", "after approxWrtLp")
        norm = stream.number("the p of approxWrtLp(p)")
        stream.expect_sym(")", "after approxWrtLp(p")
        if not norm >= 1:
            raise stream.error(f"approxWrtLp(p) needs p >= 1; got {norm}", kw)
    else:
        norm = math.inf
    r = stream.number(f"the precision r of '{k}'")
    if not r >= 0:
        raise stream.error(f"the precision r must be >= 0; got {r}", kw)
    return Term(columns, "approx", r, norm, first.line, stream.source)


def _goal_term(stream: _Stream):
    tok = stream.peek()
    if tok.kind == "sym" and tok.text == "(":
        # a column tuple "(c1, c2) approxWrt..." or a parenthesised formula
        j, cols = 1, []
        while stream.peek(j).kind == "id" and not stream.is_word("and", "or", k=j):
            cols.append(stream.peek(j).text)
            if stream.is_sym(",", j + 1):
                j += 2
                continue
            if stream.is_sym(")", j + 1) and stream.is_word(*_STATE_WORDS, k=j + 2):
                stream.skip(j + 2)
                return _goal_state(stream, tuple(cols), tok)
            break
        stream.next()
        stream.depth += 1
        if stream.depth > _MAX_NESTING:
            raise stream.error(
                f"parentheses nest more than {_MAX_NESTING} deep; write the goal flatter (AND and "
                "OR are associative)", tok
            )
        inner = _goal_or(stream)
        stream.expect_sym(")", "to close '('")
        stream.depth -= 1
        return inner
    if tok.kind != "id":
        raise stream.error(f"expected a column name or '(', found {_show(tok)}")
    stream.next()
    return _goal_state(stream, (tok.text,), tok)


def _goal_and(stream: _Stream):
    parts = [_goal_term(stream)]
    while stream.is_word("and"):
        stream.next()
        parts.append(_goal_term(stream))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _goal_or(stream: _Stream):
    parts = [_goal_and(stream)]
    while stream.is_word("or"):
        stream.next()
        parts.append(_goal_and(stream))
    return parts[0] if len(parts) == 1 else Or(tuple(parts))


def _skip_cost(stream: _Stream):
    if stream.is_word("cost"):
        stream.next()
        stream.number("the cost")


def _leak_blocks(stream: _Stream):
    blocks = []
    while stream.is_word("leak"):
        stream.next()
        terms = []
        while stream.peek().kind == "id" and not stream.is_word("cost", "leak"):
            col = stream.next()
            terms.append(_goal_state(stream, (col.text,), col))
            stream.expect_sym(";", f"after the statement for {col.text}")
        if not terms:
            raise stream.error("a 'leak' block needs at least one 'column precision;' statement")
        _skip_cost(stream)
        blocks.append(terms[0] if len(terms) == 1 else And(tuple(terms)))
    return blocks[0] if len(blocks) == 1 else Or(tuple(blocks))


def parse_goal(text: str, *, source: str = "<string>"):
    """Read an attacker goal in one of PLEAK's three notations.

    - a formula: ``cat.gender exact AND cat.color exact`` (``AND`` binds tighter than
      ``OR``, parentheses group; PLEAK ``banach/ParserQ.hs`` ``cExpr``), optionally
      followed by ``cost c``;
    - ``SELECT <formula> FROM ... [WHERE ...];`` (PLEAK's ``*_attacker_goal.sql``; the
      ``FROM``/``WHERE`` part selects the sensitive rows and is not needed here);
    - ``leak col precision; ... cost c`` blocks: each block is an AND, several blocks an OR.

    Returns
    -------
    Term, And or Or

    Raises
    ------
    PleakFormatError
        With ``source:line:`` for malformed input.
    """
    return _parse_goal(_Stream(_text_chunks(text), source))


def _parse_goal(stream: _Stream):
    if stream.peek().kind == "end":
        raise stream.error("the goal is empty")
    if stream.is_word("leak"):
        goal = _leak_blocks(stream)
    else:
        select = stream.is_word("select")
        if select:
            stream.next()
        goal = _goal_or(stream)
        if select:
            if not stream.is_word("from"):
                raise stream.error(f"expected FROM after the goal formula, found {_show(stream.peek())}")
            while stream.peek().kind != "end" and not stream.is_sym(";"):
                stream.next()
        if stream.is_sym(";"):
            stream.next()
        _skip_cost(stream)
    if stream.peek().kind != "end":
        raise stream.error(f"unexpected {_show(stream.peek())} after the goal (missing AND/OR?)")
    return goal


def read_goal(path: str | Path):
    """Read an attacker goal from disk (see :func:`parse_goal`)."""
    path = Path(path)
    return _parse_goal(_Stream(_file_chunks(path), str(path)))


# ------------------------------------------------------------------------------------------
# From goal + knowledge to epsilon
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoalResult:
    """Epsilon for a PLEAK goal.

    Attributes
    ----------
    epsilon : float
        Per unit of the goal's distance (``|x - t|`` of the column for ``approx``, the
        discrete metric for ``exact``).
    columns : tuple of str
    method : str
        ``"attribute"`` (Sec. 4.1 with the column's prior), ``"worst prior"`` (only the
        range is known: the worst prior of Sec. 4.1 over distance ``R``) or ``"events"``.
    detail : OptimalResult, AttributeResult, OptimalGoalResult, GoalResult or None
        The full result of :func:`~garesearch.attribute.epsilon_for_attribute` (one column) or
        :func:`~garesearch.events.epsilon_for_goal` (several).
    R : float or None
        The diameter used by the worst-prior method.
    """

    epsilon: float
    columns: tuple
    method: str
    detail: Any = None
    R: float | None = None
    prior: Prior | None = None
    r: float = 0.0

    def laplace_scale(self, sensitivity: float = 1.0) -> float:
        """Scale ``sensitivity / epsilon`` of Laplace noise (0 when no noise is needed)."""
        sensitivity = scalar_values(sensitivity=sensitivity)["sensitivity"]
        if not sensitivity > 0:
            raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity}")
        scale = sensitivity / self.epsilon
        if not scale < math.inf:
            raise ParameterError(f"sensitivity / epsilon = {sensitivity!r} / {self.epsilon!r} overflows float64")
        return scale


def _simplify(goal, knowledge: dict[str, Knowledge]):
    """Drop ``none`` terms, expand l_inf boxes into ANDs, and settle ``exact`` knowledge.

    Returns the simplified goal, ``True`` (already guessed) or ``None`` (nothing to protect).
    """
    if isinstance(goal, Term):
        if goal.kind == "none":
            return None
        if len(goal.columns) > 1:
            if math.isinf(goal.norm):
                return _simplify(
                    And(tuple(Term((c,), "approx", goal.r, 1.0, goal.line, goal.source) for c in goal.columns)),
                    knowledge
                )
            # an l_p ball over the columns (garesearch.events.Coordinates); a column the
            # attacker knows exactly leaves the ball's section through the true value
            for col in goal.columns:
                if col not in knowledge:
                    raise ParameterError(
                        f"{goal.where}: the attacker file says nothing about {col}; add a statement for it"
                    )
            cols = tuple(c for c in goal.columns if knowledge[c].kind != "exact")
            if not cols:
                return True
            if len(cols) == 1:
                return Term(cols, "approx", goal.r, 1.0, goal.line, goal.source)
            return Term(cols, "approx", goal.r, goal.norm, goal.line, goal.source)
        col = goal.columns[0]
        if col not in knowledge:
            raise ParameterError(
                f"{goal.where}: the attacker file says nothing about {col}; add a statement for it"
            )
        if knowledge[col].kind == "exact":
            return True
        return Term(goal.columns, goal.kind, goal.r, 1.0, goal.line, goal.source)
    parts = [_simplify(p, knowledge) for p in goal.parts]
    parts = [p for p in parts if p is not None]
    if isinstance(goal, And):
        parts = [p for p in parts if p is not True]
        if not parts:
            return True
    else:
        if any(p is True for p in parts):
            return True
        if not parts:
            return None
    if len(parts) == 1:
        return parts[0]
    return type(goal)(tuple(parts))


def _attribute_prior(term: Term, know: Knowledge):
    """(prior or None, r, discrete) for one column term."""
    discrete = term.kind == "exact"
    if know.kind == "none":
        raise ParameterError(
            f"{know.where}: no bound on {know.column}'s values is known ('none'); give "
            "'range lb ub' or a prior for it in the attacker file"
        )
    if not discrete and not know.numeric:
        raise ParameterError(
            f"{know.where}: {know.column} has non-numeric values ('{know.kind}'); only "
            f"'{term.columns[0]} exact' is a goal for it"
        )
    if discrete and know.kind in ("range", "rangeUnif", "rangePrior", "normal"):
        raise ParameterError(
            f"{term.where}: '{know.column} exact' on a continuous column is guessed with "
            f"probability 0; give a precision: '{know.column} approx r'"
        )
    prior = know.prior(discrete=discrete) if know.has_distribution else None
    return prior, term.r, discrete


def epsilon_for_pleak_goal(
    knowledge: dict[str, Knowledge],
    goal,
    *,
    delta: float,
    t: Any = None,
    construction: str = "optimal",
    sides: str = "both",
) -> GoalResult:
    r"""Epsilon that keeps the attacker's advantage for a PLEAK goal at most ``delta``.

    One column: Sec. 4.1 (:func:`~garesearch.attribute.epsilon_for_attribute`) with the
    column's prior; if the attacker file gives only a range or a set (no distribution), the
    worst prior of Sec. 4.1 over the diameter ``R``: :math:`2\ln\frac{1+\delta}{1-\delta}/R`
    (:func:`~garesearch.bound.worst_case_epsilon`), which holds for every prior on that range.
    AND/OR goals over several columns: Sec. 4.2-4.3, through
    :func:`garesearch.events.epsilon_for_goal` (every column needs a distribution; ``t`` is
    then ``{column: value}``).

    Parameters
    ----------
    knowledge : dict
        From :func:`parse_attacker` / :func:`read_attacker`.
    goal : Term, And or Or
        From :func:`parse_goal` / :func:`read_goal`.
    delta : float
        Bound on the advantage, in (0, 1).
    t : optional
        True value (a dict ``{column: value}`` for several columns); default the worst case.
    construction : {"optimal", "sound", "paper"}
        ``"optimal"`` (default): the largest epsilon at which no epsilon-DP mechanism
        exceeds ``delta`` (one column: :func:`~garesearch.attribute.epsilon_for_attribute`;
        several: :func:`~garesearch.events.epsilon_for_goal`, a certified bracket whose sound
        end is returned); ``"sound"`` / ``"paper"``: the comparison sets.
    sides : {"both", "upper"}
        As in :func:`~garesearch.attribute.epsilon_for_attribute`.

    Raises
    ------
    ParameterError
        Goal and knowledge do not fit together (column not described, ``approx`` on text,
        ``exact`` on a continuous column, the attacker already knows the goal, ...).
    InfeasibleError
        If no epsilon > 0 meets the request.
    """
    simple = _simplify(goal, knowledge)
    if simple is True:
        raise ParameterError(
            "the attacker already knows the goal (a column it needs is 'exact' in the attacker "
            "file): no epsilon can keep the advantage small, and none is needed"
        )
    if simple is None:
        raise ParameterError("the goal protects nothing (every term is 'none')")
    if not isinstance(simple, Term) or len(simple.columns) > 1:
        return _events_goal(simple, knowledge, delta=delta, construction=construction, sides=sides, t=t)
    know = knowledge[simple.columns[0]]
    prior, r, discrete = _attribute_prior(simple, know)
    if prior is None:
        R = know.diameter(discrete=discrete)
        if t is not None:
            raise ParameterError("t: the attacker file gives no distribution for this column, so t is not used")
        if not math.isfinite(R) or r >= R:
            raise ParameterError(f"r must be smaller than the column's range R = {R}; got r = {r}")
        eps = float(bound.worst_case_epsilon(delta=delta, q=1.0, a=R))
        return GoalResult(eps, simple.columns, "worst prior", None, R, None, r)
    if isinstance(t, dict):
        t = t.get(know.column)
    t = _coerce_t(t, prior)
    res = epsilon_for_attribute(
        prior, r=r, delta=delta, t=t, construction=construction, sides=sides
    )
    return GoalResult(res.epsilon, simple.columns, "attribute", res, None, prior, r)


def _events_goal(goal, knowledge, *, delta, t, construction, sides):
    """AND/OR over several columns (Sec. 4.2-4.3) via :func:`garesearch.events.epsilon_for_goal`."""
    from . import events

    atts: dict[str, Any] = {}

    def convert(node):
        if isinstance(node, Term) and len(node.columns) > 1:
            # approxWrtLp(p) r over several columns: the l_p ball of garesearch.events.Coordinates
            priors = []
            for col in node.columns:
                prior, _, _ = _attribute_prior(Term((col,), "approx", node.r, 1.0, node.line, node.source),
                                                knowledge[col])
                if prior is None:
                    raise ParameterError(
                        f"{knowledge[col].where}: an l_p-ball goal needs a distribution for every column; "
                        f"{col} has only '{knowledge[col].kind}'"
                    )
                if col in atts:
                    raise ParameterError(f"{node.where}: {col} appears in two parts of the goal")
                priors.append(prior)
            name = "(" + ", ".join(node.columns) + ")"
            ball = events.Coordinates(priors, r=node.r, norm=node.norm, name=name)
            balls[name] = ball
            for col in node.columns:
                atts[col] = ball
            return ball
        if isinstance(node, Term):
            col = node.columns[0]
            know = knowledge[col]
            prior, r, _ = _attribute_prior(node, know)
            if prior is None:
                raise ParameterError(
                    f"{know.where}: an AND/OR goal needs a distribution for every column; "
                    f"{col} has only '{know.kind}' (use rangeUnif, setUnif, setPrior, ...)"
                )
            if col in atts:
                if atts[col].r != r:
                    raise ParameterError(
                        f"{node.where}: {col} appears with two precisions ({atts[col].r:g} "
                        f"and {r:g}); use one"
                    )
                return atts[col]
            atts[col] = events.Attribute(prior, r=r, name=col)
            return atts[col]
        parts = [convert(p) for p in node.parts]
        return events.AllOf(*parts) if isinstance(node, And) else events.AnyOf(*parts)

    balls: dict[str, Any] = {}
    egoal = convert(goal)
    if t is not None:
        if not isinstance(t, dict):
            raise ParameterError("t: for a goal over several columns give {column: value}")
        single = {c: a for c, a in atts.items() if not isinstance(a, events.Coordinates)}
        in_balls = {c for c, a in atts.items() if isinstance(a, events.Coordinates)}
        t2 = {c: _coerce_t(v, single[c].prior) if c in single else v for c, v in t.items() if c not in in_balls}
        for name, ball in balls.items():
            cols = [c for c, a in atts.items() if a is ball]
            missing = [c for c in cols if c not in t]
            if missing:
                raise ParameterError(f"t: no value for {', '.join(missing)}")
            t2[name] = tuple(_coerce_t(t[c], prior) for c, prior in zip(cols, ball.priors, strict=True))
        t = t2
    res = events.epsilon_for_goal(egoal, delta=delta, t=t, construction=construction, sides=sides)
    return GoalResult(res.epsilon, tuple(atts), "events", res, None, None, 0.0)


def _coerce_t(v, prior):
    if isinstance(v, str) and prior.metric == "absolute":
        try:
            return float(v)
        except ValueError:
            raise ParameterError(f"t must be a number here; got {v!r}") from None
    return v


def epsilon_for_goal_files(attacker: str | Path, goal: str | Path, *, delta: float, **kwargs) -> GoalResult:
    """:func:`epsilon_for_pleak_goal` for an attacker file and a goal file on disk."""
    return epsilon_for_pleak_goal(read_attacker(attacker), read_goal(goal), delta=delta, **kwargs)


# ------------------------------------------------------------------------------------------
# PLEAK's own method, re-derived for comparison
# ------------------------------------------------------------------------------------------
def _pleak_g(prior: Prior, t, z):
    """PLEAK's g (``banach/PolicyQ.hs`` ``extract_g``): ball mass and the distance it uses."""
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return (prior.probability(t) if z < 1 else 1.0), 1.0
    if isinstance(prior, Normal):
        return float(prior.ball_mass(t, z)), 2.0 * z
    low, high = prior.support
    lo, hi = max(t - z, low), min(t + z, high)
    return float(prior.ball_mass(t, z)), hi - lo


def pleak_method_epsilon(prior: Prior, *, t, r: float, delta: float, R: float | None = None, n: int = 2000):
    r"""PLEAK's epsilon for one attribute, re-derived from its description for comparison.

    PLEAK (``banach/PostprocessQ.hs``, ``compute_eps_for_a`` and ``optimal_a_epsilon``;
    ``banach/PolicyQ.hs``, ``extract_g`` and ``extract_R``) scales distances so that
    ``r = 1``, tries radii :math:`a = r + k(R - r)/n`, ``k = 1..n`` (``n = 10000`` there),
    and for each computes, with :math:`q = g_t(a)` the mass of the whole ball and ``D`` the
    distance that ``g`` returns (the width of the ball cut to the support, ``2a`` for a
    normal prior, 1 for a discrete one):

    - upper side (``compute_epsilon True``), Eq. (main) with exponent ``D``:
      :math:`\epsilon = -\ln\left(\frac{p}{q-p}\left(\frac{1}{\delta'+p} - 1\right)\right)/D`,
      :math:`\delta' = \min(\delta, 1-p)`;
    - lower side (``compute_epsilon False``):
      :math:`\epsilon = -\ln\left(\frac{q-p}{p}\,\frac{p-\delta'}{\delta'+q-p}\right)/D`,
      :math:`\delta' = \min(\delta, p)`: Sec. 3.2's :math:`\epsilon_{ub}` for the prior
      *conditioned on the ball* (prior ``p/q``, advantage ``delta/q``), i.e. for an attacker
      who also knows that the value lies within ``a`` of ``t`` (Sec. 4.1's "squeezed" space);

    keeps the best ``a`` of each side and reports the smaller epsilon.  ``R`` defaults to
    PLEAK's: half the range for ``range``-type knowledge (``(ub - lb)/2``) and
    :math:`3\sqrt2\sigma` for ``normal``.  Differences from garesearch's default:

    1. Exponent: PLEAK's ``D = 2a`` (ball width) is sound but larger than the true largest
       distance ``a + r`` between :math:`X'` and the comparison set that garesearch uses;
       the paper's ``a`` is too small (unsound, see :mod:`garesearch.attribute`).
    2. Lower side: PLEAK's holds only for the attacker restricted to the ball; garesearch's
       bounds the unrestricted posterior (tail moment of the whole prior).
    3. Radius search: a grid up to a truncation ``R`` (for a normal prior not a bound on the
       distance) versus an exact optimisation over the whole support.
    4. PLEAK's ``erf`` is Abramowitz-Stegun 7.1.26 (error up to 1.5e-7); here the exact one.

    Returns
    -------
    dict
        ``epsilon``, ``a`` (best radius), ``distance`` (``D``), ``p``, ``q`` (ball mass
        ``g_t(a)``), ``side`` (``"upper"``/``"lower"``).
    """
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    v = scalar_values(r=r, delta=delta, **({} if R is None else {"R": R}))
    r, delta, R = v["r"], v["delta"], v.get("R")
    if not (r >= 0 and 0 < delta < 1 and (R is None or R > 0)):
        raise ParameterError(f"need r >= 0, 0 < delta < 1 and R > 0; got r={r}, delta={delta}, R={R}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 10**5:
        raise ParameterError(f"n must be an integer in [1, 100000] (radii tried); got {n!r}")
    if not (isinstance(prior, Categorical) and prior.metric == "discrete"):
        t = scalar_values(t=t)["t"]
    elif not isinstance(t, Hashable) or t not in prior.values:
        raise ParameterError(f"t={t!r} is not a value of this prior")
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        R = 1.0
    elif R is None:
        low, high = prior.support
        R = 3 * math.sqrt(2) * prior.sigma if isinstance(prior, Normal) else (high - low) / 2.0
    p, _ = _pleak_g(prior, t, r)
    if not 0 < p < 1:
        raise ParameterError(f"p = {p} at t = {t!r}: nothing to protect or nothing to guess")
    best = {}
    radii = [R] if R <= r else [r + k * (R - r) / n for k in range(n, 0, -1)]
    for side in ("upper", "lower"):
        top = None
        for a in radii:
            q, D = _pleak_g(prior, t, max(a, r))
            D = max(D, r if r > 0 else 1.0)
            eps = _pleak_side(side, delta, p, q, D)
            if top is None or eps > top[0]:
                top = (eps, a, D, q)
        best[side] = top
    side = "upper" if best["upper"][0] <= best["lower"][0] else "lower"
    eps, a, D, q = best[side]
    return {"epsilon": eps, "a": a, "distance": D, "p": p, "q": q, "side": side}


def _pleak_side(side, delta, p, q, D):
    if q >= 1 and p >= 1:
        return math.inf
    with np.errstate(all="ignore"):
        if side == "upper":
            ga = min(1 - p, delta)
            z = p / (q - p) * (1 / (ga + p) - 1) if q > p else math.inf
        else:
            ga = min(p, delta)
            # an empty comparison set (q = p) constrains nothing: z = 0, epsilon inf
            z = (q - p) / p * (q / (ga + q - p) - 1) if q > p else 0.0
    if z <= 0:
        return math.inf
    if not math.isfinite(z):
        return -math.inf
    return -math.log(z) / D


def pleak_worst_epsilon(*, delta: float, q: float, D: float) -> float:
    r"""PLEAK's epsilon when only the range is known (``banach/PostprocessQ.hs``,
    ``compute_worst_epsilon``):
    :math:`\frac{2}{D}\ln\frac{\sqrt q + \sqrt{\delta(\delta + q - 1)}}{1-\delta}`.

    Kept to compare with :func:`garesearch.bound.worst_case_epsilon` (they agree: PLEAK uses
    the correct worst prior, not the one printed in Sec. 4.1).
    """
    v = scalar_values(delta=delta, q=q, D=D)
    delta, q, D = v["delta"], v["q"], v["D"]
    if not (0 < delta < 1 and 0 < q <= 1 and q + delta > 1 and D > 0):
        raise ParameterError("need 0 < delta < 1, 0 < q <= 1, q + delta > 1, D > 0")
    out = 2.0 / D * math.log((math.sqrt(q) + math.sqrt(delta * (delta + q - 1))) / (1 - delta))
    if not 0 < out < math.inf:
        raise ParameterError(f"the epsilon lies outside the float64 range for D={D!r}")
    return out

